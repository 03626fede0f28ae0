// support/thread_cache.hpp: the per-thread caches in front of stream, context, layout and
// pointer look-ups answer only for the key and the generation a value was stored under.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>

#include "src/support/thread_cache.hpp"

namespace acs {
namespace {

TEST(support_thread_cache, answers_only_for_the_key_and_generation_stored) {
  thread_cache<std::uint64_t, int, 8> cache;
  EXPECT_EQ(cache.find(0, 0), nullptr) << "an empty slot matches nothing, key 0 included";
  cache.store(42, 7, 1);
  ASSERT_NE(cache.find(42, 7), nullptr);
  EXPECT_EQ(*cache.find(42, 7), 1);
  EXPECT_EQ(cache.find(42, 8), nullptr) << "a newer generation invalidates the slot";
  EXPECT_EQ(cache.find(43, 7), nullptr);
}

TEST(support_thread_cache, computes_once_per_key_and_generation) {
  thread_cache<const void*, int, 4> cache;
  int calls = 0;
  const auto compute = [&] { return ++calls; };
  const int a = 0;
  EXPECT_EQ(cache.get(&a, 1, compute), 1);
  EXPECT_EQ(cache.get(&a, 1, compute), 1);
  EXPECT_EQ(cache.get(&a, 2, compute), 2);
  EXPECT_EQ(calls, 2);
}

TEST(support_thread_cache, a_colliding_key_replaces_the_slot_and_never_answers_for_the_other) {
  thread_cache<std::uint64_t, std::uint64_t, 1> cache;  // every key shares the one slot
  cache.store(1, 5, 100);
  cache.store(2, 5, 200);
  EXPECT_EQ(cache.find(1, 5), nullptr);
  ASSERT_NE(cache.find(2, 5), nullptr);
  EXPECT_EQ(*cache.find(2, 5), 200u);
}

// Aligned pointers differ only above their low bits: the hash must still spread them.
TEST(support_thread_cache, the_hash_spreads_aligned_pointers_over_the_slots) {
  std::set<std::uint64_t> slots;
  for (std::uint64_t p = 0x7f00'0000'0000; p < 0x7f00'0000'0000 + 64 * 4096; p += 4096)
    slots.insert(hash_word(p) >> (64 - 4));
  EXPECT_GE(slots.size(), 12u) << "64 page-aligned pointers over 16 slots";
}

}  // namespace
}  // namespace acs
