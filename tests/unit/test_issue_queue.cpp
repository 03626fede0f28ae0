// The issuing thread (issue_queue.hpp): what it issues, in which order, from which thread,
// and what the caller's own calls wait for.
#include "scheduler/issue_queue.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace acs {
namespace {

struct call {
  std::string what;
  std::uintptr_t a = 0, b = 0;
  std::thread::id thread;
};

// Records every call with its thread; pool-stream work is slow, so that a caller that does
// not wait for it overtakes it. Detaches kernels whose value is even.
class slow_backend final : public backend {
 public:
  std::chrono::microseconds latency{200};
  std::chrono::microseconds relayed_latency{0};  // a relayed launch (on an application stream)
  // While closed, a relayed launch waits for it to open: a test that checks what the lane has not
  // done yet holds the lane there, whatever the host's load (a latency alone can be outrun).
  std::atomic<bool> gate_open{true};
  backend_status fail_record = 0, fail_wait = 0, fail_detached = 0;
  int pending_queries = 0;  // queries answer `pending` this many times
  std::chrono::microseconds query_latency{0};

  std::vector<call> calls() const {
    std::lock_guard lock(mutex_);
    return calls_;
  }

  backend_status create_stream(stream_handle* out) override {
    *out = 100 + ++streams_;
    return 0;
  }
  backend_status create_event(event_handle* out) override {
    *out = 500 + ++events_;
    return 0;
  }
  backend_status record_event(event_handle e, stream_handle s) override {
    slow(s);
    note("record", e, s);
    return fail_record;
  }
  backend_status wait_event(stream_handle s, event_handle e) override {
    slow(s);
    note("wait", s, e);
    return fail_wait;
  }
  // Noted with 1 when it answers pending, 0 when complete.
  event_state query_event(event_handle e) override {
    std::this_thread::sleep_for(query_latency);
    std::unique_lock lock(mutex_);
    const bool pending = pending_queries-- > 0;
    lock.unlock();
    note("query", e, pending ? 1 : 0);
    return pending ? event_state::pending : event_state::complete;
  }
  backend_status synchronize(stream_handle s) override {
    note("sync", s, 0);
    return 0;
  }
  backend_status launch(const void* kernel, stream_handle s) override {
    note("launch", *static_cast<const int*>(kernel), s);
    return 0;
  }
  const void* detach(const void* kernel) override {
    const int k = *static_cast<const int*>(kernel);
    return k % 2 == 0 ? new int(k) : nullptr;
  }
  backend_status launch_detached(const void* kernel, stream_handle s) override {
    const std::unique_ptr<const int> k(static_cast<const int*>(kernel));
    slow(s);
    while (!gate_open.load()) std::this_thread::sleep_for(std::chrono::microseconds(50));
    if (s <= 100 || s >= 200) std::this_thread::sleep_for(relayed_latency);  // an application stream's
    note("launch", *k, s);
    return fail_detached;
  }
  // Graph replay (relay_graph): the update names each kernel's value, the launch its stream.
  // Given a list of changed nodes, only those are noted.
  backend_status graph_update(graph_handle exec, const graph_description& g) override {
    const std::size_t n = g.listed ? g.changed_count : g.node_count;
    for (std::size_t j = 0; j < n; ++j)
      note("update", exec, *static_cast<const int*>(g.kernels[g.listed ? g.changed[j] : j]));
    return exec == fail_update_of ? 1 : fail_update;
  }
  backend_status graph_launch(graph_handle exec, stream_handle s) override {
    std::this_thread::sleep_for(relayed_latency);
    note("graph_launch", exec, s);
    return fail_graph_launch;
  }
  void release_detached(const void* kernel) noexcept override {
    const std::unique_ptr<const int> k(static_cast<const int*>(kernel));
    note("release", *k, 0);
  }
  backend_status fail_update = 0, fail_graph_launch = 0;
  graph_handle fail_update_of = 0;  // this executable's updates fail
  void issuing_thread_started() noexcept override { note("started", 0, 0); }
  void destroy_stream(stream_handle s) noexcept override { note("destroy_stream", s, 0); }
  void destroy_event(event_handle e) noexcept override { note("destroy_event", e, 0); }

