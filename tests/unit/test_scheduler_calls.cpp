// The scheduler's calls to the backend, checked one by one on a recording
// backend. Rules are proven end to end on the simulated device (tests/sim).
#include <gtest/gtest.h>

#include "recording_backend.hpp"
#include "scheduler/scheduler.hpp"

namespace acs {
namespace {

using testing::recorded_call;
using testing::recording_backend;

constexpr stream_handle app = 77;
const virtual_stream vs{app, app, stream_kind::non_blocking};

access_set rw(address base, std::uint64_t size) {
  access_set a;
  a.read_write(base, size);
  return a;
}
access_set rd(address base, std::uint64_t size) {
  access_set a;
  a.read(base, size);
  return a;
}

const void* kernel(int n) { return reinterpret_cast<const void*>(static_cast<std::uintptr_t>(100 + n)); }

// Calls issued from the n-th launch on (inclusive) to the (n+1)-th launch (exclusive)
std::vector<recorded_call> calls_after_launch(const recording_backend& gpu, std::size_t n) {
  std::vector<recorded_call> out;
  std::size_t launches = 0;
  for (const recorded_call& c : gpu.calls) {
    if (c.what == "launch") ++launches;
    if (launches == n + 1) out.push_back(c);
  }
  return out;
}

// The first three calls of a first launch: record the fork on the application
// stream, make a pool stream wait on it, launch there.
void expect_fork_then_launch(const recording_backend& gpu) {
  ASSERT_GE(gpu.calls.size(), 3u);
  EXPECT_EQ(gpu.calls[0].what, "record");
  EXPECT_EQ(gpu.calls[0].b, app);
  EXPECT_EQ(gpu.calls[1].what, "wait");
  EXPECT_EQ(gpu.calls[1].b, gpu.calls[0].a);
  EXPECT_EQ(gpu.calls[2].what, "launch");
  EXPECT_EQ(gpu.calls[2].b, gpu.calls[1].a);
  EXPECT_NE(gpu.calls[2].b, app);
}

TEST(scheduler_calls, first_launch_forks_from_the_application_stream) {
  recording_backend gpu;
  scheduler s(gpu, {32, 4});
  ASSERT_EQ(s.launch(vs, rw(0, 10), kernel(0)), 0);
  expect_fork_then_launch(gpu);
  EXPECT_EQ(gpu.calls.size(), 3u) << "nothing more: the join is lazy";
}

TEST(scheduler_calls, eager_join_waits_for_each_kernel_at_once) {
  recording_backend gpu;
  scheduler s(gpu, {32, 4, true});
  ASSERT_EQ(s.launch(vs, rw(0, 10), kernel(0)), 0);
  // ... then record done on the pool stream, and the application stream waits on it.
  expect_fork_then_launch(gpu);
  ASSERT_EQ(gpu.calls.size(), 5u);
  EXPECT_EQ(gpu.calls[3].what, "record");
  EXPECT_EQ(gpu.calls[3].b, gpu.calls[2].b);
  EXPECT_EQ(gpu.calls[4].what, "wait");
  EXPECT_EQ(gpu.calls[4].a, app);  // eager join
  EXPECT_EQ(gpu.calls[4].b, gpu.calls[3].a);
  s.before_barrier(vs);
  EXPECT_EQ(gpu.calls.size(), 5u) << "nothing left to join";
}

// Before work is issued on the stream directly, the stream waits for its kernel:
// the kernel's event is recorded then (it is its pool stream's tail: exact).
TEST(scheduler_calls, work_on_the_stream_joins_its_kernels_first) {
  recording_backend gpu;
  scheduler s(gpu, {32, 4});
  ASSERT_EQ(s.launch(vs, rw(0, 10), kernel(0)), 0);
  const stream_handle pool = gpu.launch_stream(0);
  const std::size_t before = gpu.calls.size();
  s.before_barrier(vs);
  ASSERT_EQ(gpu.calls.size(), before + 2);
  EXPECT_EQ(gpu.calls[before].what, "record");
  EXPECT_EQ(gpu.calls[before].b, pool);
  EXPECT_EQ(gpu.calls[before + 1].what, "wait");
  EXPECT_EQ(gpu.calls[before + 1].a, app);
  EXPECT_EQ(gpu.calls[before + 1].b, gpu.calls[before].a);
  EXPECT_EQ(s.stats().join_waits, 1u);
  s.barrier(vs);
  s.before_barrier(vs);  // joined already: nothing to do
  EXPECT_EQ(gpu.calls.size(), before + 2);
}

TEST(scheduler_calls, a_sync_joins_the_stream_once) {
  recording_backend gpu;
  scheduler s(gpu, {32, 4});
  ASSERT_EQ(s.launch(vs, rw(0, 10), kernel(0)), 0);
  ASSERT_EQ(s.launch(vs, rw(100, 10), kernel(1)), 0);  // independent: another pool stream
  ASSERT_NE(gpu.launch_stream(0), gpu.launch_stream(1));
  const std::size_t waits = gpu.count("wait");
  const std::uint64_t point = s.join(vs);
  EXPECT_EQ(gpu.count("wait"), waits + 2);  // one per pool stream holding its kernels
  (void)s.join(vs);
  EXPECT_EQ(gpu.count("wait"), waits + 2);
  s.synchronized(vs.key, point);
  EXPECT_EQ(s.in_flight(), 0u);
}

TEST(scheduler_calls, a_device_sync_leaves_nothing_to_join) {
  recording_backend gpu;
  scheduler s(gpu, {32, 4});
  ASSERT_EQ(s.launch(vs, rw(0, 10), kernel(0)), 0);
  s.device_synchronized(s.sync_point());
  const std::size_t calls = gpu.calls.size();
  (void)s.join(vs);
  EXPECT_EQ(gpu.calls.size(), calls);
}

// Each link of a chain covers what the previous one touched: nothing ever needs
// the previous link's event, and the window keeps one entry.
TEST(scheduler_calls, a_chain_records_no_event_per_kernel) {
  recording_backend gpu;
  scheduler s(gpu, {32, 4});
  for (int i = 0; i < 20; ++i) ASSERT_EQ(s.launch(vs, rw(0, 10), kernel(i)), 0);
  EXPECT_EQ(gpu.count("record"), 1u);  // the fork
  EXPECT_EQ(gpu.count("wait"), 1u);    // on the fork
  EXPECT_EQ(gpu.count("query"), 0u);
  EXPECT_EQ(s.stats().shadowed, 19u);
  EXPECT_EQ(s.in_flight(), 1u);
  // The last link's event appears when the stream needs it.
  (void)s.join(vs);
  EXPECT_EQ(gpu.count("record"), 2u);
}

// A chain over distinct buffers (each link reads the one before and rewrites its
// own): no link covers its predecessor, but with merging the predecessor's
// footprint joins the link's entry instead of getting an event.
access_set buffer_link(int i) {
  access_set a;
  a.read(static_cast<address>(i - 1) * 100, 10);
  a.read_write(static_cast<address>(i) * 100, 10);
  return a;
}

TEST(scheduler_calls, a_chain_over_distinct_buffers_records_each_link_without_merging) {
  recording_backend gpu;
  scheduler s(gpu, {.window = 32, .streams = 4, .merge = chain_merge::never});
  for (int i = 1; i <= 20; ++i) ASSERT_EQ(s.launch(vs, buffer_link(i), kernel(i)), 0);
  EXPECT_EQ(gpu.count("record"), 20u);  // the fork, then each link but the last
  EXPECT_EQ(s.stats().merged, 0u);
}

TEST(scheduler_calls, a_chain_over_distinct_buffers_merges_links) {
  recording_backend gpu;
  scheduler s(gpu, {.window = 32, .streams = 4, .merge = chain_merge::always});
  for (int i = 1; i <= 20; ++i) ASSERT_EQ(s.launch(vs, buffer_link(i), kernel(i)), 0);
  for (int i = 1; i < 20; ++i) EXPECT_EQ(gpu.launch_stream(static_cast<std::size_t>(i)), gpu.launch_stream(0));
  // A merged entry grows by a range per link, up to its limit: then a link is recorded.
  EXPECT_LE(gpu.count("record"), 5u);
  EXPECT_GE(s.stats().merged, 15u);
  EXPECT_LE(s.in_flight(), 4u);
  // Whatever conflicts with an early link still finds it: a reader of buffer 3 on
  // another stream waits for an event of the chain's pool stream.
  access_set reader;
  reader.read(300, 10);
  reader.write(5000, 10);
  const std::size_t before = gpu.calls.size();
  ASSERT_EQ(s.launch(vs, reader, kernel(99)), 0);
  bool waited = false;
  for (std::size_t i = before; i < gpu.calls.size(); ++i) waited |= gpu.calls[i].what == "wait";
  EXPECT_TRUE(waited);
}

// Adaptive merging starts off, turns on after launches where no other pool
// stream waits for a kernel that already has a successor, and off again once
// such waits come.
TEST(scheduler_calls, adaptive_merging_follows_late_waits) {
  recording_backend gpu;
  scheduler s(gpu, {.window = 32, .streams = 4});
  int i = 1;
  for (; i <= 10; ++i) ASSERT_EQ(s.launch(vs, buffer_link(i), kernel(i)), 0);
  EXPECT_EQ(s.stats().merged, 0u) << "merging is off at first";
  for (; i <= 100; ++i) ASSERT_EQ(s.launch(vs, buffer_link(i), kernel(i)), 0);
  const std::uint64_t merged = s.stats().merged;
  EXPECT_GT(merged, 0u) << "a quiet chain turns merging on";
  // Late waits: a link, its successor behind it, then a reader of the link (on another
  // pool stream, and the link has a successor by then).
  for (int k = 0; k < 10; ++k, i += 2) {
    ASSERT_EQ(s.launch(vs, buffer_link(i), kernel(i)), 0);
    ASSERT_EQ(s.launch(vs, buffer_link(i + 1), kernel(i + 1)), 0);
    access_set reader;
    reader.read(static_cast<address>(i) * 100, 10);
    reader.write(static_cast<address>(100000 + k) * 100, 10);
    ASSERT_EQ(s.launch(vs, reader, kernel(1000 + k)), 0);
  }
  const std::uint64_t merged_before_chain = s.stats().merged;
  for (int k = 0; k < 10; ++k, ++i) ASSERT_EQ(s.launch(vs, buffer_link(i), kernel(i)), 0);
  EXPECT_EQ(s.stats().merged, merged_before_chain) << "late waits turn merging off";
}

// A launch the driver rejects runs nothing: the link it would have shadowed stays.
TEST(scheduler_calls, a_rejected_launch_shadows_nothing) {
  recording_backend gpu;
  scheduler s(gpu, {32, 4});
  ASSERT_EQ(s.launch(vs, rw(0, 10), kernel(0)), 0);
  gpu.fail_launch = 9;
  EXPECT_EQ(s.launch(vs, access_set::everything(), kernel(1)), 9);
  gpu.fail_launch = 0;
  EXPECT_EQ(s.in_flight(), 1u);
  EXPECT_EQ(s.stats().shadowed, 0u);
  const std::size_t before = gpu.calls.size();
  (void)s.join(vs);  // the first kernel is still joined: its event, then the wait
  ASSERT_EQ(gpu.calls.size(), before + 2);
  EXPECT_EQ(gpu.calls[before].what, "record");
  EXPECT_EQ(gpu.calls[before].b, gpu.launch_stream(0));
}

// A later link that reads less than its predecessor does not shadow it: the
// predecessor's event is recorded before the link is issued behind it.
TEST(scheduler_calls, a_narrower_successor_records_the_predecessor_first) {
  recording_backend gpu;
  scheduler s(gpu, {32, 4});
  ASSERT_EQ(s.launch(vs, rw(0, 10), kernel(0)), 0);
  ASSERT_EQ(s.launch(vs, rw(0, 5), kernel(1)), 0);  // writes part of it: behind it, same stream
  ASSERT_EQ(gpu.launch_stream(1), gpu.launch_stream(0));
  const stream_handle pool = gpu.launch_stream(0);
  std::size_t record_at = 0, second_launch_at = 0, launches = 0;
  for (std::size_t i = 0; i < gpu.calls.size(); ++i) {
    if (gpu.calls[i].what == "record" && gpu.calls[i].b == pool) record_at = i;
    if (gpu.calls[i].what == "launch" && ++launches == 2) second_launch_at = i;
  }
  EXPECT_NE(record_at, 0u);
  EXPECT_LT(record_at, second_launch_at);
  EXPECT_EQ(s.stats().shadowed, 0u);
}

TEST(scheduler_calls, independent_kernels_spread_over_the_pool) {
  recording_backend gpu;
  scheduler s(gpu, {32, 4});
  for (int i = 0; i < 4; ++i) ASSERT_EQ(s.launch(vs, rw(static_cast<address>(i) * 100, 10), kernel(i)), 0);
  std::vector<stream_handle> used;
  for (std::size_t i = 0; i < 4; ++i) used.push_back(gpu.launch_stream(i));
  std::sort(used.begin(), used.end());
  EXPECT_EQ(std::unique(used.begin(), used.end()), used.end()) << "independent kernels shared a stream";
  EXPECT_EQ(s.stats().independent, 4u);
  EXPECT_EQ(s.stats().dependency_waits, 0u);
}

TEST(scheduler_calls, a_consumer_follows_its_producer_on_the_same_stream_without_an_event) {
  recording_backend gpu;
  scheduler s(gpu, {32, 4});
  ASSERT_EQ(s.launch(vs, rw(0, 10), kernel(0)), 0);
  ASSERT_EQ(s.launch(vs, rd(5, 1), kernel(1)), 0);
  EXPECT_EQ(gpu.launch_stream(1), gpu.launch_stream(0));
  EXPECT_EQ(s.stats().dependency_waits, 0u);
  EXPECT_EQ(s.stats().same_stream, 1u);
}

TEST(scheduler_calls, a_consumer_of_a_non_tail_producer_waits_on_its_event) {
  recording_backend gpu;
  scheduler s(gpu, {32, 2});
  ASSERT_EQ(s.launch(vs, rw(0, 10), kernel(0)), 0);     // A on stream x
  ASSERT_EQ(s.launch(vs, rw(100, 10), kernel(1)), 0);   // B on stream y
  ASSERT_EQ(s.launch(vs, rw(200, 10), kernel(2)), 0);   // C on x, after A: A not a tail any more
  ASSERT_EQ(gpu.launch_stream(2), gpu.launch_stream(0));
  ASSERT_EQ(s.launch(vs, rd(0, 10), kernel(3)), 0);     // D reads A's output
  // A is not the tail of x; D must wait on A's event unless D lands on x behind C.
  const auto calls = calls_after_launch(gpu, 2);
  const stream_handle d_stream = gpu.launch_stream(3);
  if (d_stream != gpu.launch_stream(0)) {
    bool waited = false;
    for (const recorded_call& c : gpu.calls)
      if (c.what == "wait" && c.a == d_stream && c.b != 0) waited = true;
    EXPECT_TRUE(waited);
    EXPECT_EQ(s.stats().dependency_waits, 1u);
  }
  (void)calls;
}

TEST(scheduler_calls, a_barrier_makes_the_next_kernel_fork_again) {
  recording_backend gpu;
  scheduler s(gpu, {32, 4});
  ASSERT_EQ(s.launch(vs, rw(0, 10), kernel(0)), 0);
  const std::size_t records_before = gpu.count("record");
  s.barrier(vs);
  ASSERT_EQ(s.launch(vs, rw(1000, 10), kernel(1)), 0);
  // One record for the new fork on the app stream, one for the kernel.
  EXPECT_EQ(gpu.count("record"), records_before + 2);
  const auto calls = calls_after_launch(gpu, 0);
  bool fork_on_app = false;
  for (std::size_t i = 0; i < gpu.calls.size(); ++i)
    if (i > records_before && gpu.calls[i].what == "record" && gpu.calls[i].b == app) fork_on_app = true;
  EXPECT_TRUE(fork_on_app);
  EXPECT_EQ(s.in_flight(), 1u);  // the barrier covered the first kernel
  (void)calls;
}

TEST(scheduler_calls, a_failed_launch_returns_its_error_and_is_not_joined) {
  recording_backend gpu;
  scheduler s(gpu, {32, 4});
  gpu.fail_launch = 9;
  EXPECT_EQ(s.launch(vs, rw(0, 10), kernel(0)), 9);
  EXPECT_EQ(s.in_flight(), 0u);
  EXPECT_EQ(s.stats().launch_errors, 1u);
  EXPECT_EQ(gpu.calls.back().what, "launch");
}

TEST(scheduler_calls, a_full_window_folds_and_keeps_the_dependency) {
  recording_backend gpu;
  scheduler s(gpu, {2, 4});
  ASSERT_EQ(s.launch(vs, rw(0, 10), kernel(0)), 0);     // A
  ASSERT_EQ(s.launch(vs, rw(100, 10), kernel(1)), 0);   // B
  ASSERT_EQ(s.launch(vs, rw(200, 10), kernel(2)), 0);   // C: window full, A folded
  ASSERT_EQ(s.launch(vs, rw(300, 10), kernel(3)), 0);   // D: B folded
  EXPECT_EQ(s.stats().folds, 2u);
  EXPECT_EQ(gpu.count("query"), 2u);  // the oldest is asked once before it is folded
  // E reads A's range: A is folded; E must still come after A.
  ASSERT_EQ(s.launch(vs, rd(0, 10), kernel(4)), 0);
  const stream_handle a_stream = gpu.launch_stream(0);
  const stream_handle e_stream = gpu.launch_stream(4);
  if (e_stream != a_stream) {
    bool waited = false;
    for (const recorded_call& c : gpu.calls)
      if (c.what == "wait" && c.a == e_stream) waited = true;
    EXPECT_TRUE(waited) << "a folded producer was lost";
  }
  EXPECT_EQ(s.stats().independent, 4u);
}

TEST(scheduler_calls, legacy_work_after_blocking_work_forks_again) {
  recording_backend gpu;
  scheduler s(gpu, {32, 4});
  const virtual_stream blocking{10, 10, stream_kind::blocking};
  const virtual_stream legacy{1, 1, stream_kind::legacy};
  const virtual_stream free_stream{20, 20, stream_kind::non_blocking};
  ASSERT_EQ(s.launch(legacy, rw(0, 10), kernel(0)), 0);
  auto legacy_forks = [&] {
    std::size_t n = 0;
    for (const recorded_call& c : gpu.calls) n += c.what == "record" && c.b == legacy.handle;
    return n;
  };
  ASSERT_EQ(legacy_forks(), 1u);
  ASSERT_EQ(s.launch(free_stream, rw(100, 10), kernel(1)), 0);  // non-blocking: no coupling
  ASSERT_EQ(s.launch(legacy, rw(200, 10), kernel(2)), 0);
  EXPECT_EQ(legacy_forks(), 1u);
  ASSERT_EQ(s.launch(blocking, rw(300, 10), kernel(3)), 0);
  const stream_handle blocking_pool = gpu.launch_stream(3);
  const std::size_t from = gpu.calls.size();
  ASSERT_EQ(s.launch(legacy, rw(400, 10), kernel(4)), 0);       // must fork again on legacy
  EXPECT_EQ(legacy_forks(), 2u);
  // ... after waiting for the blocking stream's kernel, as the legacy stream would.
  event_handle blocking_done = 0;
  bool waited_before_fork = false;
  for (std::size_t i = from; i < gpu.calls.size(); ++i) {
    const recorded_call& c = gpu.calls[i];
    if (c.what == "record" && c.b == blocking_pool) blocking_done = c.a;
    if (c.what == "wait" && c.a == legacy.handle && c.b == blocking_done && blocking_done != 0) waited_before_fork = true;
    if (c.what == "record" && c.b == legacy.handle) break;
  }
  EXPECT_TRUE(waited_before_fork);
}

TEST(scheduler_calls, scope_groups_stay_in_order_even_when_read_only) {
  recording_backend gpu;
  scheduler s(gpu, {32, 4});
  ASSERT_EQ(s.launch(vs, rd(0, 10), kernel(0), 5), 0);
  ASSERT_EQ(s.launch(vs, rd(0, 10), kernel(1), 5), 0);
  EXPECT_EQ(gpu.launch_stream(1), gpu.launch_stream(0));
  ASSERT_EQ(s.launch(vs, rd(0, 10), kernel(2), 0), 0);
  EXPECT_NE(gpu.launch_stream(2), gpu.launch_stream(0));
}

TEST(scheduler_calls, a_full_window_retires_the_oldest_once_it_is_complete) {
  recording_backend gpu;
  scheduler s(gpu, {2, 4});
  ASSERT_EQ(s.launch(vs, rw(0, 10), kernel(0)), 0);
  ASSERT_EQ(s.launch(vs, rw(100, 10), kernel(1)), 0);
  // Events are created in the order they are needed: the fork's, then each kernel's.
  const event_handle kernel0_done = 5002;
  gpu.complete.push_back(kernel0_done);
  ASSERT_EQ(s.launch(vs, rw(200, 10), kernel(2)), 0);
  EXPECT_EQ(s.stats().folds, 0u);
  EXPECT_EQ(s.in_flight(), 2u);
  // Kernel 0 retired: reading its output now needs no wait at all.
  const std::uint64_t waits = s.stats().dependency_waits;
  ASSERT_EQ(s.launch(vs, rd(0, 10), kernel(3)), 0);
  EXPECT_EQ(s.stats().dependency_waits, waits);
}

// A chain whose links also read something of their own (no link shadows the
// previous one): every link on one pool stream, each recorded behind its kernel.
access_set link(int i) {
  access_set a = rw(0, 10);
  a.read(1000 * static_cast<address>(i + 1), 10);
  return a;
}

TEST(scheduler_calls, a_caught_up_stream_retires_all_but_its_newest_entry_with_one_query) {
  recording_backend gpu;
  scheduler s(gpu, {8, 4});
  for (int i = 0; i < 8; ++i) ASSERT_EQ(s.launch(vs, link(i), kernel(i)), 0);
  EXPECT_EQ(s.in_flight(), 8u);
  gpu.all_complete = true;  // the GPU has caught up
  const std::size_t queries = gpu.count("query");
  ASSERT_EQ(s.launch(vs, link(8), kernel(8)), 0);
  EXPECT_EQ(gpu.count("query"), queries + 1);  // the second-newest only
  EXPECT_EQ(s.in_flight(), 2u);                // seven retired; the newest and the new one remain
  EXPECT_EQ(s.stats().folds, 0u);
}

TEST(scheduler_calls, a_running_newest_entry_keeps_the_rest_of_its_stream) {
  recording_backend gpu;
  scheduler s(gpu, {4, 4});
  for (int i = 0; i < 4; ++i) ASSERT_EQ(s.launch(vs, link(i), kernel(i)), 0);
  std::vector<event_handle> done;  // recorded before the next link: kernels 0..2
  for (const recorded_call& c : gpu.calls)
    if (c.what == "record" && c.b != app) done.push_back(c.a);
  ASSERT_EQ(done.size(), 3u);
  gpu.complete = {done[0]};  // only the oldest finished
  ASSERT_EQ(s.launch(vs, link(4), kernel(4)), 0);
  EXPECT_EQ(s.in_flight(), 4u);  // one retired, three still running, one new
}

TEST(scheduler_calls, host_sync_empties_the_window) {
  recording_backend gpu;
  scheduler s(gpu, {32, 4});
  ASSERT_EQ(s.launch(vs, rw(0, 10), kernel(0)), 0);
  ASSERT_EQ(s.launch(vs, rw(100, 10), kernel(1)), 0);
  EXPECT_EQ(s.in_flight(), 2u);
  s.synchronized(vs.key, s.sync_point());
  EXPECT_EQ(s.in_flight(), 0u);
  ASSERT_EQ(s.launch(vs, rw(200, 10), kernel(2)), 0);
  s.device_synchronized(s.sync_point());
  EXPECT_EQ(s.in_flight(), 0u);
}

TEST(scheduler_calls, a_sync_forgets_only_what_was_launched_before_it_began) {
  recording_backend gpu;
  scheduler s(gpu, {32, 4});
  ASSERT_EQ(s.launch(vs, rw(0, 10), kernel(0)), 0);
  const std::uint64_t point = s.sync_point();  // the sync begins
  ASSERT_EQ(s.launch(vs, rw(100, 10), kernel(1)), 0);  // another thread launches meanwhile
  s.synchronized(vs.key, point);                  // the sync returns
  EXPECT_EQ(s.in_flight(), 1u);
  s.device_synchronized(point);
  EXPECT_EQ(s.in_flight(), 1u);
  s.device_synchronized(s.sync_point());
  EXPECT_EQ(s.in_flight(), 0u);
}

TEST(scheduler_calls, a_chain_keeps_one_dependency_per_pool_stream) {
  recording_backend gpu;
  scheduler s(gpu, {32, 4});
  ASSERT_EQ(s.launch(vs, rw(0, 10), kernel(0)), 0);
  for (int i = 1; i < 20; ++i) ASSERT_EQ(s.launch(vs, rw(0, 10), kernel(i)), 0);
  // Every link follows its producer on the same stream: no event waits at all.
  EXPECT_EQ(s.stats().dependency_waits, 0u);
  EXPECT_EQ(s.stats().same_stream, 19u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(gpu.launch_stream(static_cast<std::size_t>(i)), gpu.launch_stream(0));
}

}  // namespace
}  // namespace acs
