// The runtime side of dispatch.hpp on a simulated CUDA driver (a fake table of
// driver functions): stream resolution, the default streams, capture, foreign
// contexts, barriers, syncs and stream-handle reuse. The fake records every
// call; tests check what reached it. The scheduler's own rules are proven in
// tests/sim; here the point is that the runtime feeds it correctly.
#include <gtest/gtest.h>

#include <cuda.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <new>
#include <set>
#include <thread>
#include <vector>

#include "annotations/inferred/allocation_map.hpp"
#include "src/runtime/dispatch.hpp"
#include "src/runtime/background.hpp"
#include "src/runtime/capture.hpp"
#include "src/runtime/driver_inference.hpp"
#include "src/runtime/devices.hpp"
#include "src/runtime/launch_conditions.hpp"
#include "interpose/real_driver.hpp"
#include "src/runtime/streams.hpp"
#include "src/support/stats.hpp"
#include "runtime_fake_driver.hpp"

namespace acs {
namespace {

using namespace runtime_fake;  // NOLINT: the fake driver and its fixture

TEST_F(dispatch_test, launch_runs_on_a_pool_stream_and_the_application_stream_joins_it) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  const std::size_t from = mark();
  const CUstream p = launch(s, make_kernel(), make_allocation(), make_allocation());
  EXPECT_EQ(last_status, 0);
  EXPECT_NE(p, s);
  EXPECT_TRUE(is_pool(p));
  EXPECT_FALSE(joins(from, p, s)) << "the join is lazy: not at the launch";
  (void)stream_sync_begins(s, default_stream::legacy);  // cudaStreamSynchronize / cudaStreamQuery
  EXPECT_TRUE(joins(from, p, s));
  ASSERT_NE(runtime_of(ctx), nullptr);
  EXPECT_EQ(runtime_of(ctx)->sched.in_flight(), 1u);
}

// docs/design.md rule 12: the priority of a created stream, read from the driver, is the
// priority of the pool streams its kernels run on; the default streams have the default one.
TEST_F(dispatch_test, stream_priority_of_the_application_stream_is_its_pool_streams) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream urgent = make_stream(ctx);
  {
    std::lock_guard lock(fake().mutex);
    fake().priorities[urgent] = -2;
  }
  const auto priority_of = [](CUstream p) {
    std::lock_guard lock(fake().mutex);
    const auto it = fake().priorities.find(p);
    return it == fake().priorities.end() ? 0 : it->second;
  };
  const CUstream p = launch(urgent, make_kernel(), make_allocation(), make_allocation());
  ASSERT_TRUE(is_pool(p));
  EXPECT_EQ(priority_of(p), -2);
  const CUstream q = launch(nullptr, make_kernel(), make_allocation(), make_allocation());  // the legacy stream
  ASSERT_TRUE(is_pool(q));
  EXPECT_EQ(priority_of(q), 0);
}

TEST_F(dispatch_test, pool_streams_live_in_the_primary_context_even_from_another_current_one) {
  const CUcontext ctx = make_device();
  make_current(make_foreign_context(ctx));  // another context is current on this thread
  const CUstream s = make_stream(ctx);
  const CUstream p = launch(s, make_kernel(), make_allocation(), make_allocation());
  ASSERT_TRUE(is_pool(p));
  std::lock_guard lock(fake().mutex);
  EXPECT_EQ(fake().streams[p].first, ctx);
  EXPECT_EQ(fake().streams[p].second, static_cast<unsigned>(CU_STREAM_NON_BLOCKING));
}

TEST_F(dispatch_test, launch_status_reaches_the_application_unchanged) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  launch(s, make_kernel(), make_allocation(), make_allocation(), default_stream::legacy, 98);
  EXPECT_EQ(last_status, 98);
}

TEST_F(dispatch_test, stream_zero_is_the_legacy_or_the_per_thread_stream) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUfunction f = make_kernel();
  std::size_t from = mark();
  CUstream p = launch(nullptr, f, make_allocation(), make_allocation(), default_stream::legacy);
  EXPECT_TRUE(is_pool(p));
  stream_work_begins(nullptr, default_stream::legacy);  // e.g. cudaMemcpyAsync(..., 0)
  EXPECT_TRUE(joins(from, p, CU_STREAM_LEGACY));
  stream_barrier(nullptr, default_stream::legacy);
  from = mark();
  p = launch(nullptr, f, make_allocation(), make_allocation(), default_stream::per_thread);
  EXPECT_TRUE(is_pool(p));
  stream_work_begins(nullptr, default_stream::per_thread);
  EXPECT_TRUE(joins(from, p, CU_STREAM_PER_THREAD));
  stream_barrier(nullptr, default_stream::per_thread);
}

// The legacy stream synchronises implicitly with blocking streams (rule 4), and pool streams do
// not: acs must know which stream is which. Resolved as non-blocking, the legacy stream's pool
// kernels would not be waited for by a blocking stream's work, nor the other way round.
class runtime_streams : public dispatch_test {};

TEST_F(runtime_streams, blocking_stream_work_waits_for_the_legacy_streams_pool_kernels) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream blocking = make_stream(ctx, CU_STREAM_DEFAULT);
  const std::size_t from = mark();
  const CUstream p = launch(nullptr, make_kernel(), make_allocation(), make_allocation(), default_stream::legacy);
  ASSERT_TRUE(is_pool(p));
  stream_work_begins(blocking, default_stream::legacy);  // e.g. cudaMemcpyAsync(..., blocking)
  EXPECT_TRUE(joins(from, p, blocking)) << "the legacy stream was not resolved as the legacy stream";
  stream_barrier(blocking, default_stream::legacy);
}

TEST_F(runtime_streams, legacy_stream_work_waits_for_blocking_streams_pool_kernels) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream blocking = make_stream(ctx, CU_STREAM_DEFAULT);
  std::size_t from = mark();
  const CUstream p = launch(blocking, make_kernel(), make_allocation(), make_allocation());
  ASSERT_TRUE(is_pool(p));
  stream_work_begins(nullptr, default_stream::legacy);
  EXPECT_TRUE(joins(from, p, CU_STREAM_LEGACY));
  stream_barrier(nullptr, default_stream::legacy);
  // The per-thread default stream is blocking too.
  from = mark();
  const CUstream q = launch(nullptr, make_kernel(), make_allocation(), make_allocation(), default_stream::per_thread);
  ASSERT_TRUE(is_pool(q));
  stream_work_begins(nullptr, default_stream::legacy);
  EXPECT_TRUE(joins(from, q, CU_STREAM_LEGACY));
  stream_barrier(nullptr, default_stream::legacy);
}

TEST_F(runtime_streams, non_blocking_stream_work_does_not_wait_for_the_legacy_stream) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream free_stream = make_stream(ctx, CU_STREAM_NON_BLOCKING);
  const std::size_t from = mark();
  const CUstream p = launch(nullptr, make_kernel(), make_allocation(), make_allocation(), default_stream::legacy);
  ASSERT_TRUE(is_pool(p));
  stream_work_begins(free_stream, default_stream::legacy);
  EXPECT_FALSE(joins(from, p, free_stream));
  stream_barrier(free_stream, default_stream::legacy);
}

TEST_F(dispatch_test, per_thread_stream_keys_differ_between_threads_and_from_handles) {
  const std::uintptr_t mine = per_thread_stream_key();
  std::uintptr_t other = 0;
  std::thread([&] { other = per_thread_stream_key(); }).join();
  EXPECT_NE(mine, other);
  EXPECT_EQ(mine % 4, 3u);
  EXPECT_EQ(other % 4, 3u);
  EXPECT_EQ(per_thread_stream_key(), mine);
}

TEST_F(dispatch_test, dependent_kernels_are_ordered_independent_ones_are_not) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  const CUfunction f = make_kernel();
  const address a = make_allocation(), b = make_allocation(), x = make_allocation(), y = make_allocation();
  const std::size_t from = mark();
  const CUstream p1 = launch(s, f, a, b);
  const CUstream p2 = launch(s, f, x, y);  // touches nothing of the first
  const CUstream p3 = launch(s, f, b, x);  // depends on both
  EXPECT_NE(p1, p2);
  // The third follows both: on one's stream and after an event of the other.
  const auto cs = calls_since(from);
  const CUstream other = p3 == p1 ? p2 : p1;
  EXPECT_TRUE(p3 == p1 || p3 == p2);
  std::set<CUevent> recorded_on_other;
  bool waited = false;
  for (const call& c : cs) {
    if (c.what == call::record && c.stream == other) recorded_on_other.insert(c.event);
    if (c.what == call::wait && c.stream == p3 && recorded_on_other.count(c.event)) waited = true;
    if (c.what == call::launch && c.stream == p3 && waited) break;
  }
  EXPECT_TRUE(waited);
}

