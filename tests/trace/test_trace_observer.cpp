// The dispatch observer: brackets each pool launch with an external
// correlation id, and keeps the scheduler's decisions. Checked with counting
// hooks, alone and on a real scheduler over a backend that records which
// correlation id was pushed while each launch was enqueued.
#include <gtest/gtest.h>

#include <vector>

#include "scheduler/scheduler.hpp"
#include "src/trace/join.hpp"
#include "src/trace/observer.hpp"

namespace acs::trace {
namespace {

struct fake_cupti {
  static inline std::vector<std::uint64_t> stack;  // this thread's pushed ids
  static inline std::vector<std::uint64_t> pushes;
  static inline int pops = 0;
  static inline bool refuse = false;
  static inline std::uint64_t clock = 0;

  static void reset() {
    stack.clear();
    pushes.clear();
    pops = 0;
    refuse = false;
    clock = 0;
  }
  static bool push(std::uint64_t id) noexcept {
    if (refuse) return false;
    stack.push_back(id);
    pushes.push_back(id);
    return true;
  }
  static void pop() noexcept {
    ++pops;
    if (!stack.empty()) stack.pop_back();
  }
  static std::uint64_t now() noexcept { return clock += 10; }
  static correlation_hooks hooks() { return {&push, &pop, &now}; }
};

class trace_observer : public ::testing::Test {
 protected:
  void SetUp() override { fake_cupti::reset(); }
};

TEST_F(trace_observer, brackets_push_the_tagged_launch_id_and_pop_it) {
  observer o(3, 0, fake_cupti::hooks());
  o.before_launch(42);
  EXPECT_EQ(fake_cupti::stack, (std::vector<std::uint64_t>{external_id(3, 42)}));
  o.after_launch(42, 0);
  EXPECT_TRUE(fake_cupti::stack.empty());
  EXPECT_EQ(fake_cupti::pops, 1);
}

TEST_F(trace_observer, a_failed_launch_still_pops) {
  observer o(1, 0, fake_cupti::hooks());
  o.before_launch(1);
  o.after_launch(1, 700);  // cudaErrorLaunchFailure
  EXPECT_EQ(fake_cupti::pops, 1);
  snapshot s;
  o.copy_into(s);
  EXPECT_TRUE(s.dispatches.empty());  // dispatched() is only called on success
}

TEST_F(trace_observer, a_refused_push_is_never_matched_by_a_pop) {
  observer o(1, 0, fake_cupti::hooks());
  fake_cupti::refuse = true;
  o.before_launch(1);
  o.after_launch(1, 0);
  EXPECT_EQ(fake_cupti::pops, 0);
  fake_cupti::refuse = false;
  o.before_launch(2);  // the bracket state was restored
  o.after_launch(2, 0);
  EXPECT_EQ(fake_cupti::pops, 1);
}

TEST_F(trace_observer, an_unmatched_after_launch_pops_nothing) {
  observer o(1, 0, fake_cupti::hooks());
  o.after_launch(1, 0);
  EXPECT_EQ(fake_cupti::pops, 0);
}

TEST_F(trace_observer, dispatched_records_keep_streams_waits_window_and_time) {
  observer o(2, 1, fake_cupti::hooks());
  const std::uint64_t waits[] = {3, 4};
  o.dispatched({7, 0xbeef, 5, 0x1234, waits, 2, 9});
  snapshot s;
  o.copy_into(s);
  ASSERT_EQ(s.dispatches.size(), 1u);
  const dispatch_entry& e = s.dispatches[0];
  EXPECT_EQ(e.external, external_id(2, 7));
  EXPECT_EQ(e.vstream, 0xbeefu);
  EXPECT_EQ(e.device, 1u);
  EXPECT_EQ(e.pool_stream, 5u);
  EXPECT_EQ(e.window_size, 9u);
  EXPECT_EQ(e.host_ns, 10u);
  ASSERT_EQ(e.waited_count, 2u);
  EXPECT_EQ(s.waited[e.waited_offset], external_id(2, 3));
  EXPECT_EQ(s.waited[e.waited_offset + 1], external_id(2, 4));
}

TEST_F(trace_observer, snapshots_of_several_observers_keep_their_waits_apart) {
  observer a(1, 0, fake_cupti::hooks()), b(2, 1, fake_cupti::hooks());
  const std::uint64_t wa[] = {1};
  const std::uint64_t wb[] = {1, 2};
  a.dispatched({2, 1, 0, 0, wa, 1, 2});
  b.dispatched({3, 1, 0, 0, wb, 2, 3});
  snapshot s;
  a.copy_into(s);
  b.copy_into(s);
  ASSERT_EQ(s.dispatches.size(), 2u);
  const dispatch_entry& eb = s.dispatches[1];
  ASSERT_EQ(eb.waited_count, 2u);
  EXPECT_EQ(s.waited[eb.waited_offset], external_id(2, 1));
  EXPECT_EQ(s.waited[eb.waited_offset + 1], external_id(2, 2));
  EXPECT_EQ(s.waited[s.dispatches[0].waited_offset], external_id(1, 1));
}

TEST_F(trace_observer, entries_past_the_cap_are_counted_as_dropped) {
  observer o(1, 0, fake_cupti::hooks(), 2);
  for (std::uint64_t i = 1; i <= 5; ++i) o.dispatched({i, 1, 0, 0, nullptr, 0, 1});
  snapshot s;
  o.copy_into(s);
  EXPECT_EQ(s.dispatches.size(), 2u);
  EXPECT_EQ(s.dropped, 3u);
}

// A backend that notes which correlation id was pushed during each launch.
class bracket_backend final : public backend {
 public:
  std::vector<std::uint64_t> id_during_launch;
  backend_status create_stream(stream_handle* out) override {
    *out = 1000 + ++streams_;
    return 0;
  }
  backend_status create_event(event_handle* out) override {
    *out = 5000 + ++events_;
    return 0;
  }
  backend_status record_event(event_handle, stream_handle) override { return 0; }
  backend_status wait_event(stream_handle, event_handle) override { return 0; }
  event_state query_event(event_handle) override { return event_state::pending; }
  backend_status synchronize(stream_handle) override { return 0; }
  backend_status launch(const void*, stream_handle) override {
    id_during_launch.push_back(fake_cupti::stack.empty() ? 0 : fake_cupti::stack.back());
    return 0;
  }
  void destroy_stream(stream_handle) noexcept override {}
  void destroy_event(event_handle) noexcept override {}

