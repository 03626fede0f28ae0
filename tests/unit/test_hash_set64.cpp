// hash_set64 (scheduler/hash_set64.hpp): the prefix set of launch segments, against
// std::unordered_set on the same random values, through growth and clear.
#include "scheduler/hash_set64.hpp"

#include <random>
#include <unordered_set>

#include <gtest/gtest.h>

namespace acs {
namespace {

TEST(hash_set64, agrees_with_unordered_set_through_growth_and_clear) {
  hash_set64 set;
  std::unordered_set<std::uint64_t> model;
  std::mt19937_64 random(7);
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 20000; ++i) {
      // Few distinct low values too, so that inserts repeat and probes collide (not 0 and 1,
      // which share a slot: the next test).
      const std::uint64_t v = i % 3 == 0 ? 2 + random() % 512 : random();
      EXPECT_EQ(set.contains(v), model.count(v) != 0) << "before inserting " << v;
      set.insert(v);
      model.insert(v);
      ASSERT_TRUE(set.contains(v));
    }
    EXPECT_EQ(set.size(), model.size());
    for (int i = 0; i < 20000; ++i) {
      const std::uint64_t v = random();
      EXPECT_EQ(set.contains(v), model.count(v) != 0);
    }
    set.clear();
    model.clear();
    EXPECT_EQ(set.size(), 0u);
    EXPECT_FALSE(set.contains(1));
  }
}

TEST(hash_set64, zero_is_a_value_like_any_other_but_shares_its_slot_with_one) {
  hash_set64 set;
  EXPECT_FALSE(set.contains(0));
  set.insert(0);
  EXPECT_TRUE(set.contains(0));
  EXPECT_TRUE(set.contains(1)) << "0 is stored as 1: a hash collision, which only holds a segment sooner";
  EXPECT_EQ(set.size(), 1u);
}

}  // namespace
}  // namespace acs
