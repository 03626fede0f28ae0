// Graph replay (graph_replay.hpp): what a segment is, what flushes it, when a shape becomes a
// graph, update versus rebuild, the cache's eviction, the idle flush, and the order a graph
// launch keeps with the work around it. The inner backend records every call.
#include "scheduler/graph_replay.hpp"

#include <chrono>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace acs {
namespace {

// A kernel: `function` < 0 cannot be detached; 99 cannot be described (a launch attribute).
struct fake_kernel {
  int function = 0;
  int arg = 0;
};

class recording_backend final : public backend {
 public:
  bool graphs = true;
  backend_status fail_instantiate = 0, fail_update = 0, fail_graph_launch = 0;
  unsigned fail_records = 0;  // this many next records fail
  unsigned fail_records_after_graph = 0;  // a graph launch sets fail_records to this

  std::vector<std::string> calls() const {
    std::lock_guard lock(mutex_);
    return calls_;
  }
  void clear() {
    std::lock_guard lock(mutex_);
    calls_.clear();
  }
  long live_copies() const {
    std::lock_guard lock(mutex_);
    return live_;
  }

  backend_status create_stream(stream_handle* out) override {
    *out = 100 + ++streams_;
    note("create_stream " + std::to_string(*out));
    return 0;
  }
  backend_status create_event(event_handle* out) override {
    *out = 500 + ++events_;
    note("create_event " + std::to_string(*out));
    return 0;
  }
  backend_status record_event(event_handle e, stream_handle s) override {
    note("record " + std::to_string(e) + " on " + std::to_string(s));
    if (fail_records == 0) return 0;
    --fail_records;
    return 700;
  }
  backend_status wait_event(stream_handle s, event_handle e) override {
    note("wait " + std::to_string(s) + " for " + std::to_string(e));
    return 0;
  }
  event_state query_event(event_handle e) override {
    note("query " + std::to_string(e));
    return event_state::complete;
  }
  backend_status synchronize(stream_handle s) override {
    note("sync " + std::to_string(s));
    return 0;
  }
  backend_status launch(const void* kernel, stream_handle s) override {
    note("launch " + text(kernel) + " on " + std::to_string(s));
    return 0;
  }
  const void* detach(const void* kernel) override {
    const auto& k = *static_cast<const fake_kernel*>(kernel);
    if (k.function < 0) return nullptr;
    std::lock_guard lock(mutex_);
    ++live_;
    return new fake_kernel(k);
  }
  backend_status launch_detached(const void* kernel, stream_handle s) override {
    note("launch " + text(kernel) + " on " + std::to_string(s));
    release_detached(kernel);
    return 0;
  }
  bool describe(const void* kernel, kernel_identity* out) override {
    const auto& k = *static_cast<const fake_kernel*>(kernel);
    if (!graphs || k.function == 99) return false;
    *out = kernel_identity{{static_cast<std::uint64_t>(k.function), 0, 0, 0}};
    return true;
  }
  backend_status graph_instantiate(const graph_description& g, graph_handle* out) override {
    note("instantiate " + describe_graph(g));
    if (fail_instantiate != 0) return fail_instantiate;
    *out = 900 + ++graphs_made_;
    return 0;
  }
  backend_status graph_update(graph_handle exec, const graph_description& g) override {
    note("update " + std::to_string(exec) + " " + describe_graph(g));
    return fail_update;
  }
  backend_status graph_launch(graph_handle exec, stream_handle s) override {
    note("graph_launch " + std::to_string(exec) + " on " + std::to_string(s));
    if (fail_graph_launch == 0) fail_records = fail_records_after_graph;
    return fail_graph_launch;
  }
  void graph_destroy(graph_handle exec) noexcept override { note("graph_destroy " + std::to_string(exec)); }
  void release_detached(const void* kernel) noexcept override {
    delete static_cast<const fake_kernel*>(kernel);
    std::lock_guard lock(mutex_);
    --live_;
  }
  void destroy_stream(stream_handle s) noexcept override { note("destroy_stream " + std::to_string(s)); }
  void destroy_event(event_handle e) noexcept override { note("destroy_event " + std::to_string(e)); }