// True when a launch on `later` (after `from`) is ordered after kernel work already on `earlier`.
bool ordered_after(const std::vector<call>& cs, CUstream earlier, CUstream later) {
  if (earlier == later) return true;  // stream order
  std::set<CUevent> on_earlier;
  for (const call& c : cs) {
    if (c.what == call::record && c.stream == earlier) on_earlier.insert(c.event);
    if (c.what == call::wait && c.stream == later && on_earlier.count(c.event)) return true;
    if (c.what == call::launch && c.stream == later) return false;
  }
  return false;
}

TEST_F(dispatch_test, kernel_with_unreadable_layout_waits_for_everything_before_it) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  const std::size_t from = mark();
  const CUstream p1 = launch(s, make_kernel(), make_allocation(), make_allocation());
  const CUfunction unknown = unknown_handle<CUfunction>();  // no layout in the fake
  const CUstream p2 = launch(s, unknown, make_allocation(), make_allocation());
  EXPECT_TRUE(ordered_after(calls_since(from), p1, p2));
  EXPECT_EQ(inference::layout_of(unknown), nullptr);
}

// A kernel whose code acs cannot read (SASS only, as cuBLAS's) may reach memory through
// device-side pointer arrays that no argument shows: by default it waits for every kernel before
// it (ACS_NO_PTX=everything, docs/design.md section 4).
TEST_F(dispatch_test, pointer_table_a_kernel_without_readable_code_waits_for_unrelated_kernels) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  const CUfunction f = make_kernel(), sass = make_kernel();
  {
    std::lock_guard lock(fake().mutex);
    fake().sass_only.insert(sass);
  }
  const std::size_t from = mark();
  const CUstream p1 = launch(s, f, make_allocation(), make_allocation());
  const CUstream p2 = launch(s, sass, make_allocation(), make_allocation());
  EXPECT_TRUE(ordered_after(calls_since(from), p1, p2));
}

// Two chunks mapped into one reservation are one allocation (docs/design.md rule 10): kernels on
// either side of the seam are ordered.
TEST_F(dispatch_test, vmm_reservation_kernels_on_either_side_of_a_seam_are_ordered) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  const CUfunction f = make_kernel();
  constexpr address base = 0x7d00'0000'0000;
  constexpr std::size_t chunk = 2 << 20;
  memory_reserved(base, 2 * chunk);
  memory_allocated(base, chunk);  // cuMemMap, twice
  memory_allocated(base + chunk, chunk);
  const std::size_t from = mark();
  const CUstream p1 = launch(s, f, base + chunk - 64, make_allocation());
  const CUstream p2 = launch(s, f, base + chunk + 64, make_allocation());
  EXPECT_TRUE(ordered_after(calls_since(from), p1, p2));
  memory_freed(base);  // cuMemUnmap, twice: the reservation stays
  memory_freed(base + chunk);
  EXPECT_TRUE(device_allocations().find(base + chunk).has_value());
  reservation_freed(base);
  EXPECT_FALSE(device_allocations().find(base + chunk).has_value());
}

// Kernels on pinned host memory keep their order among themselves (ACS_HOST_MAPPED=ordered,
// docs/design.md rule 11): the host may poll a flag that the second sets after the first's results.
TEST_F(dispatch_test, host_mapped_kernels_on_pinned_host_memory_keep_their_order) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  const CUfunction f = make_kernel();
  constexpr address results = 0x7d80'0000'0000, flag = 0x7d80'0010'0000;
  memory_allocated(results, 4096, memory_kind::host);
  memory_allocated(flag, 4096, memory_kind::host);
  const std::size_t from = mark();
  const CUstream p1 = launch(s, f, results, make_allocation());
  const CUstream p2 = launch(s, f, flag, make_allocation());
  EXPECT_TRUE(ordered_after(calls_since(from), p1, p2));
  memory_freed(results);
  memory_freed(flag);
}

TEST_F(dispatch_test, kernels_on_unrelated_allocations_are_not_ordered) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  const CUfunction f = make_kernel();
  const std::size_t from = mark();
  const CUstream p1 = launch(s, f, make_allocation(), make_allocation());
  const CUstream p2 = launch(s, f, make_allocation(), make_allocation());
  EXPECT_FALSE(ordered_after(calls_since(from), p1, p2));
}

TEST_F(dispatch_test, capturing_stream_passes_through_untouched) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  // Unjoined work from before the capture: joined when it begins, not during it.
  std::size_t from = mark();
  const CUstream before = launch(s, make_kernel(), make_allocation(), make_allocation());
  ASSERT_TRUE(is_pool(before));
  (void)stream_sync_begins(s, default_stream::legacy);  // what the capture-begin hook does first
  EXPECT_TRUE(joins(from, before, s));
  capture_began(s, CU_STREAM_CAPTURE_MODE_RELAXED);
  {
    std::lock_guard lock(fake().mutex);
    fake().capturing.insert(s);
  }
  from = mark();
  const CUstream p = launch(s, make_kernel(), make_allocation(), make_allocation());
  EXPECT_EQ(p, s);
  stream_work_begins(s, default_stream::legacy);  // a barrier operation inside the capture
  stream_barrier(s, default_stream::legacy);
  (void)stream_sync_begins(s, default_stream::legacy);
  for (const call& c : calls_since(from)) {
    if (c.what == call::launch) continue;  // the application's own launch
    EXPECT_NE(c.stream, s) << "no acs call may touch a capturing stream";
  }
  capture_ended(s);
  std::lock_guard lock(fake().mutex);
  fake().capturing.erase(s);
}

TEST_F(dispatch_test, global_capture_on_another_thread_passes_every_launch_through) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx), captured = make_stream(ctx);
  const CUfunction f = make_kernel();
  std::thread([&] { capture_began(captured, CU_STREAM_CAPTURE_MODE_GLOBAL); }).join();
  EXPECT_TRUE(capture_forbids_unsafe_calls());
  EXPECT_EQ(launch(s, f, make_allocation(), make_allocation()), s);
  std::thread([&] { capture_ended(captured); }).join();
  EXPECT_FALSE(capture_forbids_unsafe_calls());
  EXPECT_TRUE(is_pool(launch(s, f, make_allocation(), make_allocation())));
}

// A thread already inside the scheduler when a global capture begins elsewhere:
// capture_began returns only once it has left.
TEST_F(dispatch_test, global_capture_begin_waits_for_threads_inside_the_scheduler) {
  const CUstream captured = unknown_handle<CUstream>();
  std::atomic<bool> inside{false}, left{false};
  std::thread worker([&] {
    const unsafe_section section;
    EXPECT_TRUE(section.allowed());
    inside = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    left = true;
  });
  while (!inside) std::this_thread::yield();
  capture_began(captured, CU_STREAM_CAPTURE_MODE_GLOBAL);
  EXPECT_TRUE(left.load());
  worker.join();
  {
    const unsafe_section section;
    EXPECT_FALSE(section.allowed());
  }
  capture_ended(captured);
  const unsafe_section section;
  EXPECT_TRUE(section.allowed());
}

TEST_F(dispatch_test, relaxed_capture_forbids_nothing) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx), captured = make_stream(ctx);
  capture_began(captured, CU_STREAM_CAPTURE_MODE_RELAXED);
  EXPECT_FALSE(capture_forbids_unsafe_calls());
  EXPECT_TRUE(is_pool(launch(s, make_kernel(), make_allocation(), make_allocation())));
  capture_ended(captured);
}

TEST_F(dispatch_test, thread_local_capture_forbids_unsafe_calls_on_its_thread_only) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx), captured = make_stream(ctx);
  const CUfunction f = make_kernel();
  capture_began(captured, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
  EXPECT_TRUE(capture_forbids_unsafe_calls());
  EXPECT_EQ(launch(s, f, make_allocation(), make_allocation()), s);
  bool other_thread_forbidden = true;
  std::thread([&] { other_thread_forbidden = capture_forbids_unsafe_calls(); }).join();
  EXPECT_FALSE(other_thread_forbidden);
  capture_ended(captured);
  EXPECT_FALSE(capture_forbids_unsafe_calls());
  EXPECT_TRUE(is_pool(launch(s, f, make_allocation(), make_allocation())));
}

