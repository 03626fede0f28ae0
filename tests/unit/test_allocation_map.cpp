// The allocation map: which known allocation contains an address.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "annotations/inferred/allocation_map.hpp"

namespace acs {
namespace {

constexpr address base_a = 0x7f00'0000'0000;
constexpr address base_b = 0x7f00'0020'0000;  // 2 MiB above a

TEST(allocation_map, empty_map_finds_nothing) {
  const allocation_map m;
  EXPECT_FALSE(m.find(0).has_value());
  EXPECT_FALSE(m.find(base_a).has_value());
  EXPECT_EQ(m.size(), 0u);
}

TEST(allocation_map, finds_the_allocation_for_every_byte_inside_it_only) {
  allocation_map m;
  m.insert(base_a, 4096);
  const byte_range whole{base_a, base_a + 4095};
  EXPECT_EQ(m.find(base_a), whole);
  EXPECT_EQ(m.find(base_a + 1234), whole);
  EXPECT_EQ(m.find(base_a + 4095), whole);
  EXPECT_FALSE(m.find(base_a + 4096).has_value());
  EXPECT_FALSE(m.find(base_a - 1).has_value());
}

TEST(allocation_map, tells_adjacent_allocations_apart) {
  allocation_map m;
  m.insert(base_a + 256, 256);  // inserted out of order on purpose
  m.insert(base_a, 256);
  m.insert(base_a + 512, 256);
  EXPECT_EQ(m.size(), 3u);
  EXPECT_EQ(m.find(base_a + 255), (byte_range{base_a, base_a + 255}));
  EXPECT_EQ(m.find(base_a + 256), (byte_range{base_a + 256, base_a + 511}));
  EXPECT_EQ(m.find(base_a + 511), (byte_range{base_a + 256, base_a + 511}));
  EXPECT_EQ(m.find(base_a + 512), (byte_range{base_a + 512, base_a + 767}));
}

TEST(allocation_map, erase_by_base_or_inner_address) {
  allocation_map m;
  m.insert(base_a, 4096);
  m.insert(base_b, 4096);
  EXPECT_TRUE(m.erase(base_a));
  EXPECT_FALSE(m.find(base_a).has_value());
  EXPECT_TRUE(m.find(base_b).has_value());
  EXPECT_TRUE(m.erase(base_b + 100));  // a partial unmap inside it drops the whole entry
  EXPECT_FALSE(m.find(base_b).has_value());
  EXPECT_EQ(m.size(), 0u);
}

TEST(allocation_map, erase_of_unknown_address_changes_nothing) {
  allocation_map m;
  m.insert(base_a, 4096);
  const auto g = m.generation();
  EXPECT_FALSE(m.erase(base_b));
  EXPECT_FALSE(m.erase(base_a + 4096));
  EXPECT_EQ(m.size(), 1u);
  EXPECT_EQ(m.generation(), g);
}

TEST(allocation_map, overlapping_insert_replaces_stale_entries) {
  allocation_map m;
  m.insert(base_a, 256);
  m.insert(base_a + 256, 256);
  m.insert(base_a + 1024, 256);
  // A new allocation over the first two (their frees were missed): only it remains there.
  m.insert(base_a + 128, 512);
  EXPECT_EQ(m.size(), 2u);
  EXPECT_FALSE(m.find(base_a).has_value());
  EXPECT_EQ(m.find(base_a + 128), (byte_range{base_a + 128, base_a + 639}));
  EXPECT_EQ(m.find(base_a + 639), (byte_range{base_a + 128, base_a + 639}));
  EXPECT_FALSE(m.find(base_a + 640).has_value());
  EXPECT_EQ(m.find(base_a + 1024), (byte_range{base_a + 1024, base_a + 1279}));
}

TEST(allocation_map, reinsert_at_the_same_base_with_another_size) {
  allocation_map m;
  m.insert(base_a, 256);
  m.insert(base_a, 8192);
  EXPECT_EQ(m.size(), 1u);
  EXPECT_EQ(m.find(base_a + 8000), (byte_range{base_a, base_a + 8191}));
}

TEST(allocation_map, zero_bytes_are_ignored_and_the_top_is_clamped) {
  allocation_map m;
  m.insert(base_a, 0);
  EXPECT_EQ(m.size(), 0u);
  m.insert(address_max - 15, 64);
  EXPECT_EQ(m.find(address_max), (byte_range{address_max - 15, address_max}));
}

TEST(allocation_map, neighbours_within_slack) {
  allocation_map m;
  m.insert(base_a, 4096);      // [a, a+4095]
  m.insert(base_a + 65536, 4096);
  const allocation_map::reader r(m);
  auto n = r.near(base_a + 4096, 16);  // one past the end of the first
  ASSERT_TRUE(n.below.has_value());
  EXPECT_EQ(n.below->range, (byte_range{base_a, base_a + 4095}));
  EXPECT_FALSE(n.above.has_value());
  n = r.near(base_a + 65536 - 8, 16);  // just below the second
  EXPECT_FALSE(n.below.has_value());
  ASSERT_TRUE(n.above.has_value());
  EXPECT_EQ(n.above->range, (byte_range{base_a + 65536, base_a + 65536 + 4095}));
  n = r.near(base_a + 30000, 16);  // far from both
  EXPECT_FALSE(n.below.has_value());
  EXPECT_FALSE(n.above.has_value());
}

TEST(allocation_map, generation_changes_on_every_change) {
  allocation_map m;
  const auto g0 = m.generation();
  m.insert(base_a, 64);
  const auto g1 = m.generation();
  EXPECT_NE(g0, g1);
  m.erase(base_a);
  EXPECT_NE(m.generation(), g1);
}

TEST(allocation_map, process_map_is_one_object) {
  EXPECT_EQ(&device_allocations(), &device_allocations());
}

// Readers never miss a long-lived allocation while other threads allocate and
// free around it (and, under TSan, the locking is checked).
TEST(allocation_map, concurrent_lookups_and_changes) {
  allocation_map m;
  constexpr int stable = 64;
  for (int i = 0; i < stable; ++i) m.insert(base_a + static_cast<address>(i) * 0x10000, 0x1000);
  std::atomic<bool> stop{false};
  std::atomic<long> misses{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < 2; ++w)
    threads.emplace_back([&, w] {
      for (int k = 0; k < 2000; ++k) {
        const address b = base_a + static_cast<address>((k % stable)) * 0x10000 + 0x2000 + 0x1000 * w;
        m.insert(b, 0x800);
        m.erase(b);
      }
    });
  for (int rd = 0; rd < 2; ++rd)
    threads.emplace_back([&] {
      while (!stop.load()) {
        const allocation_map::reader r(m);
        for (int i = 0; i < stable; ++i) {
          const address a = base_a + static_cast<address>(i) * 0x10000 + 0x800;
          const auto f = r.find(a);
          if (!f || f->first != a - 0x800) misses.fetch_add(1);
        }
      }
    });
  threads[0].join();
  threads[1].join();
  stop = true;
  threads[2].join();
  threads[3].join();
  EXPECT_EQ(misses.load(), 0);
  EXPECT_EQ(m.size(), static_cast<std::size_t>(stable));
}

// ---- Virtual-memory reservations are the unit (docs/design.md rule 10) [vmm_reservation].

constexpr std::uint64_t chunk = 2 << 20;  // a mapping granule

TEST(allocation_map_vmm_reservation, chunks_mapped_into_a_reservation_are_one_allocation) {
  allocation_map m;
  m.reserve(base_a, 4 * chunk);
  m.insert(base_a, chunk);  // cuMemMap of the first chunk
  m.insert(base_a + chunk, chunk);
  const byte_range whole{base_a, base_a + 4 * chunk - 1};
  EXPECT_EQ(m.size(), 1u);
  EXPECT_EQ(m.find(base_a), whole);
  EXPECT_EQ(m.find(base_a + chunk - 1), whole);  // the seam: both sides are one allocation
  EXPECT_EQ(m.find(base_a + chunk), whole);
  EXPECT_EQ(m.find(base_a + 4 * chunk - 1), whole);  // not mapped yet: still the reservation
}

TEST(allocation_map_vmm_reservation, unmapping_keeps_the_reservation_until_it_is_freed) {
  allocation_map m;
  m.reserve(base_a, 2 * chunk);
  m.insert(base_a, chunk);
  EXPECT_FALSE(m.erase(base_a));  // cuMemUnmap
  EXPECT_FALSE(m.erase(base_a + chunk));
  EXPECT_EQ(m.find(base_a + 100), (byte_range{base_a, base_a + 2 * chunk - 1}));
  m.insert(base_a + chunk, chunk);  // mapped again, another physical chunk
  EXPECT_EQ(m.size(), 1u);
  EXPECT_TRUE(m.unreserve(base_a));  // cuMemAddressFree
  EXPECT_FALSE(m.find(base_a).has_value());
  EXPECT_FALSE(m.unreserve(base_a));
}

TEST(allocation_map_vmm_reservation, a_reservation_replaces_what_it_overlaps_and_is_not_freed_as_memory) {
  allocation_map m;
  m.insert(base_a + chunk, 4096);  // a stale entry whose free was missed
  m.reserve(base_a, 2 * chunk);
  EXPECT_EQ(m.size(), 1u);
  EXPECT_EQ(m.find(base_a + chunk), (byte_range{base_a, base_a + 2 * chunk - 1}));
  // Plain allocations are not reservations: unreserve leaves them, erase drops them.
  m.insert(base_b + 4 * chunk, 4096);
  EXPECT_FALSE(m.unreserve(base_b + 4 * chunk));
  EXPECT_TRUE(m.erase(base_b + 4 * chunk));
}

TEST(allocation_map_vmm_reservation, a_mapping_outside_every_reservation_is_an_allocation_of_its_own) {
  allocation_map m;
  m.reserve(base_a, chunk);
  m.insert(base_b, chunk);  // no reservation seen for it
  EXPECT_EQ(m.size(), 2u);
  EXPECT_EQ(m.find(base_b), (byte_range{base_b, base_b + chunk - 1}));
  EXPECT_TRUE(m.erase(base_b));
  // A mapping that runs past the reservation's end is not inside it: recorded as before.
  m.insert(base_a + chunk / 2, chunk);
  EXPECT_EQ(m.find(base_a + chunk / 2), (byte_range{base_a + chunk / 2, base_a + chunk / 2 + chunk - 1}));
}

// ---- Pinned host memory is known as such (docs/design.md rule 11) [host_mapped].

TEST(allocation_map_host_mapped, kinds_are_recorded_and_host_memory_is_counted) {
  allocation_map m;
  EXPECT_FALSE(m.holds_host_memory());
  m.insert(base_a, 4096);
  m.insert(base_b, 4096, memory_kind::host);
  EXPECT_TRUE(m.holds_host_memory());
  {
    const allocation_map::reader r(m);
    ASSERT_TRUE(r.find_allocation(base_a + 1).has_value());
    EXPECT_EQ(r.find_allocation(base_a + 1)->kind, memory_kind::device);
    ASSERT_TRUE(r.find_allocation(base_b + 1).has_value());
    EXPECT_EQ(r.find_allocation(base_b + 1)->kind, memory_kind::host);
    EXPECT_TRUE(r.touches_host({base_b + 100, base_b + 200}));
    EXPECT_TRUE(r.touches_host({base_a, base_b}));  // spans both
    EXPECT_FALSE(r.touches_host({base_a, base_a + 4095}));
    EXPECT_FALSE(r.touches_host({base_b + 4096, base_b + 8191}));
  }
  EXPECT_TRUE(m.erase(base_b));
  EXPECT_FALSE(m.holds_host_memory());
  // Replaced by a device allocation over the same range: no longer host memory.
  m.insert(base_b, 4096, memory_kind::host);
  m.insert(base_b, 4096);
  EXPECT_FALSE(m.holds_host_memory());
}

}  // namespace
}  // namespace acs
