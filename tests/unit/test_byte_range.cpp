#include <gtest/gtest.h>

#include <random>

#include "scheduler/byte_range.hpp"
#include "scheduler/recent_footprint.hpp"

namespace acs {
namespace {

TEST(byte_range, zero_length_is_empty_and_touches_nothing) {
  EXPECT_EQ(make_range(100, 0).issue, range_issue::empty);
  access_set a;
  a.write(100, 0);
  EXPECT_TRUE(a.empty());
  access_set b;
  b.read_write(0, 1000);
  EXPECT_FALSE(conflicts(a, b));
  EXPECT_FALSE(conflicts(b, a));
}

// The kept copy answers exactly as conflicts() on the footprint it was given, small (kept in place)
// or large (spilled), and a footprint kept later replaces the earlier one whatever their sizes.
TEST(recent_footprint, answers_as_conflicts_for_small_and_large_footprints) {
  std::mt19937_64 rng(7);
  const auto random_set = [&] {
    access_set s;
    const int reads = static_cast<int>(rng() % 7), writes = static_cast<int>(rng() % 7);
    for (int i = 0; i < reads; ++i) s.read(rng() % 4096, 1 + rng() % 64);
    for (int i = 0; i < writes; ++i) s.write(rng() % 4096, 1 + rng() % 64);
    return s;
  };
  recent_footprint kept;
  int agreed_conflicts = 0, agreed_free = 0;
  for (int round = 0; round < 20000; ++round) {
    const access_set earlier = random_set(), later = random_set();
    kept.keep(earlier);
    const bool expected = conflicts(earlier, later);
    ASSERT_EQ(kept.conflicts_with(later), expected)
        << "round " << round << ": " << earlier.reads.size() << "r/" << earlier.writes.size() << "w kept";
    (expected ? agreed_conflicts : agreed_free) += 1;
  }
  EXPECT_GT(agreed_conflicts, 1000);  // both answers were exercised
  EXPECT_GT(agreed_free, 1000);
}

TEST(byte_range, adjacent_ranges_do_not_overlap) {
  EXPECT_FALSE(overlaps(make_range(0, 10).range, make_range(10, 10).range));
  EXPECT_FALSE(overlaps(make_range(10, 10).range, make_range(0, 10).range));
  EXPECT_TRUE(overlaps(make_range(0, 11).range, make_range(10, 10).range));
}

TEST(byte_range, overlap_nested_and_identical) {
  EXPECT_TRUE(overlaps(make_range(0, 100).range, make_range(50, 1).range));
  EXPECT_TRUE(overlaps(make_range(50, 1).range, make_range(0, 100).range));
  EXPECT_TRUE(overlaps(make_range(7, 3).range, make_range(7, 3).range));
  EXPECT_TRUE(overlaps(make_range(0, 1).range, make_range(0, 1).range));
}

TEST(byte_range, last_byte_of_the_address_space_is_representable) {
  const made_range top = make_range(address_max, 1);
  EXPECT_EQ(top.issue, range_issue::none);
  EXPECT_EQ(top.range.first, address_max);
  EXPECT_EQ(top.range.last, address_max);
  const made_range end = make_range(address_max - 9, 10);
  EXPECT_EQ(end.issue, range_issue::none);
  EXPECT_EQ(end.range.last, address_max);
  EXPECT_TRUE(overlaps(top.range, end.range));
}

TEST(byte_range, overflow_at_the_top_is_clamped_conservatively) {
  const made_range wrap = make_range(address_max - 9, 11);
  EXPECT_EQ(wrap.issue, range_issue::wraps);
  EXPECT_EQ(wrap.range.first, address_max - 9);
  EXPECT_EQ(wrap.range.last, address_max);
  EXPECT_EQ(make_range(1, address_max).issue, range_issue::none);  // ends exactly at the top
  const made_range huge = make_range(2, address_max);
  EXPECT_EQ(huge.issue, range_issue::wraps);
  EXPECT_EQ(huge.range.last, address_max);
  // The clamped range must still conflict with anything it covers, not wrap to 0.
  EXPECT_FALSE(overlaps(wrap.range, make_range(0, 16).range));
  EXPECT_TRUE(overlaps(wrap.range, make_range(address_max, 1).range));
}

TEST(byte_range, whole_size_at_zero_covers_everything) {
  const made_range all = make_range(0, address_max);
  EXPECT_EQ(all.issue, range_issue::none);
  EXPECT_TRUE(overlaps(all.range, make_range(address_max - 1, 1).range));
}

TEST(conflicts, read_after_write) {
  access_set w, r;
  w.write(0, 8);
  r.read(4, 8);
  EXPECT_TRUE(conflicts(w, r));
}

TEST(conflicts, write_after_read) {
  access_set r, w;
  r.read(0, 8);
  w.write(7, 1);
  EXPECT_TRUE(conflicts(r, w));
}

TEST(conflicts, write_after_write) {
  access_set a, b;
  a.write(0, 8);
  b.write(0, 8);
  EXPECT_TRUE(conflicts(a, b));
}

TEST(conflicts, read_after_read_is_free) {
  access_set a, b;
  a.read(0, 8);
  b.read(0, 8);
  EXPECT_FALSE(conflicts(a, b));
}

TEST(conflicts, disjoint_writes_are_free) {
  access_set a, b;
  a.write(0, 8);
  b.write(8, 8);
  a.read(100, 8);
  b.read(100, 8);
  EXPECT_FALSE(conflicts(a, b));
}

TEST(conflicts, everything_conflicts_with_any_access) {
  access_set r;
  r.read(123, 1);
  EXPECT_TRUE(conflicts(access_set::everything(), r));
  EXPECT_TRUE(conflicts(r, access_set::everything()));
  access_set none;
  EXPECT_FALSE(conflicts(access_set::everything(), none));
}

// A merged footprint conflicts with whatever either part conflicts with.
TEST(merge_footprints, conflicts_with_all_either_part_conflicts_with) {
  access_set earlier, later, merged;
  earlier.read(0, 8);
  earlier.write(100, 8);
  later.read(100, 8);
  later.write(200, 8);
  ASSERT_TRUE(merge_footprints(earlier.reads, earlier.writes, later, 8, merged));
  for (address at : {0u, 100u, 200u, 300u}) {
    for (const bool write : {false, true}) {
      access_set probe;
      if (write) probe.write(at, 4); else probe.read(at, 4);
      const bool either = conflicts(earlier, probe) || conflicts(later, probe);
      EXPECT_EQ(conflicts(merged, probe), either) << (write ? "write at " : "read at ") << at;
    }
  }
  // The read of 100 lies inside the write of 100: only the write is kept.
  EXPECT_EQ(merged.reads.size() + merged.writes.size(), 3u);
}

TEST(merge_footprints, refuses_more_than_the_limit) {
  access_set earlier, later, merged;
  for (address i = 0; i < 3; ++i) earlier.write(i * 100, 8);
  later.write(1000, 8);
  EXPECT_TRUE(merge_footprints(earlier.reads, earlier.writes, later, 4, merged));
  later.read(2000, 8);
  EXPECT_FALSE(merge_footprints(earlier.reads, earlier.writes, later, 4, merged));
}

}  // namespace
}  // namespace acs