TEST_F(dispatch_test, foreign_context_passes_through_and_gets_no_pool) {
  const CUcontext primary = make_device();
  const CUcontext foreign = make_foreign_context(primary);
  make_current(foreign);
  const CUstream s = make_stream(foreign);
  EXPECT_EQ(launch(s, make_kernel(), make_allocation(), make_allocation()), s);
  EXPECT_EQ(launch(nullptr, make_kernel(), make_allocation(), make_allocation()), nullptr);
  EXPECT_EQ(runtime_of(foreign), nullptr);
}

TEST_F(dispatch_test, no_current_context_passes_the_default_stream_through) {
  make_current(nullptr);
  EXPECT_EQ(launch(nullptr, make_kernel(), make_allocation(), make_allocation()), nullptr);
}

TEST_F(dispatch_test, unknown_function_passes_through) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  EXPECT_EQ(launch(s, nullptr, make_allocation(), make_allocation()), s);
}

TEST_F(dispatch_test, invalid_stream_passes_through_for_the_driver_to_reject) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream bogus = unknown_handle<CUstream>();
  EXPECT_EQ(launch(bogus, make_kernel(), make_allocation(), make_allocation(), default_stream::legacy, 400),
            bogus);
  EXPECT_EQ(last_status, 400);
}

TEST_F(dispatch_test, a_launch_passed_through_is_a_barrier_for_later_ones) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  const CUfunction f = make_kernel();
  launch(s, f, make_allocation(), make_allocation());
  EXPECT_EQ(launch(s, nullptr, 0, 0), s);  // passed through
  const std::size_t from = mark();
  const CUstream p = launch(s, f, make_allocation(), make_allocation());  // independent
  ASSERT_TRUE(is_pool(p));
  // It must start after the direct launch: an event recorded on s after it, waited by p.
  std::set<CUevent> forks;
  bool ordered = false;
  for (const call& c : calls_since(from)) {
    if (c.what == call::record && c.stream == s) forks.insert(c.event);
    if (c.what == call::wait && c.stream == p && forks.count(c.event)) ordered = true;
    if (c.what == call::launch) break;
  }
  EXPECT_TRUE(ordered);
}

TEST_F(dispatch_test, stream_barrier_makes_the_next_launch_fork_after_it) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  const CUfunction f = make_kernel();
  launch(s, f, make_allocation(), make_allocation());
  stream_barrier(s, default_stream::legacy);
  const std::size_t from = mark();
  const CUstream p = launch(s, f, make_allocation(), make_allocation());
  std::set<CUevent> forks;
  bool ordered = false;
  for (const call& c : calls_since(from)) {
    if (c.what == call::record && c.stream == s) forks.insert(c.event);
    if (c.what == call::wait && c.stream == p && forks.count(c.event)) ordered = true;
    if (c.what == call::launch) break;
  }
  EXPECT_TRUE(ordered);
}

TEST_F(dispatch_test, per_thread_stream_is_forgotten_when_its_thread_exits) {
  const CUcontext ctx = make_device();
  const CUfunction f = make_kernel();
  std::thread([&] {
    make_current(ctx);
    EXPECT_TRUE(is_pool(launch(nullptr, f, make_allocation(), make_allocation(), default_stream::per_thread)));
    EXPECT_EQ(runtime_of(ctx)->sched.in_flight(), 1u);
  }).join();
  EXPECT_EQ(runtime_of(ctx)->sched.in_flight(), 0u);
}

TEST_F(dispatch_test, device_synchronize_clears_the_current_device_only) {
  const CUcontext d0 = make_device(), d1 = make_device();
  const CUfunction f = make_kernel();
  make_current(d1);
  launch(make_stream(d1), f, make_allocation(), make_allocation());
  make_current(d0);
  launch(make_stream(d0), f, make_allocation(), make_allocation());
  ASSERT_EQ(runtime_of(d0)->sched.in_flight(), 1u);
  ASSERT_EQ(runtime_of(d1)->sched.in_flight(), 1u);
  device_synchronized(device_sync_begins());
  EXPECT_EQ(runtime_of(d0)->sched.in_flight(), 0u);
  EXPECT_EQ(runtime_of(d1)->sched.in_flight(), 1u);
}

TEST_F(dispatch_test, stream_synchronize_clears_that_stream_only) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s1 = make_stream(ctx), s2 = make_stream(ctx);
  const CUfunction f = make_kernel();
  launch(s1, f, make_allocation(), make_allocation());
  launch(s2, f, make_allocation(), make_allocation());
  ASSERT_EQ(runtime_of(ctx)->sched.in_flight(), 2u);
  stream_synchronized(s1, default_stream::legacy, stream_sync_begins(s1, default_stream::legacy));
  EXPECT_EQ(runtime_of(ctx)->sched.in_flight(), 1u);
}

TEST_F(dispatch_test, destroyed_stream_handle_reused_in_a_foreign_context_is_seen_afresh) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  const CUfunction f = make_kernel();
  EXPECT_TRUE(is_pool(launch(s, f, make_allocation(), make_allocation())));
  {
    std::lock_guard lock(fake().mutex);
    fake().streams.erase(s);
  }
  stream_destroyed(s);
  EXPECT_EQ(runtime_of(ctx)->sched.in_flight(), 0u);
  // The driver hands the same handle out again, for a stream of a foreign context.
  const CUcontext foreign = make_foreign_context(ctx);
  {
    std::lock_guard lock(fake().mutex);
    fake().streams[s] = {foreign, CU_STREAM_NON_BLOCKING};
  }
  make_current(foreign);
  EXPECT_EQ(launch(s, f, make_allocation(), make_allocation()), s);
}

TEST_F(dispatch_test, destroyed_context_handle_reused_gets_a_new_scheduler) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  const CUfunction f = make_kernel();
  EXPECT_TRUE(is_pool(launch(s, f, make_allocation(), make_allocation())));
  device_runtime* before = runtime_of(ctx);
  context_destroyed(ctx);  // cudaDeviceReset: same primary handle comes back
  EXPECT_TRUE(before->broken.load());
  const CUstream p = launch(s, f, make_allocation(), make_allocation());
  EXPECT_TRUE(is_pool(p));
  EXPECT_NE(runtime_of(ctx), before);
}

// acs's own bookkeeping fails (an exception inside the scheduler): the device is marked broken and
// takes no new kernel. With the lazy join, kernels already on pool streams are not yet part of
// their streams: the failed launch, later work and syncs of those streams must still wait for them.
class runtime_broken_device : public dispatch_test {
 protected:
  // Launches on `s` while acs's next event creation throws; returns the stream it ran on.
  CUstream launch_while_bookkeeping_fails(CUstream s) {
    {
      std::lock_guard lock(fake().mutex);
      fake().throw_at_event_create = 1;
    }
    const CUstream on = launch(s, make_kernel(), make_allocation(), make_allocation());
    std::lock_guard lock(fake().mutex);
    EXPECT_EQ(fake().throw_at_event_create, 0) << "the failure was not reached";
    fake().throw_at_event_create = 0;
    return on;
  }
};

TEST_F(runtime_broken_device, the_failed_launch_runs_after_its_streams_pool_kernels) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  const std::size_t from = mark();
  const CUstream p = launch(s, make_kernel(), make_allocation(), make_allocation());
  ASSERT_TRUE(is_pool(p));
  EXPECT_EQ(launch_while_bookkeeping_fails(s), s) << "the launch passes through on its own stream";
  ASSERT_TRUE(runtime_of(ctx)->broken.load());
  // s waited for an event recorded on p after the pool kernel, before the direct launch on s.
  std::set<CUevent> after_kernel;
  bool launched = false, waited = false;
  for (const call& c : calls_since(from)) {
    if (c.what == call::launch && c.stream == p) launched = true;
    if (launched && c.what == call::record && c.stream == p) after_kernel.insert(c.event);
    if (c.what == call::wait && c.stream == s && after_kernel.count(c.event)) waited = true;
    if (c.what == call::launch && c.stream == s) break;
  }
  EXPECT_TRUE(waited) << "the direct launch overtook the stream's pool kernel";
}

TEST_F(runtime_broken_device, a_later_sync_of_another_stream_still_waits_for_its_pool_kernels) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s1 = make_stream(ctx), s2 = make_stream(ctx);
  const std::size_t from = mark();
  const CUstream p = launch(s1, make_kernel(), make_allocation(), make_allocation());
  ASSERT_TRUE(is_pool(p));
  EXPECT_EQ(launch_while_bookkeeping_fails(s2), s2);
  ASSERT_TRUE(runtime_of(ctx)->broken.load());
  EXPECT_FALSE(joins(from, p, s1));
  (void)stream_sync_begins(s1, default_stream::legacy);  // cudaStreamSynchronize(s1)
  EXPECT_TRUE(joins(from, p, s1)) << "s1's sync would return before its kernel finished";
  // Work issued on it is ordered after it too, and later launches pass through.
  const CUstream q = launch(s1, make_kernel(), make_allocation(), make_allocation());
  EXPECT_EQ(q, s1);
}

