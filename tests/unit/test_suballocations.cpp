// Sub-allocations (annotations/inferred/suballocations.hpp): blocks of a caching allocator
// registered inside a known allocation, and what inference makes of pointers into them.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "annotations/inferred/inference.hpp"
#include "annotations/inferred/suballocations.hpp"

namespace acs {
namespace {

constexpr address segment = 0x7f20'0000'0000;  // a 2 MiB segment of a caching allocator
constexpr std::uint64_t segment_bytes = 2 << 20;
constexpr byte_range whole_segment{segment, segment + segment_bytes - 1};
constexpr address block_a = segment;          // 512-byte blocks, back to back as the allocator splits them
constexpr address block_b = segment + 512;
constexpr address block_c = segment + 1024;

constexpr byte_range block(address base, std::uint64_t bytes = 512) { return {base, base + bytes - 1}; }

TEST(inference_suballocation, the_map_finds_the_block_containing_an_address_only_while_in_use) {
  suballocation_map m;
  EXPECT_TRUE(m.empty());
  m.insert(block_a, 512);
  m.insert(block_b, 512);
  EXPECT_EQ(m.size(), 2u);
  EXPECT_EQ(m.find(block_a + 511), block(block_a));
  EXPECT_EQ(m.find(block_b), block(block_b));
  EXPECT_FALSE(m.find(block_c).has_value());
  EXPECT_EQ(m.erase(block_a, 0), 1u);  // bytes = 0: the entry containing the address
  EXPECT_FALSE(m.find(block_a).has_value());
  EXPECT_EQ(m.erase(block_a, 0), 0u);  // a second free of the same block changes nothing
  EXPECT_EQ(m.find(block_b), block(block_b));
}

TEST(inference_suballocation, a_new_block_replaces_the_blocks_it_overlaps) {
  // Freed blocks merge and are handed out again differently: the newest layout wins.
  suballocation_map m;
  m.insert(block_a, 512);
  m.insert(block_b, 512);
  m.insert(block_c, 512);
  m.insert(block_a + 256, 768);  // covers the end of a and all of b
  EXPECT_EQ(m.size(), 2u);
  EXPECT_FALSE(m.find(block_a).has_value());
  EXPECT_EQ(m.find(block_b + 100), block(block_a + 256, 768));
  EXPECT_EQ(m.find(block_c), block(block_c));
  m.insert(block_a, 0);  // zero bytes: nothing
  EXPECT_EQ(m.size(), 2u);
}

TEST(inference_suballocation, erasing_a_range_drops_every_block_it_overlaps) {
  // A segment given back to the driver forgets whatever was registered inside it.
  suballocation_map m;
  m.insert(block_a, 512);
  m.insert(block_c, 512);
  m.insert(segment + segment_bytes + 4096, 512);  // in the next segment
  EXPECT_EQ(m.erase(segment, segment_bytes), 2u);
  EXPECT_EQ(m.size(), 1u);
}

TEST(inference_suballocation, a_pointer_reaches_its_block_or_the_whole_allocation_when_uncharted) {
  suballocation_map m;
  {
    const suballocation_map::reader r(m);
    const auto u = r.lookup_unit(whole_segment, block_b);
    EXPECT_EQ(u.range, whole_segment);  // nothing registered: the allocation, as before
    EXPECT_TRUE(u.charted);
  }
  m.insert(block_b, 512);
  const suballocation_map::reader r(m);
  EXPECT_EQ(r.lookup_unit(whole_segment, block_b + 8).range, block(block_b));
  EXPECT_TRUE(r.lookup_unit(whole_segment, block_b + 8).charted);
  // Below and above the block, inside the segment: no block says what is there.
  for (const address a : {block_a, block_c, segment + segment_bytes - 1}) {
    const auto u = r.lookup_unit(whole_segment, a);
    EXPECT_EQ(u.range, whole_segment);
    EXPECT_FALSE(u.charted) << std::hex << a;
  }
  // Another allocation, with no block in it, is unaffected.
  const byte_range other{segment + segment_bytes, segment + 2 * segment_bytes - 1};
  EXPECT_TRUE(r.lookup_unit(other, other.first).charted);
  EXPECT_EQ(r.lookup_unit(other, other.first).range, other);
}

TEST(inference_suballocation, a_block_that_crosses_the_allocation_edge_is_not_trusted) {
  suballocation_map m;
  m.insert(segment + segment_bytes - 256, 512);  // runs past the segment's end
  const suballocation_map::reader r(m);
  const auto u = r.lookup_unit(whole_segment, segment + segment_bytes - 8);
  EXPECT_EQ(u.range, whole_segment);
  EXPECT_FALSE(u.charted);
}

TEST(inference_suballocation, readers_and_writers_on_several_threads) {
  // Blocks come and go at every operator on one thread while launches look them up on
  // another: every lookup sees a whole block or the whole segment, never a torn range.
  suballocation_map m;
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int i = 0; i < 20000; ++i) {
      const address base = segment + 512 * static_cast<address>(i % 64);
      m.insert(base, 512);
      if (i % 3 == 0) m.erase(base, 0);
    }
    stop = true;
  });
  std::size_t lookups = 0;
  do {  // at least once, even if the writer is done first
    const suballocation_map::reader r(m);
    const auto u = r.lookup_unit(whole_segment, segment + 512 * 7 + 3);
    const bool block_ok = u.range == block(segment + 512 * 7);
    ASSERT_TRUE(block_ok || u.range == whole_segment);
    ++lookups;
  } while (!stop);
  writer.join();
  EXPECT_GT(lookups, 0u);
}

// Inference with the process's sub-allocations (device_suballocations()).
class inference_with_suballocations : public testing::Test {
 protected:
  void SetUp() override {
    device_suballocations().clear();
    map.insert(segment, segment_bytes);
  }
  void TearDown() override { device_suballocations().clear(); }

  allocation_map map;
  access_set out;
  struct : inference::pointer_probe {
    bool is_device_pointer(address) noexcept override { return false; }
  } probe;
  const inference::param_layout two_pointers{{0, 8}, {8, 8}};
};

TEST_F(inference_with_suballocations, pointers_into_registered_blocks_reach_only_their_blocks) {
  device_suballocations().insert(block_a, 512);
  device_suballocations().insert(block_b, 512);
  address x = block_a + 64, y = block_b;
  void* params[] = {&x, &y};
  ASSERT_EQ(inference::infer(&two_pointers, params, nullptr, map, probe, out), inference::inference_result::inferred);
  EXPECT_TRUE(out.reads.empty());  // written (a write covers reading)
  EXPECT_EQ(out.writes, (std::vector<byte_range>{block(block_a), block(block_b)}));
}

TEST_F(inference_with_suballocations, a_pointer_into_no_registered_block_reaches_the_whole_segment) {
  device_suballocations().insert(block_a, 512);
  address x = block_a, y = block_c;  // c was never registered (allocated before the tracker?)
  void* params[] = {&x, &y};
  ASSERT_EQ(inference::infer(&two_pointers, params, nullptr, map, probe, out), inference::inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{block(block_a), whole_segment}));
  std::vector<inference::pointer_argument> args;
  ASSERT_EQ(inference::pointer_arguments(&two_pointers, params, nullptr, map, probe, args),
            inference::words_status::ok);
  ASSERT_EQ(args.size(), 2u);
  EXPECT_EQ(args[0].allocation, block(block_a));
  EXPECT_FALSE(args[0].uncharted);
  EXPECT_EQ(args[1].allocation, whole_segment);
  EXPECT_TRUE(args[1].uncharted);
}

}  // namespace
}  // namespace acs