 private:
  unsigned streams_ = 0, events_ = 0;
};

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

TEST_F(trace_observer, on_a_scheduler_every_launch_is_tagged_and_dependencies_are_the_schedulers) {
  bracket_backend gpu;
  scheduler sched(gpu, {32, 4});
  observer o(1, 0, fake_cupti::hooks());
  sched.set_observer(&o);
  const virtual_stream vs{77, 77, stream_kind::non_blocking};
  const void* k = reinterpret_cast<const void*>(std::uintptr_t{1});
  ASSERT_EQ(sched.launch(vs, rw(0, 100), k), 0);    // a: writes [0,100)
  ASSERT_EQ(sched.launch(vs, rw(200, 100), k), 0);  // b: independent of a
  ASSERT_EQ(sched.launch(vs, rd(0, 300), k), 0);    // c: reads what a and b wrote
  sched.set_observer(nullptr);
  ASSERT_EQ(sched.launch(vs, rw(400, 10), k), 0);  // not observed

  // Pool launches were enqueued with their own id pushed, the last with none.
  ASSERT_EQ(gpu.id_during_launch.size(), 4u);
  EXPECT_EQ(gpu.id_during_launch[0], external_id(1, 1));
  EXPECT_EQ(gpu.id_during_launch[1], external_id(1, 2));
  EXPECT_EQ(gpu.id_during_launch[2], external_id(1, 3));
  EXPECT_EQ(gpu.id_during_launch[3], 0u);
  EXPECT_TRUE(fake_cupti::stack.empty());

  snapshot s;
  o.copy_into(s);
  ASSERT_EQ(s.dispatches.size(), 3u);
  EXPECT_EQ(s.dispatches[0].waited_count, 0u);
  EXPECT_EQ(s.dispatches[1].waited_count, 0u);
  const dispatch_entry& c = s.dispatches[2];
  std::vector<std::uint64_t> waits(s.waited.begin() + c.waited_offset,
                                   s.waited.begin() + c.waited_offset + c.waited_count);
  std::sort(waits.begin(), waits.end());
  EXPECT_EQ(waits, (std::vector<std::uint64_t>{external_id(1, 1), external_id(1, 2)}));
  EXPECT_EQ(c.window_size, 3u);
  EXPECT_EQ(c.vstream, 77u);
  EXPECT_NE(s.dispatches[0].pool_stream, s.dispatches[1].pool_stream);  // independent: spread
}

}  // namespace
}  // namespace acs::trace