// Which launches the CUDA backend hands to the issuing threads (docs/design.md rule 6): only a
// kind that succeeded, from the backend's context, since the conditions last changed, and none
// after a context failure. The backend is driven directly, with the fake driver and a
// cuLaunchKernel for the copies it detaches.
class runtime_deferred_error : public dispatch_test {
 protected:
  void SetUp() override {
    dispatch_test::SetUp();
    table_ = fake_table();
    table_.cuLaunchKernel_ = [](CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                CUstream, void**, void**) -> CUresult { return CUDA_SUCCESS; };
    ctx_ = make_device();
    make_current(ctx_);
    kernel_ = make_kernel();
  }
  void TearDown() override {
    launch_conditions::reset_for_testing();
    dispatch_test::TearDown();
  }

  // A launch of the kernel, made in place (the closure) with `status`.
  void launch_in_place(cuda_backend& b, int status) {
    app_launch l;
    l.status = status;
    launch_request r = request();
    pending_launch p{l.closure(), &r};
    EXPECT_EQ(b.launch(&p, 0), status);
  }
  // Whether the backend detaches the next launch of the kernel: hands it to an issuing thread.
  bool defers(cuda_backend& b) {
    app_launch l;
    launch_request r = request();
    pending_launch p{l.closure(), &r};
    const void* d = b.detach(&p);
    if (d != nullptr) {
      EXPECT_EQ(b.launch_detached(d, 0), 0);  // issues and frees the copy
    }
    return d != nullptr;
  }
  launch_request request() {
    launch_request r;
    r.function = kernel_;
    r.params = params_;
    r.shape = {{1, 1, 1}, {32, 1, 1}, 0, false};
    return r;
  }

  address x_ = make_allocation(), y_ = make_allocation();
  void* params_[2] = {&x_, &y_};
  driver::table table_{};
  CUcontext ctx_ = nullptr;
  CUfunction kernel_ = nullptr;
};

TEST_F(runtime_deferred_error, a_kind_is_deferred_only_once_it_succeeded) {
  cuda_backend b(table_, ctx_);
  EXPECT_FALSE(defers(b));
  launch_in_place(b, 98);
  EXPECT_FALSE(defers(b)) << "a kind that only failed is not known to succeed";
  launch_in_place(b, 0);
  EXPECT_TRUE(defers(b));
  make_current(make_foreign_context(ctx_));
  EXPECT_FALSE(defers(b)) << "from another current context the launch is issued at once";
}

// Each launch that cannot be copied is counted with its reason (ACS_STATS: uncopied_*).
TEST_F(runtime_deferred_error, launches_not_copied_are_counted_by_reason) {
  cuda_backend b(table_, ctx_);
  std::atomic<bool>& counting = stats::detail::counting;
  const bool counted = counting.exchange(true);
  const stats::summary before = stats::collect();
  const auto copies = [&](auto&& change) {
    app_launch l;
    launch_request r = request();
    change(r);
    pending_launch p{l.closure(), &r};
    const void* d = b.detach(&p);
    if (d != nullptr) {
      EXPECT_EQ(b.launch_detached(d, 0), 0);
    }
    return d != nullptr;
  };
  const auto as_is = [](launch_request&) {};
  EXPECT_FALSE(copies(as_is));  // unproven
  launch_in_place(b, 0);
  void* extra[] = {nullptr};
  EXPECT_FALSE(copies([](launch_request& r) { r.shape.attributes = true; }));
  EXPECT_FALSE(copies([&](launch_request& r) { r.extra = extra; }));
  EXPECT_FALSE(copies([](launch_request& r) { r.shape.grid[1] = 1u << 20; }));  // y beyond 65535
  EXPECT_TRUE(copies(as_is));
  launch_conditions::change_begins();
  EXPECT_FALSE(copies(as_is));  // conditions
  launch_conditions::change_ends();
  EXPECT_FALSE(copies(as_is));  // unproven: the change forgot the success
  launch_in_place(b, 0);
  make_current(make_foreign_context(ctx_));
  EXPECT_FALSE(copies(as_is));  // context
  const stats::summary after = stats::collect();
  counting.store(counted);
  const auto n = [&](stats::uncopied why) {
    const auto i = static_cast<std::size_t>(why);
    return after.uncopied_launches[i] - before.uncopied_launches[i];
  };
  EXPECT_EQ(n(stats::uncopied::unproven), 2u);
  EXPECT_EQ(n(stats::uncopied::attributes), 1u);
  EXPECT_EQ(n(stats::uncopied::extra), 1u);
  EXPECT_EQ(n(stats::uncopied::grid), 1u);
  EXPECT_EQ(n(stats::uncopied::conditions), 1u);
  EXPECT_EQ(n(stats::uncopied::context), 1u);
  EXPECT_NE(stats::format_machine(after).find("uncopied_unproven="), std::string::npos);
}

TEST_F(runtime_deferred_error, a_change_of_the_conditions_forgets_earlier_successes) {
  cuda_backend b(table_, ctx_);
  launch_in_place(b, 0);
  EXPECT_TRUE(defers(b));
  launch_conditions::change_begins();  // cudaFuncSetAttribute...
  EXPECT_FALSE(defers(b)) << "nothing is deferred while the conditions change";
  launch_in_place(b, 0);
  launch_conditions::change_ends();
  EXPECT_FALSE(defers(b)) << "successes from before and during the change do not count";
  launch_in_place(b, 0);
  EXPECT_TRUE(defers(b)) << "a success after it does";
}

// set_function_attribute's real call: records that it ran and returns `status`.
struct attribute_call {
  int status = 0;
  int calls = 0;
  static int run(void* context) noexcept {
    auto& c = *static_cast<attribute_call*>(context);
    ++c.calls;
    return c.status;
  }
};

TEST_F(runtime_deferred_error, a_set_of_the_value_already_set_changes_nothing) {
  cuda_backend b(table_, ctx_);
  launch_conditions::forget_attribute_values();
  const void* f = reinterpret_cast<const void*>(0x77);
  constexpr int limit = 8;  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
  attribute_call c;
  EXPECT_EQ(launch_conditions::set_function_attribute(f, limit, 65536, attribute_call::run, &c), 0);
  launch_in_place(b, 0);
  ASSERT_TRUE(defers(b));
  const std::uint64_t generation = launch_conditions::generation();
  EXPECT_EQ(launch_conditions::set_function_attribute(f, limit, 65536, attribute_call::run, &c), 0);
  EXPECT_EQ(c.calls, 2) << "the real call is always made";
  EXPECT_EQ(launch_conditions::generation(), generation) << "the same value again: no change";
  EXPECT_TRUE(defers(b)) << "earlier successes still count";
  EXPECT_EQ(launch_conditions::set_function_attribute(f, limit, 32768, attribute_call::run, &c), 0);
  EXPECT_NE(launch_conditions::generation(), generation) << "another value: a change";
  EXPECT_FALSE(defers(b));
  launch_in_place(b, 0);
  EXPECT_TRUE(defers(b));
  // Another function, another attribute, an attribute not remembered, an unknown function: changes.
  for (const auto& [function, attribute] : {std::pair{reinterpret_cast<const void*>(0x78), limit},
                                            std::pair{f, 9}, std::pair{f, 14}, std::pair{f, 16},
                                            std::pair{static_cast<const void*>(nullptr), limit}}) {
    const std::uint64_t before = launch_conditions::generation();
    EXPECT_EQ(launch_conditions::set_function_attribute(function, attribute, 32768, attribute_call::run, &c), 0);
    EXPECT_NE(launch_conditions::generation(), before) << function << " attribute " << attribute;
  }
  // The cluster attributes (10-15) are remembered too: once known, a repeat of f's 14
  // (CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED) changes nothing, and 16, which CUDA 13 does
  // not define, is never remembered.
  for (const int attribute : {10, 14, 15, 16}) {
    EXPECT_EQ(launch_conditions::set_function_attribute(f, attribute, 1, attribute_call::run, &c), 0);
    const std::uint64_t before = launch_conditions::generation();
    EXPECT_EQ(launch_conditions::set_function_attribute(f, attribute, 1, attribute_call::run, &c), 0);
    EXPECT_EQ(launch_conditions::generation() == before, attribute != 16) << "attribute " << attribute << " set again";
  }
  // f's limit is 32768 and was remembered; an attribute not remembered (16) forgot it, as any call
  // acs cannot attribute would: the same value is a change again, then remembered.
  std::uint64_t before = launch_conditions::generation();
  EXPECT_EQ(launch_conditions::set_function_attribute(f, limit, 32768, attribute_call::run, &c), 0);
  EXPECT_NE(launch_conditions::generation(), before);
  before = launch_conditions::generation();
  EXPECT_EQ(launch_conditions::set_function_attribute(f, limit, 32768, attribute_call::run, &c), 0);
  EXPECT_EQ(launch_conditions::generation(), before);
  // Forgotten (code unloaded, a context torn down): a change again.
  launch_conditions::forget_attribute_values();
  EXPECT_EQ(launch_conditions::set_function_attribute(f, limit, 32768, attribute_call::run, &c), 0);
  EXPECT_NE(launch_conditions::generation(), before);
  // A failed set leaves the value unknown: the next set of that value is a change.
  attribute_call failing{1};
  before = launch_conditions::generation();
  EXPECT_EQ(launch_conditions::set_function_attribute(f, limit, 32768, attribute_call::run, &failing), 1);
  EXPECT_EQ(launch_conditions::generation(), before) << "the same value, whose call failed";
  EXPECT_EQ(launch_conditions::set_function_attribute(f, limit, 32768, attribute_call::run, &c), 0);
  EXPECT_NE(launch_conditions::generation(), before);
  launch_conditions::forget_attribute_values();
}

