#include <gtest/gtest.h>

#include <algorithm>

#include "scheduler/range_summary.hpp"
#include "scheduler/window.hpp"

namespace acs {
namespace {

access_set reads(address base, std::uint64_t size) {
  access_set a;
  a.read(base, size);
  return a;
}
access_set writes(address base, std::uint64_t size) {
  access_set a;
  a.write(base, size);
  return a;
}

// Sorted: the window reports dependencies in no particular order.
std::vector<slot_id> deps(const window& w, std::uintptr_t vs, const access_set& a, std::uint64_t group = 0) {
  std::vector<slot_id> out;
  w.dependencies(vs, a, group, out);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<slot_id> sorted(std::vector<slot_id> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(window, finds_raw_war_waw_and_skips_read_read) {
  window w(8);
  const slot_id writer = w.insert(1, 0, writes(0, 100), 0, 1, 11);
  const slot_id reader = w.insert(1, 0, reads(200, 100), 1, 1, 12);
  EXPECT_EQ(deps(w, 1, reads(50, 1)), std::vector<slot_id>{writer});    // RAW
  EXPECT_EQ(deps(w, 1, writes(250, 1)), std::vector<slot_id>{reader});  // WAR
  EXPECT_EQ(deps(w, 1, writes(0, 1)), std::vector<slot_id>{writer});    // WAW
  EXPECT_TRUE(deps(w, 1, reads(200, 100)).empty());                     // RAR
  EXPECT_TRUE(deps(w, 1, writes(100, 100)).empty());                    // adjacent both sides
}

TEST(window, ignores_other_virtual_streams) {
  window w(4);
  w.insert(1, 0, writes(0, 100), 0, 1, 11);
  EXPECT_TRUE(deps(w, 2, reads(0, 100)).empty());
  EXPECT_EQ(deps(w, 1, reads(0, 100)).size(), 1u);
}

TEST(window, same_group_always_depends) {
  window w(4);
  const slot_id a = w.insert(1, 7, reads(0, 10), 0, 1, 11);
  EXPECT_EQ(deps(w, 1, reads(0, 10), 7), std::vector<slot_id>{a});
  EXPECT_TRUE(deps(w, 1, reads(0, 10), 8).empty());
}

TEST(window, everything_depends_on_all_and_is_depended_on) {
  window w(4);
  w.insert(1, 0, reads(0, 10), 0, 1, 11);
  w.insert(1, 0, writes(1000, 10), 0, 2, 12);
  EXPECT_EQ(deps(w, 1, access_set::everything()).size(), 2u);
  window v(4);
  v.insert(1, 0, access_set::everything(), 0, 1, 11);
  EXPECT_EQ(deps(v, 1, reads(5, 1)).size(), 1u);
  EXPECT_TRUE(deps(v, 1, access_set{}).empty());
}

TEST(window, capacity_oldest_and_removal_order) {
  window w(3);
  const slot_id a = w.insert(1, 0, writes(0, 1), 0, 1, 11);
  const slot_id b = w.insert(1, 0, writes(1, 1), 0, 2, 12);
  const slot_id c = w.insert(1, 0, writes(2, 1), 0, 3, 13);
  EXPECT_TRUE(w.full());
  EXPECT_EQ(w.oldest(), a);
  w.remove(a);
  EXPECT_EQ(w.oldest(), b);
  EXPECT_FALSE(w.full());
  w.remove_if([&](slot_id s) { return s == c; });
  EXPECT_EQ(w.size(), 1u);
  EXPECT_EQ(w.oldest(), b);
  const slot_id d = w.insert(1, 0, writes(3, 1), 0, 4, 14);
  EXPECT_EQ(deps(w, 1, reads(0, 10)), sorted({b, d}));
}

TEST(window, every_overlapping_entry_is_reported) {
  window w(4);
  const slot_id a = w.insert(1, 0, writes(0, 10), 0, 1, 11);
  const slot_id b = w.insert(1, 0, writes(5, 10), 1, 1, 12);
  w.insert(1, 0, writes(100, 10), 1, 2, 13);
  EXPECT_EQ(deps(w, 1, reads(0, 20)), sorted({a, b}));
}

TEST(window, wide_ranges_and_aliased_buckets_are_checked_exactly) {
  window w(8);
  // 1 GiB apart: the same address bucket, no overlap.
  const address gib = address{1} << 30;
  w.insert(1, 0, writes(0x7f0000000000, 4096), 0, 1, 11);
  EXPECT_TRUE(deps(w, 1, reads(0x7f0000000000 + gib, 4096)).empty());
  // A range wider than the bucket span is seen by every query.
  const slot_id wide = w.insert(1, 0, writes(0x10000000000, 64 * gib), 1, 1, 12);
  EXPECT_EQ(deps(w, 1, reads(0x10000000000 + 63 * gib, 8)), std::vector<slot_id>{wide});
  w.remove(wide);
  EXPECT_TRUE(deps(w, 1, reads(0x10000000000 + 63 * gib, 8)).empty());
}

TEST(window, a_reused_slot_forgets_its_former_ranges) {
  window w(1);
  const slot_id a = w.insert(1, 0, writes(0, 10), 0, 1, 11);
  w.remove(a);
  const slot_id b = w.insert(1, 0, writes(1 << 30, 10), 0, 2, 12);
  EXPECT_EQ(a, b);
  EXPECT_TRUE(deps(w, 1, reads(0, 10)).empty());
  EXPECT_EQ(deps(w, 1, reads(1 << 30, 10)), std::vector<slot_id>{b});
}

TEST(bounded_cover, merges_touching_ranges) {
  bounded_cover c(8);
  c.add({0, 9});
  c.add({10, 19});
  c.add({30, 39});
  ASSERT_EQ(c.ranges().size(), 2u);
  EXPECT_EQ(c.ranges()[0], (byte_range{0, 19}));
  c.add({15, 35});
  ASSERT_EQ(c.ranges().size(), 1u);
  EXPECT_EQ(c.ranges()[0], (byte_range{0, 39}));
}

TEST(bounded_cover, over_the_limit_closes_the_smallest_gap_and_still_covers_all) {
  bounded_cover c(2);
  const std::vector<byte_range> added{{0, 0}, {100, 100}, {103, 103}, {1000, 1000}};
  for (const byte_range& r : added) c.add(r);
  EXPECT_EQ(c.ranges().size(), 2u);
  for (const byte_range& r : added) EXPECT_TRUE(c.covers(r));
  EXPECT_FALSE(c.covers({500, 500}));
}

TEST(bounded_cover, top_of_address_space) {
  bounded_cover c(1);
  c.add({address_max, address_max});
  c.add({0, 0});
  ASSERT_EQ(c.ranges().size(), 1u);
  EXPECT_EQ(c.ranges()[0], whole_address_space);
}

window_entry entry(unsigned stream, std::uint64_t seq, event_handle ev, const access_set& a,
                   std::uint64_t group = 0) {
  window_entry e;
  e.stream = stream;
  e.seq = seq;
  e.event = ev;
  e.group = group;
  e.reads = a.reads;
  e.writes = a.writes;
  return e;
}

TEST(range_summary, keeps_the_latest_event_per_pool_stream) {
  range_summary s;
  EXPECT_EQ(s.fold(entry(0, 1, 11, writes(0, 10))), 0u);
  EXPECT_EQ(s.fold(entry(0, 2, 12, writes(10, 10))), 11u);  // replaces, returns the older
  EXPECT_EQ(s.fold(entry(1, 5, 15, reads(50, 10))), 0u);
  ASSERT_EQ(s.events().size(), 2u);
  EXPECT_EQ(s.events()[0].event, 12u);
  EXPECT_EQ(s.events()[1].event, 15u);
  std::vector<event_handle> released;
  s.clear(released);
  EXPECT_EQ(released.size(), 2u);
  EXPECT_TRUE(s.empty());
}

TEST(range_summary, an_out_of_order_fold_is_covered_by_the_held_event) {
  range_summary s;
  s.fold(entry(0, 5, 15, writes(0, 10)));
  EXPECT_EQ(s.fold(entry(0, 3, 13, writes(100, 10))), 13u);
  EXPECT_TRUE(s.depends(reads(100, 1), 0));  // its ranges are still kept
}

TEST(range_summary, depends_on_raw_war_waw_and_groups) {
  range_summary s;
  s.fold(entry(0, 1, 11, writes(0, 10), 3));
  s.fold(entry(0, 2, 12, reads(100, 10)));
  EXPECT_TRUE(s.depends(reads(5, 1), 0));
  EXPECT_TRUE(s.depends(writes(105, 1), 0));
  EXPECT_TRUE(s.depends(writes(0, 1), 0));
  EXPECT_FALSE(s.depends(reads(100, 10), 0));
  EXPECT_FALSE(s.depends(reads(50, 10), 0));
  EXPECT_TRUE(s.depends(reads(50, 10), 3));
}

TEST(range_summary, absorb_keeps_every_range_and_the_latest_events) {
  range_summary older, newer;
  older.fold(entry(0, 1, 11, writes(0, 10)));
  newer.fold(entry(0, 4, 14, writes(500, 10)));
  newer.fold(entry(2, 1, 21, writes(900, 10)));
  std::vector<event_handle> released;
  older.absorb(newer, released);
  EXPECT_EQ(released, std::vector<event_handle>{11});
  EXPECT_TRUE(newer.empty());
  EXPECT_TRUE(older.depends(reads(0, 1), 0));
  EXPECT_TRUE(older.depends(reads(505, 1), 0));
  EXPECT_TRUE(older.depends(reads(905, 1), 0));
  EXPECT_EQ(older.events().size(), 2u);
}

}  // namespace
}  // namespace acs