 private:
  static std::string text(const void* kernel) {
    const auto& k = *static_cast<const fake_kernel*>(kernel);
    return "f" + std::to_string(k.function) + "(" + std::to_string(k.arg) + ")";
  }
  static std::string describe_graph(const graph_description& g) {
    std::ostringstream out;
    out << "[";
    for (std::size_t i = 0; i < g.node_count; ++i) out << (i ? " " : "") << text(g.kernels[i]);
    out << "]";
    for (std::size_t i = 0; i < g.edge_count; ++i) out << " " << g.edges[i].from << "->" << g.edges[i].to;
    return out.str();
  }
  void note(std::string s) {
    std::lock_guard lock(mutex_);
    calls_.push_back(std::move(s));
  }
  mutable std::mutex mutex_;
  std::vector<std::string> calls_;
  unsigned streams_ = 0, events_ = 0, graphs_made_ = 0;
  long live_ = 0;
};

using strings = std::vector<std::string>;

graph_replay_config no_idle(unsigned after = 2, unsigned cache = 8) {
  return {.after = after, .cache = cache, .max_segment = 256, .idle = std::chrono::microseconds(0)};
}

struct fixture {
  explicit fixture(graph_replay_config c = no_idle()) : replay(inner, c) {
    for (stream_handle& s : pool) replay.create_stream(&s);  // 101, 102
    inner.clear();
  }
  // Two kernels on pool stream 101, the second after a kernel on 102 through event 7.
  void two_stream_segment(int arg, int function = 1) {
    const fake_kernel a{function, arg}, b{2, arg}, c{3, arg};
    replay.launch(&a, pool[1]);
    replay.record_event(7, pool[1]);
    replay.launch(&b, pool[0]);
    replay.wait_event(pool[0], 7);
    replay.launch(&c, pool[0]);
  }
  recording_backend inner;
  graph_replay replay;
  stream_handle pool[2] = {};
};

TEST(graph_replay, first_occurrence_is_replayed_call_by_call_in_order) {
  fixture f;
  f.two_stream_segment(1);
  EXPECT_TRUE(f.inner.calls().empty()) << "buffered until a flush";
  f.replay.flush();
  EXPECT_EQ(f.inner.calls(), (strings{"launch f1(1) on 102", "record 7 on 102", "launch f2(1) on 101",
                                      "wait 101 for 7", "launch f3(1) on 101"}));
  EXPECT_EQ(f.replay.stats().call_by_call, 1u);
  EXPECT_EQ(f.replay.stats().plain[static_cast<unsigned>(plain_cause::new_shape)], 1u);
  EXPECT_EQ(f.replay.stats().built, 0u);
  EXPECT_EQ(f.inner.live_copies(), 0);
}

// A record that fails while a segment is replayed call by call: the host does not wait for its
// stream then (a kernel there may spin until one later in the segment has run, docs/design.md
// rule 12). The event reads pending; the segment's own wait on it has the host wait for the
// stream first; a wait after the segment fails, for the scheduler to join another way; a record
// that succeeds ends it.
TEST(graph_replay, a_failed_record_is_stood_in_for_only_when_its_event_is_waited_for) {
  fixture f;
  f.inner.fail_records = 1;
  const fake_kernel a{1, 0}, b{2, 0}, c{3, 0};
  f.replay.launch(&a, f.pool[1]);
  f.replay.record_event(7, f.pool[1]);  // fails when replayed
  f.replay.launch(&b, f.pool[0]);        // the kernel the one on 102 might spin for
  f.replay.flush();
  EXPECT_EQ(f.inner.calls(), (strings{"launch f1(0) on 102", "record 7 on 102", "launch f2(0) on 101"}))
      << "the host waited for 102 before the rest of the segment was issued";
  EXPECT_TRUE(f.replay.broken());
  EXPECT_EQ(f.replay.query_event(7), event_state::pending);
  f.inner.clear();
  EXPECT_NE(f.replay.wait_event(300, 7), 0) << "a wait outside the segment on the failed record must fail";
  EXPECT_TRUE(f.inner.calls().empty());
  // Broken, the replay passes calls through: a pool stream's wait fails the same way, until the
  // event is recorded again.
  f.replay.launch(&c, f.pool[0]);
  EXPECT_NE(f.replay.wait_event(f.pool[0], 7), 0);
  ASSERT_EQ(f.replay.record_event(7, f.pool[0]), 0);
  EXPECT_EQ(f.replay.wait_event(300, 7), 0);
  EXPECT_EQ(f.inner.calls(), (strings{"launch f3(0) on 101", "record 7 on 101", "wait 300 for 7"}));
  EXPECT_EQ(f.replay.query_event(7), event_state::complete);
}

// Within a segment, a wait on an event whose record failed has the host wait for the record's
// stream before the wait's stream goes on: later than needed, never earlier.
TEST(graph_replay, a_wait_in_the_segment_on_a_failed_record_waits_for_its_stream_on_the_host) {
  fixture f;
  f.inner.fail_records = 1;
  f.two_stream_segment(1);
  f.replay.flush();
  EXPECT_EQ(f.inner.calls(), (strings{"launch f1(1) on 102", "record 7 on 102", "launch f2(1) on 101", "sync 102",
                                      "launch f3(1) on 101"}));
  EXPECT_EQ(f.replay.stats().failures, 1u);
}

// The records after a graph's launch fail (its events, and the one the other stream waits on):
// the host does not wait for the graph then, which may hold a kernel spinning until one the
// program launches later has run. The other stream's next call waits for it on the host first,
// and a wait on the graph's event fails, for the scheduler to join another way.
TEST(graph_replay, failed_records_after_a_graph_are_stood_in_for_where_their_order_is_needed) {
  fixture f(no_idle(1));
  f.inner.fail_records_after_graph = 2;
  f.two_stream_segment(1);
  f.replay.flush();
  strings calls = f.inner.calls();
  ASSERT_EQ(f.replay.stats().replays, 1u);
  EXPECT_TRUE(f.replay.broken());
  for (const std::string& c : calls) EXPECT_EQ(c.rfind("sync", 0), std::string::npos) << "the host waited at once: " << c;
  EXPECT_EQ(f.replay.query_event(7), event_state::pending);
  EXPECT_NE(f.replay.wait_event(300, 7), 0);
  f.inner.clear();
  const fake_kernel next{4, 0};
  f.replay.launch(&next, f.pool[0]);  // 101 did not come to wait for the graph on 102
  EXPECT_EQ(f.inner.calls(), (strings{"sync 102", "launch f4(0) on 101"}));
  f.inner.clear();
  f.replay.launch(&next, f.pool[0]);
  EXPECT_EQ(f.inner.calls(), (strings{"launch f4(0) on 101"})) << "waited for twice";
}

// The second occurrence is built and launched; the third updates the executable in place. The
// launch keeps the segment's order: the launch stream (102, its first kernel's) waits for
// 101's earlier work, the events recorded in the segment are recorded again after the graph,
// and 101 waits for the graph.
TEST(graph_replay, recurring_shape_is_built_once_then_updated) {
  fixture f;
  f.two_stream_segment(1);
  f.replay.flush();
  f.inner.clear();
  f.two_stream_segment(2);
  f.replay.flush();
  EXPECT_EQ(f.inner.calls(), (strings{"instantiate [f1(2) f2(2) f3(2)] 0->2 1->2", "create_event 501",
                                      "record 501 on 101", "wait 102 for 501", "graph_launch 901 on 102",
                                      "record 7 on 102", "record 501 on 102", "wait 101 for 501"}));
  f.inner.clear();
  f.two_stream_segment(3);
  f.replay.flush();
  EXPECT_EQ(f.inner.calls(), (strings{"update 901 [f1(3) f2(3) f3(3)] 0->2 1->2", "record 501 on 101",
                                      "wait 102 for 501", "graph_launch 901 on 102", "record 7 on 102",
                                      "record 501 on 102", "wait 101 for 501"}));
  const graph_replay_stats s = f.replay.stats();
  EXPECT_EQ(s.built, 1u);
  EXPECT_EQ(s.replays, 2u);
  EXPECT_EQ(s.updates, 1u);
  EXPECT_EQ(s.call_by_call, 1u);
  EXPECT_EQ(f.inner.live_copies(), 0) << "every detached copy launched or released";
}

TEST(graph_replay, another_function_or_edge_is_another_shape) {
  fixture f;
  f.two_stream_segment(1, 1);
  f.replay.flush();
  f.two_stream_segment(1, 4);  // another function first
  f.replay.flush();
  const fake_kernel a{1, 0}, b{2, 0}, c{3, 0};  // the same kernels, without the edge
  f.replay.launch(&a, f.pool[1]);
  f.replay.launch(&b, f.pool[0]);
  f.replay.launch(&c, f.pool[0]);
  f.replay.flush();
  EXPECT_EQ(f.replay.stats().built, 0u);
  EXPECT_EQ(f.replay.stats().call_by_call, 3u);
  f.two_stream_segment(1, 4);  // recurs: built
  f.replay.flush();
  EXPECT_EQ(f.replay.stats().built, 1u);
}

// After=1 builds at first sight. A cache of 2: A, B, A, C evicts B (the least recent), whose
// next occurrence is built again.
TEST(graph_replay, lru_eviction_destroys_the_least_recently_used_executable) {
  fixture f{no_idle(1, 2)};
  for (int function : {1, 4, 1, 5}) {
    f.two_stream_segment(0, function);
    f.replay.flush();
  }
  EXPECT_EQ(f.replay.stats().evictions, 1u);
  const strings calls = f.inner.calls();
  EXPECT_NE(std::find(calls.begin(), calls.end(), "graph_destroy 902"), calls.end()) << "B's executable";
  EXPECT_EQ(std::find(calls.begin(), calls.end(), "graph_destroy 901"), calls.end()) << "A was used since";
  f.two_stream_segment(0, 4);
  f.replay.flush();
  EXPECT_EQ(f.replay.stats().built, 4u);
  EXPECT_EQ(f.replay.stats().updates, 1u);
}

TEST(graph_replay, failed_update_rebuilds_and_failed_build_or_launch_goes_call_by_call) {
  fixture f{no_idle(1)};
  f.two_stream_segment(0);
  f.replay.flush();
  f.inner.fail_update = 1;
  f.inner.clear();
  f.two_stream_segment(1);
  f.replay.flush();
  strings calls = f.inner.calls();
  ASSERT_GE(calls.size(), 3u);
  EXPECT_EQ(calls[1], "graph_destroy 901");
  EXPECT_EQ(calls[2], "instantiate [f1(1) f2(1) f3(1)] 0->2 1->2");
  EXPECT_EQ(f.replay.stats().built, 2u);

  f.inner.fail_update = 1;
  f.inner.fail_instantiate = 1;
  f.inner.clear();
  f.two_stream_segment(2);
  f.replay.flush();
  calls = f.inner.calls();
  EXPECT_EQ(strings(calls.end() - 5, calls.end()), (strings{"launch f1(2) on 102", "record 7 on 102",
                                                            "launch f2(2) on 101", "wait 101 for 7",
                                                            "launch f3(2) on 101"}));
  f.inner.fail_instantiate = 0;
  f.inner.fail_graph_launch = 1;
  f.two_stream_segment(3);
  f.replay.flush();
  calls = f.inner.calls();
  EXPECT_EQ(calls.back(), "launch f3(3) on 101") << "the graph did not run: its calls are made one by one";
  EXPECT_FALSE(f.replay.broken());
  EXPECT_EQ(f.inner.live_copies(), 0);
}

// Waits on events recorded before the segment are made on the launch stream before the graph.
TEST(graph_replay, waits_on_older_events_precede_the_graph_launch) {
  fixture f{no_idle(1)};
  const fake_kernel a{1, 0}, b{2, 0};
  f.replay.launch(&a, f.pool[0]);
  f.replay.wait_event(f.pool[0], 42);
  f.replay.launch(&b, f.pool[0]);
  f.replay.flush();
  EXPECT_EQ(f.inner.calls(), (strings{"instantiate [f1(0) f2(0)] 0->1", "wait 101 for 42", "graph_launch 901 on 101"}));
}

// A stream that carries only a record or a wait (a fold or a probe of another application
// stream's entry) must not be joined to the graph: the segment goes call by call.
TEST(graph_replay, a_stream_without_kernels_in_the_segment_keeps_it_call_by_call) {
  fixture f{no_idle(1)};
  const fake_kernel a{1, 0}, b{2, 0};
  f.replay.launch(&a, f.pool[0]);
  f.replay.record_event(8, f.pool[1]);
  f.replay.launch(&b, f.pool[0]);
  f.replay.flush();
  EXPECT_EQ(f.replay.stats().built, 0u);
  EXPECT_EQ(f.inner.calls(), (strings{"launch f1(0) on 101", "record 8 on 102", "launch f2(0) on 101"}));
  EXPECT_EQ(f.replay.stats().plain[static_cast<unsigned>(plain_cause::bare_stream)], 1u);
}

TEST(graph_replay, kernels_it_cannot_describe_are_never_in_a_graph) {
  fixture f{no_idle(1)};
  const fake_kernel a{1, 0}, b{99, 0};
  for (int i = 0; i < 3; ++i) {
    f.replay.launch(&a, f.pool[0]);
    f.replay.launch(&b, f.pool[0]);
    f.replay.flush();
  }
  EXPECT_EQ(f.replay.stats().built, 0u);
  EXPECT_EQ(f.replay.stats().call_by_call, 3u);
  EXPECT_EQ(f.replay.stats().plain[static_cast<unsigned>(plain_cause::undescribed)], 3u);
}

// A query does not flush: an event recorded in the segment is pending (not even issued); any
// other is asked of the inner backend.
TEST(graph_replay, queries_do_not_flush) {
  fixture f;
  const fake_kernel a{1, 0};
  f.replay.launch(&a, f.pool[0]);
  f.replay.record_event(7, f.pool[0]);
  EXPECT_EQ(f.replay.query_event(7), event_state::pending);
  EXPECT_EQ(f.replay.query_event(8), event_state::complete);
  EXPECT_EQ(f.inner.calls(), (strings{"query 8"}));
}

// Every cause: the buffered calls reach the inner backend before the call that flushed them.
TEST(graph_replay, every_flush_cause_issues_the_segment_first) {
  struct cause_case {
    const char* name;
    flush_cause cause;
    void (*act)(fixture&);
    const char* first_own_call;  // the inner call of the causing call, after the segment
  };
  const cause_case cases[] = {
      {"sync", flush_cause::sync, [](fixture& f) { f.replay.synchronize(f.pool[0]); }, "sync 101"},
      {"create event", flush_cause::create_destroy, [](fixture& f) { event_handle e; f.replay.create_event(&e); },
       "create_event 501"},
      {"create stream", flush_cause::create_destroy, [](fixture& f) { stream_handle s; f.replay.create_stream(&s); },
       "create_stream 103"},
      {"destroy event", flush_cause::create_destroy, [](fixture& f) { f.replay.destroy_event(7); }, "destroy_event 7"},
      {"destroy stream", flush_cause::create_destroy, [](fixture& f) { f.replay.destroy_stream(f.pool[1]); },
       "destroy_stream 102"},
      {"record elsewhere", flush_cause::other_stream, [](fixture& f) { f.replay.record_event(9, 5); }, "record 9 on 5"},
      {"wait elsewhere", flush_cause::other_stream, [](fixture& f) { f.replay.wait_event(5, 9); }, "wait 5 for 9"},
      {"launch elsewhere", flush_cause::other_stream,
       [](fixture& f) { const fake_kernel k{1, 5}; f.replay.launch(&k, 5); }, "launch f1(5) on 5"},
      {"another owner", flush_cause::other_stream, [](fixture& f) { f.replay.note_owner(77); }, nullptr},
      {"undetachable", flush_cause::undetachable,
       [](fixture& f) { const fake_kernel k{-1, 5}; f.replay.launch(&k, f.pool[0]); }, "launch f-1(5) on 101"},
      {"explicit", flush_cause::explicit_call, [](fixture& f) { f.replay.flush(); }, nullptr},
  };
  for (const cause_case& c : cases) {
    fixture f;
    const fake_kernel a{1, 0};
    f.replay.launch(&a, f.pool[0]);
    f.replay.record_event(7, f.pool[0]);
    c.act(f);
    strings expected{"launch f1(0) on 101", "record 7 on 101"};
    if (c.first_own_call != nullptr) expected.emplace_back(c.first_own_call);
    EXPECT_EQ(f.inner.calls(), expected) << c.name;
    EXPECT_EQ(f.replay.stats().flushes[static_cast<unsigned>(c.cause)], 1u) << c.name;
  }
}

TEST(graph_replay, a_full_segment_flushes_at_its_limit) {
  fixture f{{.after = 2, .cache = 8, .max_segment = 4, .idle = std::chrono::microseconds(0)}};
  const fake_kernel a{1, 0};
  for (int i = 0; i < 3; ++i) f.replay.launch(&a, f.pool[0]);
  EXPECT_TRUE(f.inner.calls().empty());
  f.replay.launch(&a, f.pool[0]);
  EXPECT_EQ(f.inner.calls().size(), 4u);
  EXPECT_EQ(f.replay.stats().flushes[static_cast<unsigned>(flush_cause::limit)], 1u);
}

// A program that spins on mapped memory for a kernel it launched makes no call: the idle
// flush issues the kernel anyway.
TEST(graph_replay, idle_flush_issues_pending_work_without_another_call) {
  recording_backend inner;
  graph_replay replay(inner, {.after = 2, .cache = 8, .max_segment = 256, .idle = std::chrono::microseconds(200)});
  stream_handle s = 0;
  replay.create_stream(&s);
  const fake_kernel a{1, 0};
  replay.launch(&a, s);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (inner.calls().size() < 2 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  EXPECT_EQ(inner.calls(), (strings{"create_stream 101", "launch f1(0) on 101"}));
  EXPECT_EQ(replay.stats().flushes[static_cast<unsigned>(flush_cause::idle)], 1u);
}

// And it waits for the idle time: calls closer together than it keep buffering.
TEST(graph_replay, idle_flush_waits_while_calls_keep_coming) {
  recording_backend inner;
  graph_replay replay(inner, {.after = 2, .cache = 8, .max_segment = 256, .idle = std::chrono::milliseconds(300)});
  stream_handle s = 0;
  replay.create_stream(&s);
  const fake_kernel a{1, 0};
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 5; ++i) {
    replay.launch(&a, s);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const bool quick = std::chrono::steady_clock::now() - start < std::chrono::milliseconds(250);
  if (quick) {
    EXPECT_EQ(inner.calls().size(), 1u) << "flushed before the idle time";
  }
  replay.flush();
  EXPECT_EQ(inner.calls().size(), 6u);
}

TEST(graph_replay, without_a_graph_interface_it_only_passes_through) {
  fixture f{no_idle(1)};
  f.inner.graphs = false;
  for (int i = 0; i < 3; ++i) {
    f.two_stream_segment(i);
    f.replay.flush();
  }
  EXPECT_EQ(f.replay.stats().built, 0u);
  EXPECT_EQ(f.inner.calls().size(), 15u);
}

}  // namespace
}  // namespace acs