// An unload forgets the values remembered for what the unloaded code may hold, and only those
// (launch_conditions::unload_code): a kernel's of that library, a function's of that module (at a
// library's unload every function's: its modules are not listed), and any whose owner the driver
// cannot tell. The others stay remembered: their next set of the same value is no change.
namespace code_of {
// Kernels 0x100-0x1ff belong to library 0x10, 0x200-0x2ff to library 0x20, others are unknown;
// functions 0x300-0x3ff to module 0x30, 0x400-0x4ff to module 0x40.
bool library_of_kernel(const void* kernel, const void** library) noexcept {
  const auto k = reinterpret_cast<std::uintptr_t>(kernel);
  if (k < 0x100 || k >= 0x300) return false;
  *library = reinterpret_cast<const void*>(k < 0x200 ? 0x10 : 0x20);
  return true;
}
bool module_of_function(const void* function, const void** module) noexcept {
  const auto f = reinterpret_cast<std::uintptr_t>(function);
  if (f < 0x300 || f >= 0x500) return false;
  *module = reinterpret_cast<const void*>(f < 0x400 ? 0x30 : 0x40);
  return true;
}
constexpr launch_conditions::code_owners owners{library_of_kernel, module_of_function};
}  // namespace code_of

TEST_F(runtime_deferred_error, an_unload_forgets_only_the_values_of_the_code_it_unloads) {
  constexpr int limit = 8;  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
  attribute_call c;
  const auto changes = [&](std::uintptr_t what, int device) {
    const std::uint64_t before = launch_conditions::generation();
    EXPECT_EQ(launch_conditions::set_function_attribute(reinterpret_cast<const void*>(what), limit, 4096,
                                                         attribute_call::run, &c, device),
              0);
    return launch_conditions::generation() != before;
  };
  // Kernels of both libraries and an unknown one; functions of both modules and an unknown one.
  const std::pair<std::uintptr_t, int> kernels[] = {{0x110, 0}, {0x210, 0}, {0x90, 0}};
  const std::pair<std::uintptr_t, int> functions[] = {{0x310, -1}, {0x410, -1}, {0x510, -1}};
  const auto remember = [&](const auto& handles) {
    for (const auto& [what, device] : handles) {
      (void)changes(what, device);
      EXPECT_FALSE(changes(what, device)) << std::hex << what << " remembered";
    }
  };
  const auto unload = [&](std::uintptr_t handle, bool library) {
    attribute_call u;
    EXPECT_EQ(launch_conditions::unload_code(reinterpret_cast<const void*>(handle), library, attribute_call::run, &u,
                                             code_of::owners),
              0);
    EXPECT_EQ(u.calls, 1) << "the real unload is made once";
  };
  launch_conditions::forget_attribute_values();
  remember(kernels);
  unload(0x10, true);
  EXPECT_TRUE(changes(0x110, 0)) << "a kernel of the unloaded library: forgotten";
  EXPECT_FALSE(changes(0x210, 0)) << "a kernel of another library: still known";
  EXPECT_TRUE(changes(0x90, 0)) << "a kernel whose library is not known: forgotten";
  launch_conditions::forget_attribute_values();
  remember(functions);
  unload(0x30, false);
  EXPECT_TRUE(changes(0x310, -1)) << "a function of the unloaded module: forgotten";
  EXPECT_FALSE(changes(0x410, -1)) << "a function of another module: still known";
  EXPECT_TRUE(changes(0x510, -1)) << "a function whose module is not known: forgotten";
  (void)changes(0x310, -1);
  unload(0x10, true);
  EXPECT_TRUE(changes(0x310, -1)) << "at a library's unload every function's value is forgotten";
  EXPECT_TRUE(changes(0x410, -1));
  launch_conditions::forget_attribute_values();
  remember(kernels);
  unload(0x30, false);
  EXPECT_FALSE(changes(0x110, 0)) << "a module's unload leaves the library kernels' values";
  EXPECT_TRUE(changes(0x90, 0)) << "but not those whose library is not known";
  launch_conditions::forget_attribute_values();
}

// cuKernelSetAttribute: a CUkernel's value for one device. A repeat there is no change either; a
// change through a kernel forgets the values remembered through functions, and the other way
// round (a function's own set overrides its kernel's: one state, two names).
TEST_F(runtime_deferred_error, a_kernel_set_to_the_value_it_holds_changes_nothing_and_a_change_forgets_the_other_name) {
  launch_conditions::forget_attribute_values();
  const void* k = reinterpret_cast<const void*>(0x91);
  const void* f = reinterpret_cast<const void*>(0x92);
  constexpr int limit = 8;  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
  attribute_call c;
  const auto changes = [&](const void* what, int value, int device) {
    const std::uint64_t before = launch_conditions::generation();
    EXPECT_EQ(launch_conditions::set_function_attribute(what, limit, value, attribute_call::run, &c, device), 0);
    return launch_conditions::generation() != before;
  };
  EXPECT_TRUE(changes(k, 65536, 0)) << "first seen";
  EXPECT_FALSE(changes(k, 65536, 0)) << "the same kernel, device and value";
  EXPECT_TRUE(changes(k, 65536, 1)) << "another device holds its own value";
  EXPECT_FALSE(changes(k, 65536, 1));
  EXPECT_FALSE(changes(k, 65536, 0));
  EXPECT_TRUE(changes(k, 32768, 0)) << "another value";
  EXPECT_TRUE(changes(k, 32768, -1)) << "the same handle as a function: another name, not known";
  // That change through a function forgot the kernel's values, on every device.
  EXPECT_TRUE(changes(k, 32768, 0));
  EXPECT_TRUE(changes(k, 65536, 1));
  // A change through a function forgets the kernels' values, and the other way round.
  EXPECT_TRUE(changes(f, 4096, -1));
  EXPECT_FALSE(changes(f, 4096, -1));
  EXPECT_TRUE(changes(k, 65536, 1)) << "forgotten by the function's change";
  EXPECT_FALSE(changes(k, 65536, 1));
  EXPECT_TRUE(changes(f, 4096, -1)) << "forgotten by the kernel's change";
  EXPECT_EQ(c.calls, 14) << "the real call is always made";
  launch_conditions::forget_attribute_values();
}

TEST_F(runtime_deferred_error, nothing_is_deferred_after_a_context_failure) {
  cuda_backend b(table_, ctx_);
  launch_in_place(b, 0);
  EXPECT_TRUE(defers(b));
  EXPECT_FALSE(launch_conditions::call_failed(CUDA_ERROR_INVALID_VALUE)) << "not a context failure";
  EXPECT_TRUE(defers(b));
  EXPECT_TRUE(launch_conditions::call_failed(CUDA_ERROR_ILLEGAL_ADDRESS));
  EXPECT_FALSE(defers(b));
  launch_in_place(b, 0);
  EXPECT_FALSE(defers(b)) << "not even after a success";
}