 private:
  void slow(stream_handle s) const {
    if (s > 100 && s < 200) std::this_thread::sleep_for(latency);  // pool streams only
  }
  void note(const char* what, std::uintptr_t a, std::uintptr_t b) {
    std::lock_guard lock(mutex_);
    calls_.push_back({what, a, b, std::this_thread::get_id()});
  }
  mutable std::mutex mutex_;
  std::vector<call> calls_;
  unsigned streams_ = 0, events_ = 0;
};

constexpr stream_handle app_stream = 7;

std::size_t index_of(const std::vector<call>& calls, const std::string& what, std::uintptr_t a, std::uintptr_t b) {
  for (std::size_t i = 0; i < calls.size(); ++i)
    if (calls[i].what == what && calls[i].a == a && calls[i].b == b) return i;
  return calls.size();
}

TEST(issue_queue, pool_work_is_issued_in_order_by_its_own_thread) {
  slow_backend gpu;
  std::vector<call> calls;
  {
    issue_queue q(gpu, 1, 1024, false);
    stream_handle p1 = 0, p2 = 0;
    event_handle e = 0;
    ASSERT_EQ(q.create_stream(&p1), 0);
    ASSERT_EQ(q.create_stream(&p2), 0);
    ASSERT_EQ(q.create_event(&e), 0);
    const int k0 = 0, k2 = 2, k4 = 4;
    EXPECT_EQ(q.launch(&k0, p1), 0);
    EXPECT_EQ(q.record_event(e, p1), 0);
    EXPECT_EQ(q.wait_event(p2, e), 0);
    EXPECT_EQ(q.launch(&k2, p2), 0);
    EXPECT_EQ(q.launch(&k4, p1), 0);
    q.drain();
    calls = gpu.calls();
    EXPECT_EQ(q.stats().deferred, 3u);
  }
  std::vector<std::string> pool_work;
  std::thread::id issuer;
  for (const call& c : calls) {
    if (c.what == "started") issuer = c.thread;
    if (c.what == "launch" || c.what == "record" || c.what == "wait") {
      pool_work.push_back(c.what + " " + std::to_string(c.a));
      EXPECT_EQ(c.thread, issuer) << c.what << " not issued by the issuing thread";
      EXPECT_NE(c.thread, std::this_thread::get_id());
    }
  }
  EXPECT_EQ(pool_work, (std::vector<std::string>{"launch 0", "record 501", "wait 102", "launch 2", "launch 4"}));
}

TEST(issue_queue, own_calls_wait_for_the_queued_calls_naming_their_event) {
  slow_backend gpu;
  issue_queue q(gpu, 1, 1024, false);
  stream_handle p = 0;
  event_handle e = 0, other = 0;
  ASSERT_EQ(q.create_stream(&p), 0);
  ASSERT_EQ(q.create_event(&e), 0);
  ASSERT_EQ(q.create_event(&other), 0);
  const int k = 0;
  for (int i = 0; i < 5; ++i) ASSERT_EQ(q.launch(&k, p), 0);
  ASSERT_EQ(q.record_event(e, p), 0);
  // A join: the application's stream waits for `e` at once, on this thread, after its record.
  ASSERT_EQ(q.wait_event(app_stream, e), 0);
  ASSERT_EQ(q.record_event(other, p), 0);
  (void)q.query_event(e);
  std::vector<call> calls = gpu.calls();
  const std::size_t record = index_of(calls, "record", e, p), join = index_of(calls, "wait", app_stream, e);
  ASSERT_LT(record, calls.size());
  ASSERT_LT(join, calls.size());
  EXPECT_LT(record, join);
  EXPECT_EQ(calls[join].thread, std::this_thread::get_id());
  q.drain();
  calls = gpu.calls();
  EXPECT_LT(index_of(calls, "query", e, 0), calls.size());
  EXPECT_LT(join, index_of(calls, "record", other, p));  // `other` was queued after the join: still pending then
}

TEST(issue_queue, a_record_on_an_application_stream_waits_for_the_queued_waits_on_its_event) {
  slow_backend gpu;
  issue_queue q(gpu, 1, 1024, false);
  stream_handle p = 0;
  event_handle fork = 0;
  ASSERT_EQ(q.create_stream(&p), 0);
  ASSERT_EQ(q.create_event(&fork), 0);
  ASSERT_EQ(q.wait_event(p, fork), 0);          // a pool stream waits on the fork event
  ASSERT_EQ(q.record_event(fork, app_stream), 0);  // re-recorded: must not overtake that wait
  const std::vector<call> calls = gpu.calls();
  EXPECT_LT(index_of(calls, "wait", p, fork), index_of(calls, "record", fork, app_stream));
}

TEST(issue_queue, a_lane_waits_for_another_lanes_record_of_the_event_it_waits_on) {
  slow_backend gpu;
  gpu.latency = std::chrono::microseconds(1000);
  issue_queue q(gpu, 2, 1024, false);
  stream_handle p0 = 0, p1 = 0;
  event_handle e = 0;
  ASSERT_EQ(q.create_stream(&p0), 0);  // lane 0
  ASSERT_EQ(q.create_stream(&p1), 0);  // lane 1
  ASSERT_EQ(q.create_event(&e), 0);
  const int k0 = 0, k2 = 2;
  ASSERT_EQ(q.launch(&k0, p0), 0);
  ASSERT_EQ(q.record_event(e, p0), 0);  // lane 0 is busy ~2 ms before it records
  ASSERT_EQ(q.wait_event(p1, e), 0);    // lane 1 is idle: it must still wait for that record
  ASSERT_EQ(q.launch(&k2, p1), 0);
  ASSERT_EQ(q.record_event(e, p1), 0);  // and a re-record on lane 1 after its own wait
  q.drain();
  const std::vector<call> calls = gpu.calls();
  const std::size_t record = index_of(calls, "record", e, p0), wait = index_of(calls, "wait", p1, e);
  ASSERT_LT(wait, calls.size());
  EXPECT_LT(record, wait);
  EXPECT_LT(wait, index_of(calls, "launch", 2, p1));
  EXPECT_NE(calls[record].thread, calls[wait].thread);
}

// [relay] Launches relayed for application streams (ACS_RELAY) are issued by lane 0's thread, in
// the order they were relayed, whatever their stream; a call the caller makes on an application
// stream (a record, a launch it cannot detach), and settle_relayed, come after every launch
// relayed before them, however slow those are.
TEST(issue_queue, relayed_launches_are_issued_in_order_before_the_callers_own_calls) {
  slow_backend gpu;
  gpu.relayed_latency = std::chrono::microseconds(500);
  issue_queue q(gpu, 2, 1024, false);
  event_handle e = 0;
  ASSERT_EQ(q.create_event(&e), 0);
  constexpr stream_handle other_app_stream = 9;
  const int k0 = 0, k2 = 2, k4 = 4, k6 = 6, k8 = 8, odd = 1;
  for (const int* k : {&k0, &k2, &k4}) ASSERT_EQ(q.relay(q.detach(k), app_stream), 0);
  ASSERT_EQ(q.relay(q.detach(&k6), other_app_stream), 0);
  ASSERT_EQ(q.record_event(e, app_stream), 0);  // made at once, after all four
  std::vector<call> calls = gpu.calls();
  const std::size_t record = index_of(calls, "record", e, app_stream);
  ASSERT_LT(record, calls.size());
  std::thread::id lane;
  std::vector<std::string> before;
  for (std::size_t i = 0; i < record; ++i) {
    if (calls[i].what == "started" && lane == std::thread::id{}) lane = calls[i].thread;
    if (calls[i].what != "launch") continue;
    before.push_back(std::to_string(calls[i].a) + "@" + std::to_string(calls[i].b));
    EXPECT_NE(calls[i].thread, std::this_thread::get_id()) << "a relayed launch made by the caller";
  }
  EXPECT_EQ(before, (std::vector<std::string>{"0@7", "2@7", "4@7", "6@9"}));
  EXPECT_EQ(calls[record].thread, std::this_thread::get_id());
  // A launch it cannot detach is made at once, after the relayed ones; so is settle_relayed.
  ASSERT_EQ(q.relay(q.detach(&k8), app_stream), 0);
  ASSERT_EQ(q.launch(&odd, app_stream), 0);
  calls = gpu.calls();
  EXPECT_LT(index_of(calls, "launch", 8, app_stream), index_of(calls, "launch", 1, app_stream));
  ASSERT_EQ(q.relay(q.detach(&k0), other_app_stream), 0);
  q.settle_relayed();
  calls = gpu.calls();
  EXPECT_LT(index_of(calls, "launch", 0, other_app_stream), calls.size());
  EXPECT_EQ(q.stats().relayed, 6u);
  EXPECT_EQ(q.stats().relayed_here, 0u);
}

// [relay] A replayed segment's graph (relay_graph, segment_replay.hpp) is updated and launched by
// lane 0's thread in the order of the relayed launches around it, and its kernels are released
// after its launch; the caller's own call on an application stream comes after it.
TEST(issue_queue, a_relayed_graph_is_updated_and_launched_by_lane_0_in_relay_order) {
  slow_backend gpu;
  gpu.relayed_latency = std::chrono::microseconds(500);
  issue_queue q(gpu, 2, 1024, false);
  event_handle e = 0;
  ASSERT_EQ(q.create_event(&e), 0);
  constexpr graph_handle exec = 42;
  const int k0 = 0, k2 = 2, k4 = 4, k6 = 6;
  gpu.gate_open = false;  // the lane stops at the first relayed launch until the check below
  ASSERT_EQ(q.relay(q.detach(&k0), app_stream), 0);
  const void* nodes[] = {q.detach(&k2), q.detach(&k4)};
  const graph_edge edges[] = {{0, 1}};
  ASSERT_EQ(q.relay_graph(exec, {nodes, 2, edges, 1}, app_stream), 0);
  ASSERT_EQ(q.relay(q.detach(&k6), app_stream), 0);
  // One snapshot: the lane may still record its first launch while the gate holds it.
  const std::vector<call> held = gpu.calls();
  EXPECT_EQ(index_of(held, "graph_launch", exec, app_stream), held.size())
      << "the caller waited for the lane: the graph cannot have been launched yet";
  gpu.gate_open = true;
  ASSERT_EQ(q.record_event(e, app_stream), 0);  // made at once, after all of them
  const std::vector<call> calls = gpu.calls();
  std::vector<std::string> order;
  for (const call& c : calls) {
    if (c.what == "started") continue;
    order.push_back(c.what + " " + std::to_string(c.a) + "@" + std::to_string(c.b));
    if (c.what != "record") {
      EXPECT_NE(c.thread, std::this_thread::get_id()) << c.what << " made by the caller";
    }
  }
  EXPECT_EQ(order, (std::vector<std::string>{"launch 0@7", "update 42@2", "update 42@4", "graph_launch 42@7",
                                              "release 2@0", "release 4@0", "launch 6@7", "record 501@7"}));
  EXPECT_EQ(q.stats().relayed_graphs, 1u);
  EXPECT_FALSE(q.broken());
}

// [relay] A relayed graph whose launch fails: lane 0 launches its kernels one by one on the
// stream, in their order, before anything queued after it, and the queue is broken (as for any
// failed queued call) so that the scheduler stops relying on it.
TEST(issue_queue, a_relayed_graph_that_fails_has_its_kernels_launched_in_order_instead) {
  slow_backend gpu;
  gpu.relayed_latency = std::chrono::microseconds(500);
  gpu.fail_graph_launch = 1;
  issue_queue q(gpu, 1, 1024, false);
  constexpr graph_handle exec = 42;
  const int k2 = 2, k4 = 4, k6 = 6, k8 = 8;
  const void* nodes[] = {q.detach(&k2), q.detach(&k4), q.detach(&k6)};
  ASSERT_EQ(q.relay_graph(exec, {nodes, 3, nullptr, 0}, app_stream), 0);
  ASSERT_EQ(q.relay(q.detach(&k8), app_stream), 0);
  q.drain();
  std::vector<std::string> launches;
  for (const call& c : gpu.calls()) {
    EXPECT_NE(c.what, "release") << "a kernel of the failed graph was dropped";
    if (c.what == "launch") launches.push_back(std::to_string(c.a) + "@" + std::to_string(c.b));
  }
  EXPECT_EQ(launches, (std::vector<std::string>{"2@7", "4@7", "6@7", "8@7"}));
  EXPECT_TRUE(q.broken());
  EXPECT_EQ(q.stats().failures, 1u);
}

// [relay] A relayed graph given its changed nodes (graph_changes, found on the caller's thread) has
// only those set by lane 0; every kernel is still released after the launch.
TEST(issue_queue, a_relayed_graph_sets_only_the_nodes_its_list_names) {
  slow_backend gpu;
  issue_queue q(gpu, 1, 1024, false);
  constexpr graph_handle exec = 42;
  const int k2 = 2, k4 = 4, k6 = 6;
  const void* nodes[] = {q.detach(&k2), q.detach(&k4), q.detach(&k6)};
  const std::uint32_t changed[] = {1};
  graph_description g{nodes, 3, nullptr, 0};
  g.listed = true;
  g.changed = changed;
  g.changed_count = 1;
  ASSERT_EQ(q.relay_graph(exec, g, app_stream), 0);
  q.drain();
  std::vector<std::string> order;
  for (const call& c : gpu.calls())
    if (c.what != "started") order.push_back(c.what + " " + std::to_string(c.a) + "@" + std::to_string(c.b));
  EXPECT_EQ(order, (std::vector<std::string>{"update 42@4", "graph_launch 42@7", "release 2@0", "release 4@0",
                                              "release 6@0"}));
  // An empty list (the same arguments again) sets no node: it is not "any node may have changed".
  const void* again[] = {q.detach(&k2), q.detach(&k4), q.detach(&k6)};
  graph_description same{again, 3, nullptr, 0};
  same.listed = true;
  ASSERT_EQ(q.relay_graph(exec, same, app_stream), 0);
  q.drain();
  const std::vector<call> calls = gpu.calls();
  EXPECT_EQ(std::count_if(calls.begin(), calls.end(), [](const call& c) { return c.what == "update"; }), 1);
  EXPECT_EQ(std::count_if(calls.begin(), calls.end(), [](const call& c) { return c.what == "graph_launch"; }), 2);
}

// [relay] Once the queue broke, no graph is launched: a failed update may have left an executable
// without arguments that the caller's comparison (graph_changes) took as set. A graph queued
// before the failure has its kernels launched one by one, in order; one relayed after it is
// refused at once (non-zero, nothing launched, the kernels still the caller's).
TEST(issue_queue, no_graph_is_launched_once_the_queue_broke) {
  slow_backend gpu;
  gpu.relayed_latency = std::chrono::microseconds(500);
  gpu.fail_update_of = 42;  // the second graph's update would succeed: only the broken queue stops it
  issue_queue q(gpu, 1, 1024, false);
  const int k2 = 2, k4 = 4, k6 = 6, k8 = 8;
  const void* first[] = {q.detach(&k2), q.detach(&k4)};
  ASSERT_EQ(q.relay(q.detach(&k8), app_stream), 0);  // the lane sleeps 500 µs in it
  ASSERT_EQ(q.relay_graph(42, {first, 2, nullptr, 0}, app_stream), 0);
  const void* second[] = {q.detach(&k6), q.detach(&k8)};
  ASSERT_FALSE(q.broken()) << "the lane was still in its first launch";
  ASSERT_EQ(q.relay_graph(43, {second, 2, nullptr, 0}, app_stream), 0);
  q.drain();
  ASSERT_TRUE(q.broken());
  std::vector<std::string> order;
  for (const call& c : gpu.calls())
    if (c.what == "launch" || c.what == "update" || c.what == "graph_launch")
      order.push_back(c.what + " " + std::to_string(c.a) + "@" + std::to_string(c.b));
  EXPECT_EQ(order, (std::vector<std::string>{"launch 8@7", "update 42@2", "update 42@4", "launch 2@7", "launch 4@7",
                                              "launch 6@7", "launch 8@7"}));
  EXPECT_EQ(q.stats().failures, 1u);
  const std::size_t before = gpu.calls().size();
  const void* third[] = {q.detach(&k2), q.detach(&k4)};
  EXPECT_NE(q.relay_graph(44, {third, 2, nullptr, 0}, app_stream), 0);
  EXPECT_EQ(gpu.calls().size(), before);
  for (const void* k : third) q.release_detached(k);  // still the caller's
}

// [relay] With lane 0 asleep and nothing queued, a relayed graph is made by the caller; a failure
// then returns its status, launches nothing, and leaves the kernels the caller's.
TEST(issue_queue, a_relayed_graph_finding_the_lane_asleep_is_made_by_the_caller) {
  slow_backend gpu;
  issue_queue q(gpu, 1, 1024, true);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // past the lane's spin: asleep
  constexpr graph_handle exec = 42;
  const int k2 = 2, k4 = 4;
  const void* nodes[] = {q.detach(&k2), q.detach(&k4)};
  ASSERT_EQ(q.relay_graph(exec, {nodes, 2, nullptr, 0}, app_stream), 0);
  std::vector<call> calls = gpu.calls();
  const std::size_t launched = index_of(calls, "graph_launch", exec, app_stream);
  ASSERT_LT(launched, calls.size()) << "made at once: it must be there already";
  EXPECT_EQ(calls[launched].thread, std::this_thread::get_id());
  EXPECT_LT(launched, index_of(calls, "release", 4, 0));
  EXPECT_EQ(q.stats().relayed_graphs, 0u);
  q.drain();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // asleep again
  gpu.fail_update = 1;
  const void* again[] = {q.detach(&k2), q.detach(&k4)};
  EXPECT_EQ(q.relay_graph(exec, {again, 2, nullptr, 0}, app_stream), 1);
  calls = gpu.calls();
  EXPECT_EQ(std::count_if(calls.begin(), calls.end(), [](const call& c) { return c.what == "graph_launch"; }), 1);
  for (const void* k : again) q.release_detached(k);  // still the caller's
  EXPECT_FALSE(q.broken());
}

// [relay] The record the relay is judged by (stream_mode_policy::relay_waits_per): a call that
// finds a relayed launch not yet issued (settle_relayed, drain) counts one wait; one that finds
// them all issued counts none.
TEST(issue_queue, a_call_that_waits_for_a_relayed_launch_counts_a_relay_wait) {
  slow_backend gpu;
  gpu.relayed_latency = std::chrono::microseconds(20000);
  issue_queue q(gpu, 1, 1024, false);
  const int k0 = 0, k2 = 2;  // even: the backend detaches them
  EXPECT_EQ(q.relay_counts().waited, 0u);
  ASSERT_EQ(q.relay(q.detach(&k0), app_stream), 0);
  q.settle_relayed();  // the launch takes 20 ms on the lane: this waits
  EXPECT_EQ(q.relay_counts().waited, 1u);
  q.settle_relayed();  // issued by now: no wait
  q.drain();
  EXPECT_EQ(q.relay_counts().waited, 1u);
  ASSERT_EQ(q.relay(q.detach(&k2), app_stream), 0);
  q.drain();  // a device-wide call behind a relayed launch waits too
  EXPECT_EQ(q.relay_counts().waited, 2u);
  EXPECT_EQ(q.relay_counts().relayed, 2u);
  EXPECT_EQ(q.stats().relay_waits, 2u);
}

// With issue_when_asleep (the default), a relayed launch that finds lane 0 asleep with nothing
// queued is made at once by the caller, which wakes the lane for the launches that follow.
TEST(issue_queue, a_relayed_launch_finding_the_lane_asleep_is_made_by_the_caller) {
  slow_backend gpu;
  issue_queue q(gpu, 1, 1024, true);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // past the lane's spin: asleep
  const int k0 = 0;
  ASSERT_EQ(q.relay(q.detach(&k0), app_stream), 0);
  const std::vector<call> calls = gpu.calls();
  const std::size_t launch = index_of(calls, "launch", 0, app_stream);
  ASSERT_LT(launch, calls.size()) << "made at once: it must be there already";
  EXPECT_EQ(calls[launch].thread, std::this_thread::get_id());
  EXPECT_EQ(q.stats().relayed_here, 1u);
  EXPECT_EQ(q.stats().relayed, 0u);
}

TEST(issue_queue, a_launch_it_cannot_detach_is_issued_at_once_after_the_queue) {
  slow_backend gpu;
  issue_queue q(gpu, 1, 1024, false);
  stream_handle p = 0;
  ASSERT_EQ(q.create_stream(&p), 0);
  const int deferred = 2, now = 3;
  ASSERT_EQ(q.launch(&deferred, p), 0);
  ASSERT_EQ(q.launch(&now, p), 0);
  const std::vector<call> calls = gpu.calls();  // no drain: the launch itself waited
  const std::size_t first = index_of(calls, "launch", 2, p), second = index_of(calls, "launch", 3, p);
  ASSERT_LT(second, calls.size());
  EXPECT_LT(first, second);
  EXPECT_EQ(calls[second].thread, std::this_thread::get_id());
  EXPECT_EQ(q.stats().inline_launches, 1u);
}

TEST(issue_queue, drain_returns_only_once_everything_queued_was_issued) {
  slow_backend gpu;
  gpu.latency = std::chrono::microseconds(2000);
  issue_queue q(gpu, 1, 1024, false);
  stream_handle p = 0;
  ASSERT_EQ(q.create_stream(&p), 0);
  const int k = 4;
  for (int i = 0; i < 4; ++i) ASSERT_EQ(q.launch(&k, p), 0);
  q.drain();
  std::size_t launches = 0;
  for (const call& c : gpu.calls()) launches += c.what == "launch";
  EXPECT_EQ(launches, 4u);
}

TEST(issue_queue, a_full_ring_makes_the_caller_wait_without_losing_calls) {
  slow_backend gpu;
  gpu.latency = std::chrono::microseconds(20);
  issue_queue q(gpu, 1, 4, false);
  stream_handle p = 0;
  ASSERT_EQ(q.create_stream(&p), 0);
  std::vector<int> kernels(64);
  for (int i = 0; i < 64; ++i) {
    kernels[i] = 2 * i;
    ASSERT_EQ(q.launch(&kernels[i], p), 0);
  }
  q.drain();
  std::vector<std::uintptr_t> order;
  for (const call& c : gpu.calls())
    if (c.what == "launch") order.push_back(c.a);
  ASSERT_EQ(order.size(), 64u);
  for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(order[i], 2 * i);
  EXPECT_GT(q.stats().waits, 0u);
}

TEST(issue_queue, a_failed_wait_is_stood_in_for_by_the_host_before_the_next_launch) {
  slow_backend gpu;
  gpu.fail_wait = 700;
  gpu.pending_queries = 3;
  issue_queue q(gpu, 1, 1024, false);
  stream_handle p = 0;
  event_handle e = 0;
  ASSERT_EQ(q.create_stream(&p), 0);
  ASSERT_EQ(q.create_event(&e), 0);
  const int k = 6;
  ASSERT_EQ(q.wait_event(p, e), 0);  // fails on the issuing thread
  ASSERT_EQ(q.launch(&k, p), 0);
  q.drain();
  EXPECT_TRUE(q.broken());
  EXPECT_EQ(q.stats().failures, 1u);
  const std::vector<call> calls = gpu.calls();
  std::size_t queries = 0, last_query = 0;
  for (std::size_t i = 0; i < calls.size(); ++i)
    if (calls[i].what == "query" && calls[i].a == e) ++queries, last_query = i;
  EXPECT_EQ(queries, 4u);  // until the event completed
  EXPECT_LT(last_query, index_of(calls, "launch", 6, p));
  // Once broken, launches are no longer deferred.
  const int later = 8;
  ASSERT_EQ(q.launch(&later, p), 0);
  EXPECT_EQ(gpu.calls().back().thread, std::this_thread::get_id());
}

// A failed wait holds up its own stream only: another stream of the same lane, whose next kernel
// the awaited work may spin for (docs/design.md rule 12), is issued before the host waits.
TEST(issue_queue, a_failed_wait_holds_up_its_own_stream_not_the_lanes_others) {
  slow_backend gpu;
  gpu.fail_wait = 700;
  gpu.pending_queries = 3;
  issue_queue q(gpu, 1, 1024, false);
  stream_handle p = 0, other = 0;
  event_handle e = 0;
  ASSERT_EQ(q.create_stream(&p), 0);
  ASSERT_EQ(q.create_stream(&other), 0);  // one lane: the same as p's
  ASSERT_EQ(q.create_event(&e), 0);
  const int setter = 4, k = 6;
  ASSERT_EQ(q.wait_event(p, e), 0);         // fails on the issuing thread
  ASSERT_EQ(q.launch(&setter, other), 0);   // not behind the failed wait
  ASSERT_EQ(q.launch(&k, p), 0);            // behind it: after the host saw the event complete
  q.drain();
  const std::vector<call> calls = gpu.calls();
  std::size_t first_query = calls.size(), last_query = 0;
  for (std::size_t i = 0; i < calls.size(); ++i)
    if (calls[i].what == "query" && calls[i].a == e) first_query = std::min(first_query, i), last_query = i;
  ASSERT_LT(first_query, calls.size());
  EXPECT_LT(index_of(calls, "launch", setter, other), first_query) << "the lane waited before the other stream's kernel";
  EXPECT_LT(last_query, index_of(calls, "launch", k, p));
}

// A failed wait's event recorded again before its stream's next work: the stand-in must wait for
// the record the wait was for, so the host waits before the new record is made (it would
// otherwise find the event naming the new record, and the lagging stream's next kernel could start
// before the old one ended: the random programs' seed 9027124 with two lanes).
TEST(issue_queue, a_failed_waits_event_is_recorded_again_only_after_the_host_saw_the_old_record) {
  slow_backend gpu;
  gpu.fail_wait = 700;
  gpu.pending_queries = 3;
  issue_queue q(gpu, 1, 1024, false);
  stream_handle p = 0, other = 0;
  event_handle e = 0;
  ASSERT_EQ(q.create_stream(&p), 0);
  ASSERT_EQ(q.create_stream(&other), 0);
  ASSERT_EQ(q.create_event(&e), 0);
  const int k = 6;
  ASSERT_EQ(q.wait_event(p, e), 0);    // fails on the issuing thread
  ASSERT_EQ(q.record_event(e, other), 0);  // e recorded again, on another stream
  ASSERT_EQ(q.launch(&k, p), 0);       // must follow the record the wait was for
  q.drain();
  const std::vector<call> calls = gpu.calls();
  std::size_t queries = 0, last_query = 0;
  for (std::size_t i = 0; i < calls.size(); ++i)
    if (calls[i].what == "query" && calls[i].a == e) ++queries, last_query = i;
  EXPECT_EQ(queries, 4u);  // waited for once, until complete
  EXPECT_LT(last_query, index_of(calls, "record", e, other)) << "the event was recorded again before the host saw it done";
  EXPECT_LT(last_query, index_of(calls, "launch", k, p));
}

// The same across two lanes: lane 0 waits on the host for the failed wait's event before its
// stream's next kernel while lane 1 comes to record the event again. A lag leaves the list only
// once waited for, so neither goes on before a query saw the old record complete: taken off the
// list first, the thread that did not take it (either lane, by timing) went on at once.
TEST(issue_queue, a_lag_waited_for_on_one_lane_holds_up_a_record_of_its_event_on_another) {
  slow_backend gpu;
  gpu.fail_wait = 700;
  gpu.pending_queries = 5;
  gpu.query_latency = std::chrono::microseconds(1000);
  issue_queue q(gpu, 2, 1024, false);
  stream_handle p = 0, other = 0;
  event_handle e = 0;
  ASSERT_EQ(q.create_stream(&p), 0);      // lane 0
  ASSERT_EQ(q.create_stream(&other), 0);  // lane 1
  ASSERT_EQ(q.create_event(&e), 0);
  const int k = 6;
  ASSERT_EQ(q.wait_event(p, e), 0);        // fails on lane 0
  ASSERT_EQ(q.launch(&k, p), 0);           // lane 0 waits on the host first
  ASSERT_EQ(q.record_event(e, other), 0);  // lane 1, once lane 0 issued the wait
  q.drain();
  const std::vector<call> calls = gpu.calls();
  const std::size_t complete = index_of(calls, "query", e, 0);
  ASSERT_LT(complete, calls.size()) << "no query saw the event complete";
  EXPECT_LT(complete, index_of(calls, "launch", k, p));
  EXPECT_LT(complete, index_of(calls, "record", e, other)) << "the event was recorded again before the old record was seen done";
}

TEST(issue_queue, with_nothing_queued_and_the_thread_asleep_the_caller_issues_at_once) {
  slow_backend gpu;
  issue_queue q(gpu);
  stream_handle p = 0;
  ASSERT_EQ(q.create_stream(&p), 0);
  const int k = 12;
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the thread spins ~0.2 ms, then sleeps
  ASSERT_EQ(q.launch(&k, p), 0);
  const std::vector<call> calls = gpu.calls();
  ASSERT_EQ(calls.back().what, "launch");  // issued before launch() returned
  EXPECT_EQ(calls.back().thread, std::this_thread::get_id());
  EXPECT_EQ(q.stats().deferred, 0u);
}

// A record that fails on the issuing thread: the lane does not wait for its stream then (a
// kernel there may spin until one queued after it has run, docs/design.md rule 12); it issues
// what comes next. The event reads pending; the caller's wait on it fails, for the scheduler to
// join another way; a lane's wait on it has the host wait for the record's stream instead, each
// time, until the event is recorded again.
TEST(issue_queue, a_failed_record_is_stood_in_for_only_when_its_event_is_waited_for) {
  slow_backend gpu;
  gpu.fail_record = 700;
  issue_queue q(gpu, 2, 1024, false);
  stream_handle p = 0, p2 = 0;
  event_handle e = 0;
  ASSERT_EQ(q.create_stream(&p), 0);   // lane 0
  ASSERT_EQ(q.create_stream(&p2), 0);  // lane 1
  ASSERT_EQ(q.create_event(&e), 0);
  const int k = 10, after = 12, behind = 14;
  ASSERT_EQ(q.launch(&k, p), 0);
  ASSERT_EQ(q.record_event(e, p), 0);  // fails on the issuing thread
  ASSERT_EQ(q.launch(&after, p), 0);   // what a kernel before the record might spin for
  q.drain();
  EXPECT_TRUE(q.broken());
  gpu.fail_record = 0;
  std::vector<call> calls = gpu.calls();
  EXPECT_EQ(index_of(calls, "sync", p, 0), calls.size()) << "the lane waited for the stream at the failed record";
  EXPECT_LT(index_of(calls, "record", e, p), index_of(calls, "launch", after, p));
  EXPECT_EQ(q.query_event(e), event_state::pending);
  EXPECT_NE(q.wait_event(app_stream, e), 0) << "the caller's wait on a failed record must fail";
  calls = gpu.calls();
  EXPECT_EQ(index_of(calls, "wait", app_stream, e), calls.size());
  ASSERT_EQ(q.record_event(e, p), 0);  // recorded again: an ordinary event
  q.drain();
  ASSERT_EQ(q.wait_event(app_stream, e), 0);
  ASSERT_EQ(q.launch(&behind, p2), 0);
  calls = gpu.calls();
  EXPECT_LT(index_of(calls, "wait", app_stream, e), calls.size());
  EXPECT_EQ(q.query_event(e), event_state::complete);
}

// A lane's queued wait on an event whose record failed on another lane: the host waits for the
// record's stream before the waiting stream's next kernel, and the wait itself is not made.
TEST(issue_queue, a_lanes_wait_on_a_failed_record_waits_for_its_stream_on_the_host) {
  slow_backend gpu;
  gpu.fail_record = 700;
  issue_queue q(gpu, 2, 1024, false);
  stream_handle p = 0, p2 = 0;
  event_handle e = 0;
  ASSERT_EQ(q.create_stream(&p), 0);   // lane 0
  ASSERT_EQ(q.create_stream(&p2), 0);  // lane 1
  ASSERT_EQ(q.create_event(&e), 0);
  const int k = 10, next = 12;
  ASSERT_EQ(q.launch(&k, p), 0);
  ASSERT_EQ(q.record_event(e, p), 0);  // fails on lane 0
  ASSERT_EQ(q.wait_event(p2, e), 0);   // queued on lane 1, after lane 0's record
  ASSERT_EQ(q.launch(&next, p2), 0);
  q.drain();
  const std::vector<call> calls = gpu.calls();
  const std::size_t sync = index_of(calls, "sync", p, 0);
  ASSERT_LT(sync, calls.size()) << "the wait was not stood in for";
  EXPECT_LT(index_of(calls, "record", e, p), sync);
  EXPECT_LT(sync, index_of(calls, "launch", next, p2));
  EXPECT_EQ(index_of(calls, "wait", p2, e), calls.size()) << "a wait on the failed record was made";
  EXPECT_TRUE(q.broken());
}

}  // namespace
}  // namespace acs
