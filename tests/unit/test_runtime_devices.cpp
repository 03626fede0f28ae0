// Several devices in one process (docs/design.md rule 8), on the fake driver: cudaSetDevice
// between launches (the current context changes), kernels of two devices in one program each
// on its own device's pool, an event recorded on one device and waited on from another (a
// barrier on each side), and the statistics per device. The simulated device proves the
// ordering over several devices (tests/sim, random_programs.multigpu_*); here the point is
// that the runtime gives each device's launches to that device's scheduler.
#include <gtest/gtest.h>

#include <cuda.h>

#include <set>
#include <string>
#include <vector>

#include "src/runtime/devices.hpp"
#include "src/runtime/dispatch.hpp"
#include "src/support/stats.hpp"
#include "runtime_fake_driver.hpp"

namespace acs {
namespace {

using namespace runtime_fake;  // NOLINT: the fake driver and its fixture

class runtime_multigpu : public dispatch_test {
 protected:
  static CUcontext context_of_stream(CUstream s) {
    std::lock_guard lock(fake().mutex);
    const auto it = fake().streams.find(s);
    return it == fake().streams.end() ? nullptr : it->second.first;
  }
  static CUdevice device_of(CUcontext c) {
    std::lock_guard lock(fake().mutex);
    return fake().contexts.at(c).first;
  }
  // After `from`: a later kernel's pool stream `p` waits on an event recorded on `s` (a fork).
  static bool forks(std::size_t from, CUstream s, CUstream p) {
    std::set<CUevent> on_s;
    for (const call& c : calls_since(from)) {
      if (c.what == call::record && c.stream == s) on_s.insert(c.event);
      if (c.what == call::wait && c.stream == p && on_s.count(c.event)) return true;
    }
    return false;
  }
  // A hooked stream-ordered call (cudaEventRecord, cudaStreamWaitEvent) on `s`: rule 2.
  static void barrier_on(CUstream s, call::kind what, CUevent e) {
    stream_work_begins(s, default_stream::legacy);
    {
      std::lock_guard lock(fake().mutex);
      fake().log({what, s, e});
    }
    stream_barrier(s, default_stream::legacy);
  }
};

// cudaSetDevice(0); k<<<>>>; cudaSetDevice(1); k<<<>>>: stream 0 is each device's own legacy
// stream, and each launch goes to the pool of the device current at the time.
TEST_F(runtime_multigpu, set_device_between_launches_uses_each_devices_pool) {
  const CUcontext d0 = make_device(), d1 = make_device();
  const CUfunction f = make_kernel();
  std::vector<CUstream> pools[2];
  for (int round = 0; round < 3; ++round) {
    for (int d = 0; d < 2; ++d) {
      const CUcontext ctx = d == 0 ? d0 : d1;
      make_current(ctx);  // what cudaSetDevice does: the device's primary context becomes current
      const CUstream p = launch(nullptr, f, make_allocation(), make_allocation());
      ASSERT_TRUE(is_pool(p));
      EXPECT_EQ(context_of_stream(p), ctx) << "round " << round << ": a pool stream of another device";
      pools[d].push_back(p);
    }
  }
  for (CUstream p : pools[0])
    for (CUstream q : pools[1]) EXPECT_NE(p, q) << "the devices share a pool stream";
  ASSERT_NE(runtime_of(d0), nullptr);
  ASSERT_NE(runtime_of(d1), nullptr);
  EXPECT_NE(runtime_of(d0), runtime_of(d1));
  EXPECT_EQ(runtime_of(d0)->sched.in_flight(), 3u);
  EXPECT_EQ(runtime_of(d1)->sched.in_flight(), 3u);
  EXPECT_EQ(runtime_of(d0)->device, device_of(d0));
  EXPECT_EQ(runtime_of(d1)->device, device_of(d1));
}

// Explicit streams of two devices, interleaved, whatever device is current: a stream's own
// context decides (cudaLaunchKernel on a stream of another device than the current one).
TEST_F(runtime_multigpu, kernels_of_two_devices_in_one_program_each_run_on_their_own_devices_pool) {
  const CUcontext d0 = make_device(), d1 = make_device();
  const CUstream s0 = make_stream(d0), s1 = make_stream(d1);
  const CUfunction f = make_kernel();
  make_current(d0);
  const address a = make_allocation(), b = make_allocation();
  for (int i = 0; i < 4; ++i) {
    const CUstream p0 = launch(s0, f, a, make_allocation());
    const CUstream p1 = launch(s1, f, b, make_allocation());
    ASSERT_TRUE(is_pool(p0) && is_pool(p1));
    EXPECT_EQ(context_of_stream(p0), d0);
    EXPECT_EQ(context_of_stream(p1), d1);
  }
  EXPECT_EQ(runtime_of(d0)->sched.in_flight(), 4u);
  EXPECT_EQ(runtime_of(d1)->sched.in_flight(), 4u);
  // A stream synchronize of device 1's stream clears device 1's stream only.
  stream_synchronized(s1, default_stream::legacy, stream_sync_begins(s1, default_stream::legacy));
  EXPECT_EQ(runtime_of(d0)->sched.in_flight(), 4u);
  EXPECT_EQ(runtime_of(d1)->sched.in_flight(), 0u);
}

// cudaEventRecord(e, s0) on device 0, cudaStreamWaitEvent(s1, e) on device 1: the record comes
// after s0's pool kernels (a join on device 0), and s1's later kernels after the wait (a fork on
// device 1), each side within its own device's scheduler.
TEST_F(runtime_multigpu, an_event_recorded_on_one_device_and_waited_on_another_is_a_barrier_on_each_side) {
  const CUcontext d0 = make_device(), d1 = make_device();
  const CUstream s0 = make_stream(d0), s1 = make_stream(d1);
  const CUfunction f = make_kernel();
  const CUevent e = unknown_handle<CUevent>();
  make_current(d0);
  const std::size_t start = mark();
  const CUstream producer = launch(s0, f, make_allocation(), make_allocation());
  ASSERT_TRUE(is_pool(producer));
  barrier_on(s0, call::record, e);
  EXPECT_TRUE(joins(start, producer, s0)) << "the record must follow device 0's pool kernel";

  make_current(d1);
  const CUstream early = launch(s1, f, make_allocation(), make_allocation());
  ASSERT_TRUE(is_pool(early));
  const std::size_t before_wait = mark();
  barrier_on(s1, call::wait, e);
  EXPECT_TRUE(joins(start, early, s1)) << "the wait comes after s1's earlier pool kernel";
  const std::size_t after_wait = mark();
  const CUstream consumer = launch(s1, f, make_allocation(), make_allocation());
  ASSERT_TRUE(is_pool(consumer));
  EXPECT_EQ(context_of_stream(consumer), d1);
  EXPECT_TRUE(forks(after_wait, s1, consumer)) << "the consumer must start after s1's wait for device 0's event";
  EXPECT_EQ(runtime_of(d0)->sched.stats().barriers, 1u);
  EXPECT_EQ(runtime_of(d1)->sched.stats().barriers, 1u);
  // No call of device 1's scheduler touched device 0's streams, nor the reverse.
  for (const call& c : calls_since(before_wait)) {
    if (c.stream != nullptr && c.stream != s1 && c.what != call::launch) {
      EXPECT_EQ(context_of_stream(c.stream), d1) << "device 1's barrier used a stream of device 0";
    }
  }
}

// cudaMemcpyPeer (into device 1's memory) with device 0 current: CUDA serialises it with device
// 1's work too. Device 1's legacy-stream kernel on its pool must be joined into device 1's legacy
// stream before the copy (with device 1's context current: CU_STREAM_LEGACY names the current
// context's), and device 1's next legacy kernel must fork after the copy. The hook brackets the copy
// with peer_copy_begins / peer_copy_done around the current device's legacy barrier.
TEST_F(runtime_multigpu, a_synchronous_peer_copy_is_a_barrier_on_every_devices_legacy_stream) {
  const CUcontext d0 = make_device(), d1 = make_device();
  const CUfunction f = make_kernel();
  make_current(d1);
  const std::size_t start = mark();
  const CUstream reader = launch(nullptr, f, make_allocation(), make_allocation());
  ASSERT_TRUE(is_pool(reader));
  make_current(d0);
  const CUstream p0 = launch(nullptr, f, make_allocation(), make_allocation());
  ASSERT_TRUE(is_pool(p0));

  peer_copy_begins(default_stream::legacy);
  stream_work_begins(nullptr, default_stream::legacy);
  const std::size_t copy_at = mark();  // the copy itself
  stream_barrier(nullptr, default_stream::legacy);
  peer_copy_done(default_stream::legacy);
  ASSERT_EQ(context_stack.size(), 1u);
  EXPECT_EQ(context_stack.back(), d0) << "the current context must be restored";

  // Joined: a wait on a device's legacy stream, made with that device current, for an event
  // recorded on its pool stream after its kernel, before the copy.
  const auto joined = [&](CUstream pool, CUcontext device) {
    std::set<CUevent> on_pool;
    const auto cs = calls_since(start);
    for (std::size_t i = 0; i < cs.size() && start + i < copy_at; ++i) {
      if (cs[i].what == call::record && cs[i].stream == pool) on_pool.insert(cs[i].event);
      if (cs[i].what == call::wait && cs[i].stream == CU_STREAM_LEGACY && cs[i].current == device &&
          on_pool.count(cs[i].event))
        return true;
    }
    return false;
  };
  EXPECT_TRUE(joined(p0, d0)) << "device 0's legacy stream (the current one's legacy barrier)";
  EXPECT_TRUE(joined(reader, d1)) << "device 1's legacy stream must hold its pool kernel before the copy";

  make_current(d1);
  const CUstream after = launch(nullptr, f, make_allocation(), make_allocation());
  ASSERT_TRUE(is_pool(after));
  std::set<CUevent> on_legacy1;
  bool forked = false;
  for (const call& c : calls_since(copy_at)) {
    if (c.what == call::record && c.stream == CU_STREAM_LEGACY && c.current == d1) on_legacy1.insert(c.event);
    if (c.what == call::wait && c.stream == after && on_legacy1.count(c.event)) forked = true;
  }
  EXPECT_TRUE(forked) << "device 1's next legacy kernel must start after the copy";
  EXPECT_EQ(runtime_of(d1)->sched.stats().barriers, 1u);
}

// ACS_STATS: the sums over devices keep their keys; each device's figures follow under its
// ordinal (device<N>_dispatched...), from the runtime's own schedulers.
TEST_F(runtime_multigpu, stats_are_given_per_device) {
  const CUcontext d0 = make_device(), d1 = make_device();
  const CUfunction f = make_kernel();
  make_current(d0);
  for (int i = 0; i < 3; ++i) launch(nullptr, f, make_allocation(), make_allocation());
  make_current(d1);
  launch(nullptr, f, make_allocation(), make_allocation());
  const stats::summary s = stats::collect();
  const auto figures = [&](CUcontext c) -> const stats::device_figures* {
    for (const stats::device_figures& d : s.per_device)
      if (d.device == device_of(c)) return &d;
    return nullptr;
  };
  ASSERT_NE(figures(d0), nullptr);
  ASSERT_NE(figures(d1), nullptr);
  EXPECT_EQ(figures(d0)->scheduler.kernels, 3u);
  EXPECT_EQ(figures(d1)->scheduler.kernels, 1u);
  std::uint64_t summed = 0;
  for (const stats::device_figures& d : s.per_device) summed += d.scheduler.kernels;
  EXPECT_EQ(summed, s.scheduler.kernels) << "the sum over devices is the per-device figures' sum";
  const std::string line = stats::format_machine(s);
  EXPECT_NE(line.find(" device" + std::to_string(device_of(d0)) + "_dispatched=3 "), std::string::npos) << line;
  EXPECT_NE(line.find(" device" + std::to_string(device_of(d1)) + "_dispatched=1 "), std::string::npos) << line;
  EXPECT_NE(line.find(" dispatched=" + std::to_string(s.scheduler.kernels) + " "), std::string::npos) << line;
}

TEST(runtime_stats, multigpu_machine_line_has_every_devices_figures_and_the_sums) {
  stats::summary s;
  scheduler_stats a, b;
  a.kernels = 5;
  a.occupancy_sum = 10;
  a.dependency_waits = 2;
  b.kernels = 3;
  b.occupancy_sum = 3;
  b.starved = 1;
  stats::add_scheduler(s, 1, b);
  stats::add_scheduler(s, 0, a);
  stats::add_scheduler(s, 1, b);  // a device reset: a second scheduler of device 1
  ASSERT_EQ(s.per_device.size(), 2u);
  EXPECT_EQ(s.per_device[0].device, 0);
  EXPECT_EQ(s.devices, 3u);
  const std::string line = stats::format_machine(s);
  for (const char* key : {" dispatched=11 ", " devices=3 ", " device0_dispatched=5 ", " device0_dependency_waits=2 ",
                          " device0_mean_occupancy=2.00", " device1_dispatched=6 ", " device1_in_place=2 ",
                          " device1_mean_occupancy=1.00"})
    EXPECT_NE(line.find(key), std::string::npos) << key << " in " << line;
  EXPECT_LT(line.find("device0_"), line.find("device1_")) << "in device order";
  EXPECT_NE(stats::format_human(s).find("device 1: 6 dispatched"), std::string::npos) << stats::format_human(s);
}

}  // namespace
}  // namespace acs