// No libcuda in the process (CI, or a program that never loaded it): every
// call passes straight through and nothing else happens.
TEST(runtime_without_driver, launches_pass_straight_through) {
  driver::use_for_testing(nullptr);
  const CUstream s = unknown_handle<CUstream>();
  app_launch l;
  l.status = 3;
  address a = 0x7e80'0000'0000;
  void* params[] = {&a, &a};
  launch_request r;
  r.stream = s;
  r.function = unknown_handle<CUfunction>();
  r.params = params;
  EXPECT_EQ(dispatch_launch(r, l.closure()), 3);
  ASSERT_EQ(l.issued.size(), 1u);
  EXPECT_EQ(l.issued[0], s);
  r.stream = nullptr;
  EXPECT_EQ(dispatch_launch(r, l.closure()), 3);
  ASSERT_EQ(l.issued.size(), 2u);
  EXPECT_EQ(l.issued[1], nullptr);
  // The rest of the contract is harmless without a driver.
  stream_work_begins(s, default_stream::legacy);
  stream_barrier(s, default_stream::legacy);
  stream_work_begins(CU_STREAM_LEGACY, default_stream::legacy);
  stream_barrier(CU_STREAM_LEGACY, default_stream::legacy);
  launched_directly(s, default_stream::per_thread, pass_reason::cooperative);
  stream_synchronized(s, default_stream::legacy, stream_sync_begins(s, default_stream::legacy));
  device_synchronized(device_sync_begins());
  stream_destroyed(s);
  EXPECT_EQ(driver::real(), nullptr);
  driver::use_for_testing(&fake_table());
}

// ---------------------------------------------------------------- stepping aside
// (src/runtime/stream_mode.hpp, ACS_STEP_ASIDE, default on.) CTest runs every test in a
// process of its own; tests that need no stream redirected anywhere skip when run together.

class step_aside_test : public dispatch_test {
 protected:
  // Launches a chain on `s` (every kernel reads and writes the same two buffers) until one goes
  // to `s` itself; returns how many launches that took, 0 if none did within `limit`.
  unsigned chain_until_aside(CUstream s, CUfunction f, address a, address b, unsigned limit = 200) {
    for (unsigned i = 1; i <= limit; ++i)
      if (launch(s, f, a, b) == s) return i;
    return 0;
  }
  static bool has_event_calls(const std::vector<call>& cs) {
    return std::any_of(cs.begin(), cs.end(), [](const call& c) { return c.what == call::record || c.what == call::wait; });
  }
  // A device made current, one stream of it, a kernel f(a, b) and four buffers.
  struct scene {
    CUcontext ctx;
    CUstream s;
    CUfunction f;
    address a, b, c, d;
  };
  scene make_scene() {
    const CUcontext ctx = make_device();
    make_current(ctx);
    const CUstream s = make_stream(ctx);
    const CUfunction f = make_kernel();
    const address a = make_allocation(), b = make_allocation(), c = make_allocation(), d = make_allocation();
    return {ctx, s, f, a, b, c, d};
  }
};

TEST_F(step_aside_test, a_dependent_chain_leaves_the_pool_after_joining_its_stream) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  const CUfunction f = make_kernel();
  const address a = make_allocation(), b = make_allocation();
  const std::size_t from = mark();
  const CUstream first = launch(s, f, a, b);
  ASSERT_TRUE(is_pool(first));
  const unsigned n = chain_until_aside(s, f, a, b);
  EXPECT_EQ(n, 31u) << "32 launches in all conflict with their predecessor";
  // The pool kernels before it were joined into the stream before the stream took its own.
  EXPECT_TRUE(joins(from, first, s));
  // From then on every launch goes to the stream, in order.
  for (int i = 0; i < 20; ++i) EXPECT_EQ(launch(s, f, a, b), s);
}

// A kernel named as the runtime names it (a host stub, a cudaKernel_t) costs a look-up: a
// stepped-aside stream's launches skip it but for its probes, and a launch to the pool makes it.
TEST_F(step_aside_test, only_probed_and_pooled_launches_look_their_function_up) {
  lazy_function = true;
  const scene sc = make_scene();
  lookups = 0;
  ASSERT_TRUE(is_pool(launch(sc.s, sc.f, sc.a, sc.b)));
  EXPECT_EQ(lookups.load(), 1u);
  ASSERT_NE(chain_until_aside(sc.s, sc.f, sc.a, sc.b), 0u);
  const unsigned before = lookups.load();
  // Up to the next probe (256 launches: ACS_STEP_ASIDE), no look-up.
  for (int i = 0; i < 200; ++i) ASSERT_EQ(launch(sc.s, sc.f, sc.a, sc.b), sc.s);
  EXPECT_EQ(lookups.load(), before);
  // The probe's launches make one each.
  for (int i = 0; i < 200; ++i) ASSERT_EQ(launch(sc.s, sc.f, sc.a, sc.b), sc.s);
  EXPECT_GT(lookups.load(), before);
  EXPECT_LE(lookups.load(), before + 16);
}

// A kernel that cannot be identified still passes through, looked up at its first probe.
TEST_F(step_aside_test, a_lazily_unidentified_kernel_passes_through) {
  lazy_function = true;
  const scene sc = make_scene();
  EXPECT_EQ(launch(sc.s, nullptr, sc.a, sc.b), sc.s);
  EXPECT_EQ(last_status, 0);
}

TEST_F(step_aside_test, with_every_stream_aside_operations_on_streams_skip_the_scheduler) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  if (redirected_streams().load() != 0) GTEST_SKIP() << "another test's streams are redirected: run it alone";
  const CUstream s = make_stream(ctx);
  const CUfunction f = make_kernel();
  const address a = make_allocation(), b = make_allocation();
  ASSERT_NE(chain_until_aside(s, f, a, b), 0u);
  ASSERT_EQ(redirected_streams().load(), 0);
  ASSERT_NE(runtime_of(ctx), nullptr);
  const std::uint64_t barriers = runtime_of(ctx)->sched.stats().barriers;
  const std::size_t from = mark();
  stream_work_begins(s, default_stream::legacy);  // a copy, an event record...
  stream_barrier(s, default_stream::legacy);
  stream_synchronized(s, default_stream::legacy, stream_sync_begins(s, default_stream::legacy));
  EXPECT_EQ(launch(s, f, a, b), s);
  EXPECT_FALSE(has_event_calls(calls_since(from)));
  EXPECT_EQ(runtime_of(ctx)->sched.stats().barriers, barriers) << "the scheduler was asked";
}

TEST_F(step_aside_test, while_another_stream_is_redirected_an_aside_stream_keeps_its_joins) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx), other = make_stream(ctx);
  const CUfunction f = make_kernel();
  const address a = make_allocation(), b = make_allocation();
  ASSERT_NE(chain_until_aside(s, f, a, b), 0u);
  // `other` runs two independent chains alternately: it stays redirected.
  const address c = make_allocation(), d = make_allocation();
  for (int i = 0; i < 8; ++i) EXPECT_TRUE(is_pool(launch(other, f, i % 2 ? a : c, i % 2 ? b : d)));
  EXPECT_GT(redirected_streams().load(), 0);
  // `s` still launches on itself; the bookkeeping of direct work is back (the scheduler is asked).
  EXPECT_EQ(launch(s, f, a, b), s);
}

TEST_F(step_aside_test, parallelism_found_by_a_probe_brings_the_stream_back_after_a_fork) {
  const CUcontext ctx = make_device();
  make_current(ctx);
  const CUstream s = make_stream(ctx);
  const CUfunction f = make_kernel();
  const address a = make_allocation(), b = make_allocation(), c = make_allocation(), d = make_allocation();
  ASSERT_NE(chain_until_aside(s, f, a, b), 0u);
  // Two independent chains from now on: the first probe (after 256 launches) sees them.
  CUstream on = s;
  unsigned launches = 0;
  std::size_t before_back = 0;
  while (on == s && launches < 2000) {
    before_back = mark();
    on = launch(s, f, launches % 2 ? a : c, launches % 2 ? b : d);
    ++launches;
  }
  ASSERT_TRUE(is_pool(on)) << "redirected again after " << launches << " launches";
  EXPECT_LE(launches, 256u + 16u);
  // The first kernel back on the pool waits for what ran on the stream meanwhile: an event
  // recorded on `s` after the direct launches, waited on by its pool stream.
  const auto cs = calls_since(before_back);
  std::set<CUevent> recorded_on_s;
  bool fork = false;
  for (const call& k : cs) {
    if (k.what == call::record && k.stream == s) recorded_on_s.insert(k.event);
    if (k.what == call::wait && k.stream == on && recorded_on_s.count(k.event)) fork = true;
  }
  EXPECT_TRUE(fork);
}

// [threads_shared] Another thread launching on the stream while it steps aside must not reach
// the stream before the stream joined its pool work (the launch lock, stream_mode.hpp): its
// kernel follows its own thread's earlier kernels, which ran on the pool. The join's event
// record is slowed down so that the other thread's launch comes while the join is under way.
TEST_F(step_aside_test, threads_shared_a_launch_during_a_step_aside_follows_the_streams_pool_work) {
  const auto [ctx, s, f, a, b, c, d] = make_scene();
  stream_target t;
  ASSERT_TRUE(resolve_stream(fake_table(), s, default_stream::legacy, t));
  const std::size_t from = mark();
  // The other thread's chain so far: on the pool.
  for (std::uintptr_t i = 1; i <= 4; ++i) ASSERT_TRUE(is_pool(launch(s, f, c, d, default_stream::legacy, 0, 100 + i)));
  fake().record_delay_us = 20'000;
  std::atomic<bool> stop{false};
  CUstream other_ran_on = nullptr;
  std::thread other([&] {
    make_current(ctx);
    while (t.mode->mode() != stream_mode_kind::aside && !stop.load()) std::this_thread::yield();
    if (!stop.load()) other_ran_on = launch(s, f, c, d, default_stream::legacy, 0, 105);
  });
  unsigned n = 0;
  for (std::uintptr_t i = 1; i <= 200 && n == 0; ++i)
    if (launch(s, f, a, b, default_stream::legacy, 0, i) == s) n = static_cast<unsigned>(i);
  stop = true;
  other.join();
  fake().record_delay_us = 0;
  ASSERT_NE(n, 0u) << "the chain on (a, b) never stepped aside";
  ASSERT_EQ(other_ran_on, s) << "the other thread's launch came after the step aside";
  const auto follows = launch_order(calls_since(from));
  ASSERT_TRUE(follows.count(105));
  EXPECT_TRUE(follows.at(105).count(104)) << "the other thread's kernel did not wait for its predecessor on the pool";
  EXPECT_TRUE(follows.at(n).count(n - 1)) << "the first kernel aside did not wait for the chain's pool kernels";
}

// ---------------------------------------------------------------- starting aside
// (ACS_START_ASIDE, default on: registered without ACS_START_ASIDE=0, runtime_tests.cmake.) A
// new stream's first launches go straight to it while their footprints are probed; only a
// stream that showed parallelism reaches the pool.

class start_aside_test : public step_aside_test {
 protected:
  void SetUp() override {
    step_aside_test::SetUp();
    if (!settings().start_aside) GTEST_SKIP() << "ACS_START_ASIDE=0 in the environment";
  }

  // Holds acs's background thread until release(), or the end of the test (a failed assertion
  // must not leave it blocked for the tests after).
  // Direct launches left, after `made` launches since a burst's first launch found its layout
  // unread, before the burst goes on (stream_mode_policy::unsettled_pause).
  static unsigned after_the_pause(unsigned made) { return stream_mode_policy{}.unsettled_pause - made; }

  class background_hold {
   public:
    // Returns once the thread runs the holding job: what is posted from then on waits.
    background_hold() {
      background::post([r = released_, s = started_] {
        s->store(true);
        while (!r->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      });
      for (int i = 0; i < 5000 && !started_->load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ~background_hold() { release(); }
    void release() { released_->store(true); }

   private:
    std::shared_ptr<std::atomic<bool>> released_ = std::make_shared<std::atomic<bool>>(false);
    std::shared_ptr<std::atomic<bool>> started_ = std::make_shared<std::atomic<bool>>(false);
  };
};

TEST_F(start_aside_test, a_probe_does_not_wait_for_code_being_analysed) {
  warm_layouts = false;
  const auto [ctx, s, f, a, b, c, d] = make_scene();
  // Hold the background thread, and load code behind it: its analysis stays pending.
  background_hold hold;
  static const int other_module = 0;
  code_loaded(&other_module, false, fake_kernel_ptx);
  ASSERT_FALSE(inference::layout_ready(f));
  // Independent launches: each goes to the stream at once, and none counts for the probe.
  for (int i = 0; i < 20; ++i) EXPECT_EQ(launch(s, f, i % 2 ? a : c, i % 2 ? b : d), s) << i;
  hold.release();
  ASSERT_TRUE(analyses_done());
  // The first probe (never consumed) sees them after its pause: redirected at its 3rd
  // independent launch.
  unsigned n = 0;
  for (CUstream on = s; on == s && n < 200; ++n) on = launch(s, f, n % 2 ? a : c, n % 2 ? b : d);
  EXPECT_EQ(n, after_the_pause(20) + 4u);
}

TEST_F(start_aside_test, a_probe_reads_no_layout_itself_the_background_thread_does) {
  warm_layouts = false;
  const auto [ctx, s, f, a, b, c, d] = make_scene();
  // Hold the background thread: a probe of a function never read must not read it inline.
  background_hold hold;
  const unsigned reads_before = param_info_reads_here;
  for (int i = 0; i < 20; ++i) EXPECT_EQ(launch(s, f, i % 2 ? a : c, i % 2 ? b : d), s) << i;
  EXPECT_FALSE(inference::layout_ready(f));
  EXPECT_EQ(param_info_reads_here, reads_before) << "a probe read a layout on the launch path";
  hold.release();
  ASSERT_TRUE(analyses_done());
  EXPECT_TRUE(inference::layout_ready(f)) << "the background thread did not read the layout";
  // Now the probe settles after its pause: redirected at its 3rd independent launch, as with a
  // warm function.
  unsigned n = 0;
  for (CUstream on = s; on == s && n < 200; ++n) on = launch(s, f, n % 2 ? a : c, n % 2 ? b : d);
  EXPECT_EQ(n, after_the_pause(20) + 4u);
}

// Where acs's thread gets no CPU (a loaded machine), a burst does not wait for it for ever: after
// unsettled_pauses pauses its next probed launch reads the layout itself, and the probe ends.
TEST_F(start_aside_test, a_probe_reads_the_layout_itself_after_waiting_long_enough) {
  warm_layouts = false;
  const auto [ctx, s, f, a, b, c, d] = make_scene();
  background_hold hold;  // never released before the end: the thread reads nothing
  const unsigned reads_before = param_info_reads_here;
  // Counted (ACS_STATS): each pause, and the probed launch that read the layout itself.
  std::atomic<bool>& counting = stats::detail::counting;
  const bool counted = counting.exchange(true);
  const stats::summary before = stats::collect();
  unsigned n = 0;
  for (CUstream on = s; on == s && n < 1000; ++n) on = launch(s, f, n % 2 ? a : c, n % 2 ? b : d);
  const stats::summary after = stats::collect();
  counting.store(counted);
  const stream_mode_policy p;
  EXPECT_EQ(n, p.unsettled_pauses * p.unsettled_pause + 4u) << "redirected at the resumed burst's 3rd independent launch";
  EXPECT_GT(param_info_reads_here, reads_before) << "the layout was not read on the launch path";
  EXPECT_EQ(after.probe_pauses - before.probe_pauses, p.unsettled_pauses);
  EXPECT_EQ(after.probe_code_waits - before.probe_code_waits, 1u) << "one probed launch read the layout itself";
  EXPECT_GT(after.probe_code_wait_ns, before.probe_code_wait_ns);
}

// A probe asks whether the stream has work pending (ACS_PROBE_BACKLOG) only for a launch
// independent of the one before: a dependent chain's probes make no driver call of their own.
TEST_F(start_aside_test, a_chains_probes_ask_the_driver_nothing) {
  if (!settings().probe_backlog) GTEST_SKIP() << "ACS_PROBE_BACKLOG=0 in the environment";
  const auto [ctx, s, f, a, b, c, d] = make_scene();
  const auto queries = [] {
    std::lock_guard lock(fake().mutex);
    return fake().stream_queries;
  };
  const unsigned before = queries();
  for (int i = 0; i < 600; ++i) ASSERT_EQ(launch(s, f, a, b), s) << "launch " << i;
  EXPECT_EQ(queries(), before) << "a probed launch of a chain queried its stream";
  // Independent launches are asked about (and, onto a busy stream, count).
  for (int i = 0; i < 600; ++i) launch(s, f, i % 2 ? a : c, i % 2 ? b : d);
  EXPECT_GT(queries(), before);
}

TEST_F(start_aside_test, a_dependent_chain_never_reaches_the_pool) {
  const auto [ctx, s, f, a, b, c, d] = make_scene();
  const std::size_t from = mark();
  for (int i = 0; i < 600; ++i) ASSERT_EQ(launch(s, f, a, b), s) << "launch " << i;
  EXPECT_FALSE(has_event_calls(calls_since(from)));
  EXPECT_EQ(redirected_streams().load(), 0);
  EXPECT_EQ(runtime_of(ctx), nullptr) << "a scheduler (pool streams, events, threads) was made for nothing";
}

TEST_F(start_aside_test, parallelism_in_the_first_launches_brings_the_stream_to_the_pool_after_a_fork) {
  const auto [ctx, s, f, a, b, c, d] = make_scene();
  const std::size_t from = mark();
  // Two chains alternately: every launch after the first is independent of its predecessor.
  CUstream on = s;
  std::uintptr_t n = 0;
  while (on == s && n < 100) {
    ++n;
    on = launch(s, f, n % 2 ? a : c, n % 2 ? b : d, default_stream::legacy, 0, n);
  }
  ASSERT_TRUE(is_pool(on));
  EXPECT_EQ(n, 4u) << "the 3rd independent launch of the first probe redirects it";
  EXPECT_NE(runtime_of(ctx), nullptr);
  EXPECT_GT(redirected_streams().load(), 0);
  // The first pool kernel follows the direct launch of its chain before it.
  const auto follows = launch_order(calls_since(from));
  EXPECT_TRUE(follows.at(n).count(n - 2));
}

TEST_F(start_aside_test, a_stream_without_parallelism_is_probed_again_later) {
  const auto [ctx, s, f, a, b, c, d] = make_scene();
  for (int i = 0; i < 32; ++i) ASSERT_EQ(launch(s, f, a, b), s);  // the first probe: a chain
  // Parallelism from now on: the next probe comes after 256 direct launches, and finds it at
  // its 6th independent launch.
  unsigned n = 0;
  for (CUstream on = s; on == s && n < 1000; ++n) on = launch(s, f, n % 2 ? a : c, n % 2 ? b : d);
  EXPECT_GT(n, 256u);
  EXPECT_LE(n, 256u + 16u);
}

// [probe_backlog] Where the GPU keeps up with the host, every kernel arrives on an idle stream:
// independent kernels could not have overlapped, and the pool would only cost host time. Once the
// stream keeps work pending, the next probe finds the parallelism.
TEST_F(start_aside_test, parallelism_on_a_stream_the_gpu_keeps_up_with_stays_aside) {
  if (!settings().probe_backlog) GTEST_SKIP() << "ACS_PROBE_BACKLOG=0 in the environment";
  const auto [ctx, s, f, a, b, c, d] = make_scene();
  {
    std::lock_guard lock(fake().mutex);
    fake().idle.insert(s);
  }
  const std::size_t from = mark();
  for (int i = 0; i < 300; ++i) ASSERT_EQ(launch(s, f, i % 2 ? a : c, i % 2 ? b : d), s) << "launch " << i;
  EXPECT_FALSE(has_event_calls(calls_since(from)));
  EXPECT_EQ(runtime_of(ctx), nullptr) << "a scheduler was made for a stream the GPU keeps up with";
  {
    std::lock_guard lock(fake().mutex);
    fake().idle.erase(s);
  }
  // Work pending from now on. The first probe was launches 1-30 (it ended when 3 independent
  // launches onto a busy stream could no longer be found in its 32), the second 287-297 (11 of
  // its 16: 6 could no longer be found); the third, 512 launches later, redirects at its 6th
  // independent launch.
  unsigned n = 0;
  for (CUstream on = s; on == s && n < 2000; ++n) on = launch(s, f, n % 2 ? a : c, n % 2 ? b : d);
  ASSERT_LT(n, 2000u) << "never redirected";
  EXPECT_EQ(300u + n, 30u + 256u + 11u + 512u + 7u);
  EXPECT_NE(runtime_of(ctx), nullptr);
}

// [first_probe] A new stream's first launches (ACS_FIRST_PROBE, default 64) go straight to it:
// no footprint, no stream query, no layout read; the first probe comes after them.
class first_probe_test : public start_aside_test {
 protected:
  void SetUp() override {
    start_aside_test::SetUp();
    if (IsSkipped()) return;
    if (settings().first_probe == 0) GTEST_SKIP() << "ACS_FIRST_PROBE=0 in the environment";
  }
};

TEST_F(first_probe_test, a_short_program_is_never_probed) {
  warm_layouts = false;
  const auto [ctx, s, f, a, b, c, d] = make_scene();
  const unsigned reads_before = param_info_reads_here;
  const std::size_t from = mark();
  for (unsigned i = 0; i < settings().first_probe; ++i) EXPECT_EQ(launch(s, f, i % 2 ? a : c, i % 2 ? b : d), s) << i;
  ASSERT_TRUE(analyses_done());
  EXPECT_FALSE(inference::layout_ready(f)) << "a layout was read ahead for a launch that probed nothing";
  ASSERT_TRUE(analyses_done()) << "the read layout_ready asked for";  // not left running at exit
  EXPECT_EQ(param_info_reads_here, reads_before);
  EXPECT_FALSE(has_event_calls(calls_since(from)));
  EXPECT_EQ(runtime_of(ctx), nullptr);
}

// [code_needed] Loaded code is read only once some launch needs a footprint: a program whose
// launches all go straight to their streams never pays for the PTX analysis (docs/design.md,
// "acs's background thread"); from the first footprint on, what was loaded and what is loaded
// later are read ahead on the background thread.
TEST_F(first_probe_test, loaded_code_is_read_only_once_a_launch_needs_a_footprint) {
  inference::forget_code_needed_for_testing();  // as in a new process
  const auto [ctx, s, f, a, b, c, d] = make_scene();
  static const int loaded_before = 0, loaded_after = 0;
  {
    background_hold hold;  // what is posted from here on stays pending until the release
    code_loaded(&loaded_before, false, fake_kernel_ptx);
    EXPECT_FALSE(inference::work_ahead_pending()) << "code was read at load, before any launch needed it";
    for (unsigned i = 0; i < settings().first_probe; ++i) EXPECT_EQ(launch(s, f, i % 2 ? a : c, i % 2 ? b : d), s) << i;
    EXPECT_FALSE(inference::work_ahead_pending()) << "launches that went straight to their stream had code read";
    (void)launch(s, f, a, b);  // the first probe: its footprint is inferred
    EXPECT_TRUE(inference::work_ahead_pending()) << "the first footprint did not have the loaded code read";
  }
  ASSERT_TRUE(analyses_done());
  {
    background_hold hold;
    code_loaded(&loaded_after, false, fake_kernel_ptx);
    EXPECT_TRUE(inference::work_ahead_pending()) << "code loaded after the first footprint was not read ahead";
  }
  ASSERT_TRUE(analyses_done());
}

TEST_F(first_probe_test, parallelism_after_the_first_launches_is_found_by_the_first_probe) {
  const auto [ctx, s, f, a, b, c, d] = make_scene();
  unsigned n = 0;
  for (CUstream on = s; on == s && n < 1000; ++n) on = launch(s, f, n % 2 ? a : c, n % 2 ? b : d);
  EXPECT_EQ(n, settings().first_probe + 4u) << "the first probe's 3rd independent launch redirects the stream";
  EXPECT_NE(runtime_of(ctx), nullptr);
}

TEST(runtime_stats, machine_line_has_every_key) {
  stats::summary s;
  s.kernels_seen = 10;
  s.passed[static_cast<std::size_t>(pass_reason::capturing)] = 3;
  s.scheduler.kernels = 7;
  s.scheduler.occupancy_sum = 14;
  s.devices = 1;
  const std::string line = stats::format_machine(s);
  EXPECT_EQ(line.rfind("acs-stats: ", 0), 0u);
  for (const char* key : {"kernels_seen=10", "dispatched=7", "independent=", "dependency_waits=", "barriers=",
                          "folds=", "mean_occupancy=2.00", "devices=1", "probes_busy=", "probes_idle=",
                          "probes_launch_bound=", "probe_pauses=", "probe_code_waits=", "probe_code_wait_us=",
                          "condition_changes=", "passed=3", "pass_capturing=3",
                          "pass_disabled=0", "pass_foreign_context=0", "pass_internal_error=0"})
    EXPECT_NE(line.find(key), std::string::npos) << key << " in " << line;
  EXPECT_NE(stats::format_human(s).find("capturing 3"), std::string::npos);
}

}  // namespace
}  // namespace acs
