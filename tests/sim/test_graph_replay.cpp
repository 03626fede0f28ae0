// Graph replay on the simulated device (scheduler/graph_replay.hpp, docs/design.md §8): what the
// scheduler and the decorator do together, beyond the random programs: a recurring loop body
// becomes one executable updated in place, and the program's own work on another stream finds
// the segment issued.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "scenario.hpp"

namespace acs::sim {
namespace {

// Built at the second occurrence, no idle thread: every flush is the test's doing.
constexpr scheduler_config with_graphs{
    .window = 32, .streams = 4, .graphs = true, .graph_after = 2, .graph_cache = 4, .graph_idle_us = 0};

// A loop body of the same shape (two independent kernels, then one reading both), other
// cells each time, between host syncs: built once, then updated in place and relaunched.
TEST(graph_replay_sim, a_recurring_loop_body_is_one_executable_updated_in_place) {
  scenario s({.cells = 64}, with_graphs);
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  constexpr unsigned iterations = 10;
  for (unsigned i = 0; i < iterations; ++i) {
    const cell a = 3 * i, b = 3 * i + 1, c = 3 * i + 2;
    ASSERT_EQ(s.launch(vs, s.make_kernel(short_kernel, {}, {a})), 0);
    ASSERT_EQ(s.launch(vs, s.make_kernel(short_kernel, {}, {b})), 0);
    ASSERT_EQ(s.launch(vs, s.make_kernel(short_kernel, {a, b}, {c})), 0);
    s.sync_stream(vs);
    EXPECT_TRUE(s.host_reads_serial_value(c)) << "iteration " << i;
  }
  EXPECT_TRUE(s.matches_serial());
  // The first iteration makes the pool's streams and events (creating flushes): its segments
  // differ. The second is the shape's first occurrence, the third builds it, the rest update.
  const sim_graph_counts g = s.sim.graph_counts();
  EXPECT_EQ(g.instantiated, 1u);
  EXPECT_EQ(g.launched, iterations - 2);
  EXPECT_EQ(g.updated, iterations - 3);
  EXPECT_EQ(g.live_detached, 0u) << "every detached copy launched or released";
  const scheduler_stats st = s.acs.stats();
  EXPECT_EQ(st.graphs_built, 1u);
  EXPECT_EQ(st.graph_replays, iterations - 2);
  EXPECT_EQ(st.graph_updates, iterations - 3);
}

// The program's own work on another stream, here a library call that spins until a buffered
// kernel of the first stream has run, must find that kernel issued: barriers flush.
TEST(graph_replay_sim, direct_work_on_another_stream_finds_the_segment_issued) {
  scenario s({}, with_graphs);
  const virtual_stream first = s.stream(stream_kind::non_blocking);
  const virtual_stream second = s.stream(stream_kind::non_blocking);
  const kernel& setter = s.make_kernel(short_kernel, {}, {0});
  ASSERT_EQ(s.launch(first, setter), 0);
  ASSERT_EQ(s.launch(first, s.make_kernel(short_kernel, {}, {1})), 0);
  s.library_call(second, s.make_spinner(setter, short_kernel, {}, {2}));
  // An event recorded after it, synchronised by the host: nothing of acs runs in between.
  const event_handle e = s.record(second);
  s.sim.synchronize_event(e);
  EXPECT_FALSE(s.sim.deadlocked()) << s.sim.deadlock_report();
  EXPECT_TRUE(s.matches_serial());
  EXPECT_GT(s.acs.stats().graph_flush_barrier, 0u);
}

// Another stream's launch ends the segment: one segment never holds two application streams.
TEST(graph_replay_sim, a_segment_holds_one_application_stream) {
  scenario s({}, with_graphs);
  const virtual_stream first = s.stream(stream_kind::non_blocking);
  const virtual_stream second = s.stream(stream_kind::non_blocking);
  for (cell c = 0; c < 4; ++c) {
    ASSERT_EQ(s.launch(first, s.make_kernel(short_kernel, {}, {c})), 0);
    ASSERT_EQ(s.launch(second, s.make_kernel(short_kernel, {}, {static_cast<cell>(c + 8)})), 0);
  }
  EXPECT_GE(s.acs.stats().graph_flush_other, 7u);
  EXPECT_TRUE(s.matches_serial());
}

}  // namespace
}  // namespace acs::sim

namespace acs::sim {
namespace {

// `variants` input-dependent DAGs of `kernels` kernels over 128 cells: each kernel reads one or
// two cells and writes another.
using dag = std::vector<std::pair<std::vector<cell>, cell>>;
std::vector<dag> random_dags(unsigned variants, unsigned kernels) {
  std::vector<dag> dags(variants);
  for (unsigned v = 0; v < variants; ++v) {
    std::uint64_t x = 0x12345 + v * 7919;
    auto next = [&] {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      return x;
    };
    for (unsigned k = 0; k < kernels; ++k) {
      const auto w = static_cast<cell>(next() % 128);
      std::vector<cell> r{static_cast<cell>(next() % 128)};
      if (next() % 2) r.push_back(static_cast<cell>(next() % 128));
      std::erase(r, w);
      dags[v].push_back({r, w});
    }
  }
  return dags;
}

// A benchmark-shaped loop: four input-dependent DAGs of 200 kernels in turn, a host sync after
// each, 16 pool streams, a full window folding entries while segments are buffered and cut at
// their length limit. Returns the stats; outputs must equal serial execution.
scheduler_stats alternating_dags(unsigned graph_kernels) {
  scheduler_config cfg{.window = 32, .streams = 16, .graphs = true, .graph_after = 2, .graph_cache = 64,
                       .graph_idle_us = 0, .graph_kernels = graph_kernels};
  scenario s({.cells = 128}, cfg);
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  constexpr unsigned kernels = 200, reps = 24, variants = 4;
  const std::vector<dag> dags = random_dags(variants, kernels);
  for (unsigned i = 0; i < reps; ++i) {
    for (const auto& [r, w] : dags[i % variants]) EXPECT_EQ(s.launch(vs, s.make_kernel(short_kernel, r, {w})), 0);
    s.sync_stream(vs);
  }
  EXPECT_TRUE(s.matches_serial());
  EXPECT_EQ(s.sim.graph_counts().live_detached, 0u) << "every detached copy launched or released";
  return s.acs.stats();
}

// Cut at 256 calls, few segments recur (design.md §8 "Why segments rarely recur"): some are
// still replayed and updated in place.
TEST(graph_replay_sim, alternating_dags_between_syncs_match_serial_and_replay_some_segments) {
  const scheduler_stats st = alternating_dags(0);
  EXPECT_GT(st.graph_replays, 0u);
  EXPECT_GT(st.graph_updates, 0u);
  EXPECT_GT(st.graph_flush_limit, 0u);
}

// [graph_kernels] Cut every 16 kernels, the cuts fall at the same places in every iteration: most
// segments that hold kernels recur and are replayed (23 of ~140 with the call limit alone).
TEST(graph_replay_sim, segments_cut_by_kernel_count_recur_in_a_loop) {
  const scheduler_stats by_calls = alternating_dags(0);
  const scheduler_stats by_kernels = alternating_dags(16);
  EXPECT_GT(by_kernels.graph_replays, by_kernels.graph_plain_new_shape) << "most segments should recur";
  EXPECT_GT(by_kernels.graph_replays, 4 * by_calls.graph_replays);
}

}  // namespace
}  // namespace acs::sim

// Graph replay of launch segments (ACS_GRAPH=auto, scheduler/segment_replay.hpp).
namespace acs::sim {
namespace {

scheduler_config with_segments(unsigned kernels, unsigned idle_us = 0) {
  return {.window = 8, .streams = 8, .graphs = true, .graph_after = 2, .graph_cache = 8, .graph_idle_us = idle_us,
          .graph_kernels = kernels, .graph_segments = true};
}

// A loop body on the legacy stream and a blocking stream, with a copy between (legacy coupling:
// the blocking stream's work follows the legacy stream's): the blocking stream's two kernels
// are a segment cut at the copy, seen in the first iteration, built in the second, updated and
// relaunched in the third, on the application's stream.
TEST(segment_replay_sim, a_recurring_segment_is_built_once_then_updated_on_its_stream) {
  scenario s({.cells = 40}, with_segments(2));
  const virtual_stream legacy = s.legacy();
  const virtual_stream blocking = s.stream(stream_kind::blocking);
  const kernel& a = s.make_kernel(170000, {2, 3, 8}, {});
  const kernel& b = s.make_kernel(30000, {27, 28}, {22, 23});
  const kernel& c = s.make_kernel(140000, {}, {31});
  const kernel& d = s.make_kernel(3000, {26, 31}, {1, 2});
  for (int r = 0; r < 3; ++r) {
    s.sync_device();
    ASSERT_EQ(s.launch(legacy, a), 0);
    ASSERT_EQ(s.launch(blocking, b), 0);
    s.copy(blocking, 7, 26, 5, 1000);
    ASSERT_EQ(s.launch(blocking, c), 0);
    ASSERT_EQ(s.launch(blocking, d), 0);
  }
  s.sync_device();
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(s.sim.races().empty()) << s.sim.explain_races();
  const scheduler_stats st = s.acs.stats();
  EXPECT_EQ(st.graphs_built, 1u);
  EXPECT_EQ(st.graph_replays, 2u);
  EXPECT_EQ(st.graph_updates, 1u);
  EXPECT_EQ(st.graph_call_by_call, 0u) << "no held segment went the stream path";
  EXPECT_EQ(s.sim.graph_counts().live_detached, 0u) << "every detached copy launched or released";
}

// Code unloaded (scheduler::code_unloading, before cuModuleUnload and cuLibraryUnload): every
// cached executable is destroyed, and the segment's next occurrence builds a new one. An
// executable keeps the code it was built from, and a reloaded library's function may come back
// at the old handle, so the same key must not launch the old executable. With ACS_GRAPH=pool too.
TEST(segment_replay_sim, unloading_code_destroys_every_executable) {
  for (const bool segments : {true, false}) {
    scheduler_config config = with_segments(2);
    config.graph_segments = segments;
    scenario s({.cells = 40}, config);
    const virtual_stream blocking = s.stream(stream_kind::blocking);
    const kernel& b = s.make_kernel(30000, {27, 28}, {22, 23});
    const kernel& c = s.make_kernel(140000, {}, {31});
    const auto body = [&] {
      for (int r = 0; r < 3; ++r) {
        s.sync_device();
        ASSERT_EQ(s.launch(blocking, b), 0);
        ASSERT_EQ(s.launch(blocking, c), 0);
        s.sync_device();
      }
    };
    body();
    const std::uint64_t built = s.acs.stats().graphs_built;
    ASSERT_GE(built, 1u) << "segments " << segments;
    ASSERT_LT(s.sim.graph_counts().destroyed, s.sim.graph_counts().instantiated);
    s.acs.code_unloading();
    EXPECT_EQ(s.sim.graph_counts().destroyed, s.sim.graph_counts().instantiated) << "segments " << segments;
    body();
    EXPECT_GT(s.acs.stats().graphs_built, built) << "built anew after the unload; segments " << segments;
    EXPECT_TRUE(s.matches_serial());
    EXPECT_TRUE(s.sim.races().empty()) << s.sim.explain_races();
  }
}

// Relayed graphs (issue_queue::relay_graph, scheduler_config::graph_relay): issuing thread 0
// updates and launches a replayed segment's graph where the segment ends at its length limit
// (`segment_kernels` 4) and the program goes on. A body of four kernels on one stream, each
// time with other cells to read, then a copy on another stream that reads what the body wrote
// after an event (the other stream's work must find the graph issued) and a host read: equal to serial
// execution, the body a graph from its fourth run on, made by the issuing thread.
scheduler_stats run_relayed_body(unsigned segment_kernels) {
  scheduler_config config = with_segments(segment_kernels);
  config.issue_threads = 2;
  config.graph_relay = true;
  scenario s({.cells = 64}, config);
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  const virtual_stream other = s.stream(stream_kind::non_blocking);
  constexpr int runs = 200;  // enough for the issuing thread to be awake (not just woken) for most
  for (int r = 0; r < runs; ++r) {
    const cell in = static_cast<cell>(r % 3);
    const kernel& a = s.make_kernel(4000, {in}, {10});
    const kernel& b = s.make_kernel(3000, {in}, {11});
    const kernel& c = s.make_kernel(2000, {10, 11}, {12});
    const kernel& d = s.make_kernel(1000, {12}, {13});
    for (const kernel* k : {&a, &b, &c, &d}) EXPECT_EQ(s.launch(vs, *k), 0);
    s.wait(other, s.record(vs));
    s.copy(other, 20 + static_cast<cell>(r % 40), 13, 1, 500);
    s.sync_stream(other);
    EXPECT_TRUE(s.host_reads_serial_value(20 + static_cast<cell>(r % 40))) << "run " << r;
  }
  s.sync_device();
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(s.sim.races().empty()) << s.sim.explain_races();
  EXPECT_EQ(s.sim.graph_counts().live_detached, 0u) << "every detached copy launched or released";
  const scheduler_stats st = s.acs.stats();
  // The first run makes the pool's streams and events (creating flushes): its segment differs.
  EXPECT_EQ(st.graph_replays, runs - 3u) << "the body is a graph from its fourth run on";
  return st;
}

TEST(segment_replay_sim, a_relayed_graph_is_issued_before_the_programs_next_call) {
  EXPECT_GT(run_relayed_body(4).graph_relayed, 0u) << "no graph was relayed to the issuing thread";
}

// A segment that ends at an observation point (here the event record) is launched by the
// application's thread: the call that ends it would wait for the relayed launch anyway.
TEST(segment_replay_sim, a_segment_flushed_by_an_observation_point_is_not_relayed) {
  EXPECT_EQ(run_relayed_body(64).graph_relayed, 0u);
}

// A stream whose handle names the calling thread's stream (the per-thread default stream) is
// never held: its segment could end on another thread, which would launch the graph on its own
// stream. The same loop on a stream of its own becomes graphs, whose kernels with no edge into
// them count as independent.
TEST(segment_replay_sim, a_thread_relative_stream_is_never_held) {
  for (const bool thread_relative : {true, false}) {
    SCOPED_TRACE(thread_relative ? "thread-relative" : "plain");
    scenario s({.cells = 16}, with_segments(3));
    virtual_stream vs = s.stream(stream_kind::blocking);
    vs.thread_relative = thread_relative;
    const kernel& a = s.make_kernel(5000, {}, {0});
    const kernel& b = s.make_kernel(5000, {}, {1});
    const kernel& c = s.make_kernel(5000, {0, 1}, {2});
    for (int r = 0; r < 4; ++r) {
      ASSERT_EQ(s.launch(vs, a), 0);
      ASSERT_EQ(s.launch(vs, b), 0);
      ASSERT_EQ(s.launch(vs, c), 0);
      s.sync_stream(vs);
    }
    EXPECT_TRUE(s.matches_serial());
    EXPECT_TRUE(s.sim.races().empty()) << s.sim.explain_races();
    const scheduler_stats st = s.acs.stats();
    EXPECT_EQ(st.kernels, 12u);
    if (thread_relative) {
      EXPECT_EQ(st.graph_replays, 0u);
      EXPECT_EQ(st.graph_call_by_call, 0u) << "nothing was held";
    } else {
      EXPECT_EQ(st.graph_replays, 3u) << "held from the second run, built at its end, replayed from then on";
      EXPECT_EQ(st.graph_kernels, 9u);
      EXPECT_GE(st.independent, 6u) << "a and b have no edge into them in each graph";
    }
    EXPECT_EQ(s.sim.graph_counts().live_detached, 0u);
  }
}

// A segment of independent kernels is laid on ACS_GRAPH_WIDTH lanes (segment_replay.hpp, "Lanes"):
// in its graph no more than `width` kernels may run side by side, and exactly that many do; the
// results match serial execution. With as many lanes as kernels, the graph has no edge at all.
TEST(segment_replay_sim, a_wide_segment_is_laid_on_at_most_width_lanes) {
  constexpr unsigned kernels = 8;
  for (const unsigned width : {1u, 3u, kernels}) {
    SCOPED_TRACE("width " + std::to_string(width));
    scheduler_config config = with_segments(kernels);
    config.graph_width = width;
    scenario s({.cells = 16}, config);
    const virtual_stream vs = s.stream(stream_kind::non_blocking);
    std::vector<const kernel*> body;
    for (cell c = 0; c < kernels; ++c) body.push_back(&s.make_kernel(5000, {}, {c}));
    for (int r = 0; r < 4; ++r) {
      for (const kernel* k : body) ASSERT_EQ(s.launch(vs, *k), 0);
      s.sync_stream(vs);
    }
    EXPECT_TRUE(s.matches_serial());
    EXPECT_TRUE(s.sim.races().empty()) << s.sim.explain_races();
    EXPECT_EQ(s.acs.stats().graph_replays, 3u) << "held from the second run, built at its end";
    ASSERT_EQ(s.sim.graphs().size(), 1u);
    const sim_graph_exec& g = s.sim.graphs().front();
    ASSERT_EQ(g.nodes.size(), kernels);
    if (width >= kernels) {
      EXPECT_TRUE(g.edges.empty());
    }
    // The largest set of nodes no path orders (an antichain), by brute force over the subsets.
    std::vector<std::uint32_t> reach(kernels, 0);  // reach[i]: the nodes after i
    for (std::size_t i = kernels; i-- > 0;)
      for (const graph_edge& e : g.edges)
        if (e.from == i) reach[i] |= (1u << e.to) | reach[e.to];
    unsigned widest = 0;
    for (std::uint32_t set = 1; set < (1u << kernels); ++set) {
      bool unordered = true;
      for (unsigned i = 0; i < kernels && unordered; ++i)
        if ((set >> i) & 1u) unordered = (reach[i] & set) == 0;
      if (unordered) widest = std::max(widest, static_cast<unsigned>(__builtin_popcount(set)));
    }
    EXPECT_EQ(widest, std::min(width, kernels));
  }
}

// A launch is copied (backend::detach) only when it is held: a sequence seen once, and the first
// run of a loop, go the stream path as without graphs, with no copy; the held runs copy each
// kernel once.
TEST(segment_replay_sim, only_held_launches_are_copied) {
  scenario s({.cells = 16}, with_segments(4));
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  const kernel& a = s.make_kernel(5000, {}, {0});
  const kernel& b = s.make_kernel(5000, {0}, {1});
  const kernel& c = s.make_kernel(5000, {1}, {2});
  ASSERT_EQ(s.launch(vs, a), 0);
  ASSERT_EQ(s.launch(vs, b), 0);
  ASSERT_EQ(s.launch(vs, c), 0);
  s.sync_stream(vs);
  EXPECT_EQ(s.sim.graph_counts().detached, 0u) << "a sequence never seen before is not copied";
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(s.launch(vs, a), 0);
    ASSERT_EQ(s.launch(vs, b), 0);
    ASSERT_EQ(s.launch(vs, c), 0);
    s.sync_stream(vs);
  }
  EXPECT_TRUE(s.matches_serial());
  EXPECT_EQ(s.sim.graph_counts().detached, 6u) << "the two held runs, three kernels each";
  EXPECT_EQ(s.acs.stats().graph_replays, 2u);
  EXPECT_EQ(s.sim.graph_counts().live_detached, 0u);
}

// Two streams running the same segment: each has its own executable (CUDA runs the launches of
// one executable one after another, so a shared one would serialise the streams).
TEST(segment_replay_sim, each_stream_has_its_own_executables) {
  scenario s({.cells = 16}, with_segments(2));
  const virtual_stream one = s.stream(stream_kind::non_blocking);
  const virtual_stream two = s.stream(stream_kind::non_blocking);
  const kernel& a = s.make_kernel(5000, {}, {0});
  const kernel& b = s.make_kernel(5000, {0}, {1});
  for (int r = 0; r < 4; ++r) {
    for (const virtual_stream& vs : {one, two}) {
      ASSERT_EQ(s.launch(vs, a), 0);
      ASSERT_EQ(s.launch(vs, b), 0);
      s.sync_stream(vs);
    }
  }
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(s.sim.races().empty()) << s.sim.explain_races();
  const scheduler_stats st = s.acs.stats();
  EXPECT_EQ(st.graphs_built, 2u) << "one executable per stream";
  EXPECT_EQ(st.graph_replays, 6u) << "each stream: seen, built, replayed twice more";
}

// A held prefix that diverges: what was held goes the stream path, in order, before the kernel
// that diverged.
TEST(segment_replay_sim, a_diverging_prefix_releases_what_was_held_in_order) {
  scenario s({.cells = 16}, with_segments(3));
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  const kernel& a = s.make_kernel(5000, {}, {0});
  const kernel& b = s.make_kernel(5000, {0}, {1});
  const kernel& c = s.make_kernel(5000, {1}, {2});
  const kernel& other = s.make_kernel(5000, {1, 2}, {0});
  ASSERT_EQ(s.launch(vs, a), 0);
  ASSERT_EQ(s.launch(vs, b), 0);
  ASSERT_EQ(s.launch(vs, c), 0);
  s.sync_stream(vs);
  ASSERT_EQ(s.launch(vs, a), 0);
  ASSERT_EQ(s.launch(vs, b), 0);  // a and b are held: the prefix was seen
  EXPECT_EQ(s.sim.launches(b.id), 1u) << "b should be held";
  ASSERT_EQ(s.launch(vs, other), 0);  // diverges
  s.sync_stream(vs);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(s.sim.races().empty()) << s.sim.explain_races();
  EXPECT_EQ(s.acs.stats().graph_call_by_call, 1u);
  EXPECT_EQ(s.acs.stats().graph_replays, 0u);
}

// Two runs of a, b with a sync after each, `pause` of quiet, then a third a, which is held (its
// prefix was seen): with no further call from the program, only the idle flush can issue it.
void expect_the_idle_flush_issues_the_held_kernel(std::chrono::milliseconds pause, const char* why) {
  scenario s({.cells = 16}, with_segments(4, 50));
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  const kernel& a = s.make_kernel(5000, {}, {0});
  const kernel& b = s.make_kernel(5000, {}, {1});
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(s.launch(vs, a), 0);
    ASSERT_EQ(s.launch(vs, b), 0);
    s.sync_stream(vs);
  }
  std::this_thread::sleep_for(pause);
  ASSERT_EQ(s.launch(vs, a), 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (s.sim.launches(a.id) < 3 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  EXPECT_EQ(s.sim.launches(a.id), 3u) << why;
  EXPECT_GT(s.acs.stats().graph_flush_idle, 0u);
  s.sync_stream(vs);
  EXPECT_TRUE(s.matches_serial());
}

// The idle flush: a held segment is issued with no further call from the program (a host
// spinning on mapped memory for a held kernel would otherwise wait for ever).
TEST(segment_replay_sim, a_held_segment_is_issued_after_the_idle_interval) {
  expect_the_idle_flush_issues_the_held_kernel(std::chrono::milliseconds(0),
                                               "the held kernel was not issued by the idle flush");
}

// Outside a launch a flush may find capture-unsafe calls forbidden (a capture under way,
// capture.hpp): the held kernels then run in place on their stream, in order, and no graph is
// built or launched.
TEST(segment_replay_sim, a_flush_where_unsafe_calls_are_forbidden_runs_the_held_kernels_in_place) {
  struct deny final : unsafe_call_guard {
    bool enter() noexcept override { return false; }
    void leave() noexcept override {}
  } guard;
  scenario s({.cells = 16}, with_segments(4));
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  const kernel& a = s.make_kernel(5000, {}, {0});
  const kernel& b = s.make_kernel(5000, {0}, {1});
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(s.launch(vs, a), 0);
    ASSERT_EQ(s.launch(vs, b), 0);
    s.sync_stream(vs);
  }
  const std::uint64_t replays = s.acs.stats().graph_replays;  // the second run's
  s.acs.set_unsafe_call_guard(&guard);
  ASSERT_EQ(s.launch(vs, a), 0);
  ASSERT_EQ(s.launch(vs, b), 0);  // held: a recurring prefix
  s.sync_stream(vs);
  EXPECT_EQ(s.sim.launches(b.id), 3u);
  EXPECT_EQ(s.sim.kernel_stream(a.id), vs.handle) << "run in place on its own stream";
  EXPECT_EQ(s.sim.kernel_stream(b.id), vs.handle);
  EXPECT_EQ(s.acs.stats().graph_replays, replays);
  EXPECT_TRUE(s.matches_serial());
}

// A stream acs stepped aside from (launch_in_order): its kernels run on the stream itself, and a
// recurring segment is replayed as a chain, whatever the footprints say: a, b and c are
// independent, yet in every graph each follows the one before (only a has no edge into it).
TEST(segment_replay_sim, an_in_order_stream_replays_its_recurring_segments_as_chains) {
  scenario s({.cells = 16}, with_segments(3));
  const virtual_stream vs = s.stream(stream_kind::blocking);
  const kernel& a = s.make_kernel(5000, {}, {0});
  const kernel& b = s.make_kernel(5000, {}, {1});
  const kernel& c = s.make_kernel(5000, {}, {2});
  for (int r = 0; r < 4; ++r) {
    ASSERT_EQ(s.launch_in_order(vs, a), 0);
    ASSERT_EQ(s.launch_in_order(vs, b), 0);
    ASSERT_EQ(s.launch_in_order(vs, c), 0);
    if (r == 0) {
      EXPECT_EQ(s.sim.kernel_stream(a.id), vs.handle) << "first seen: run in place on its own stream";
    }
    s.sync_stream(vs);
    EXPECT_LE(s.span(a).end, s.span(b).start) << "run " << r << ": b must follow a";
    EXPECT_LE(s.span(b).end, s.span(c).start) << "run " << r << ": c must follow b";
  }
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(s.sim.races().empty()) << s.sim.explain_races();
  const scheduler_stats st = s.acs.stats();
  EXPECT_EQ(st.graph_replays, 3u) << "held from the second run, built at its end, replayed from then on";
  EXPECT_EQ(st.graph_kernels, 9u);
  EXPECT_EQ(st.independent, 3u) << "one root per chain";
  EXPECT_EQ(st.kernels, 9u) << "the graphs' kernels only: nothing went to the pool";
  EXPECT_EQ(s.sim.graph_counts().live_detached, 0u);
}

// A stream whose launches change order (a probe redirects it, or it steps aside): a segment holds
// launches of one order only. The redirected a and the in-order b and c of each run: a is a
// segment of its own (never a graph), b and c one that recurs, and b still follows a.
TEST(segment_replay_sim, a_change_of_order_ends_the_segment) {
  scenario s({.cells = 16}, with_segments(3));
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  const kernel& a = s.make_kernel(50000, {}, {0});
  const kernel& b = s.make_kernel(5000, {}, {1});
  const kernel& c = s.make_kernel(5000, {}, {2});
  for (int r = 0; r < 4; ++r) {
    ASSERT_EQ(s.launch(vs, a), 0);
    ASSERT_EQ(s.launch_in_order(vs, b), 0);
    ASSERT_EQ(s.launch_in_order(vs, c), 0);
    s.sync_stream(vs);
    EXPECT_LE(s.span(a).end, s.span(b).start) << "run " << r << ": b is work issued directly on the stream";
  }
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(s.sim.races().empty()) << s.sim.explain_races();
  const scheduler_stats st = s.acs.stats();
  EXPECT_EQ(st.graph_replays, 3u);
  EXPECT_EQ(st.graph_kernels, 6u) << "b and c in each replay, never a";
  EXPECT_EQ(st.graph_call_by_call, 0u);
  EXPECT_EQ(s.sim.graph_counts().live_detached, 0u);
}

// The idle thread sleeps after 200 quiet intervals with nothing held (scheduler.cpp); the launch
// that starts holding must wake it, or the held kernel would wait for ever.
TEST(segment_replay_sim, a_held_segment_wakes_the_sleeping_idle_thread) {
  // 100 ms: 2000 intervals, so the thread is asleep when the held launch comes.
  expect_the_idle_flush_issues_the_held_kernel(std::chrono::milliseconds(100), "the sleeping idle thread was not woken");
}

// The idle flush also issues a held in-order segment: a program spinning on mapped memory for a
// kernel of a stepped-aside stream does not hang.
TEST(segment_replay_sim, a_held_in_order_segment_is_issued_after_the_idle_interval) {
  scenario s({.cells = 16}, with_segments(4, 50));
  const virtual_stream vs = s.stream(stream_kind::blocking);
  const kernel& a = s.make_kernel(5000, {}, {0});
  const kernel& b = s.make_kernel(5000, {0}, {1});
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(s.launch_in_order(vs, a), 0);
    ASSERT_EQ(s.launch_in_order(vs, b), 0);
    s.sync_stream(vs);
  }
  ASSERT_EQ(s.launch_in_order(vs, a), 0);  // held: the prefix was seen
  EXPECT_EQ(s.sim.launches(a.id), 2u) << "a should be held";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (s.sim.launches(a.id) < 3 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  EXPECT_EQ(s.sim.launches(a.id), 3u) << "the held kernel was not issued by the idle flush";
  EXPECT_EQ(s.sim.kernel_stream(a.id), vs.handle);
  s.sync_stream(vs);
  EXPECT_TRUE(s.matches_serial());
}

// The benchmark-shaped loop of alternating_dags above, with launch segments of 64 kernels: every
// segment recurs whatever the pool and the GPU did, so after each DAG's first two occurrences
// every segment is replayed, and none held goes the stream path.
TEST(segment_replay_sim, alternating_dags_replay_every_segment_once_seen) {
  scheduler_config cfg = with_segments(64);
  cfg.window = 32;
  cfg.streams = 16;
  cfg.graph_cache = 64;
  scenario s({.cells = 128}, cfg);
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  constexpr unsigned kernels = 200, reps = 24, variants = 4;
  const std::vector<dag> dags = random_dags(variants, kernels);
  for (unsigned i = 0; i < reps; ++i) {
    for (const auto& [r, w] : dags[i % variants]) EXPECT_EQ(s.launch(vs, s.make_kernel(short_kernel, r, {w})), 0);
    s.sync_stream(vs);
  }
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(s.sim.races().empty()) << s.sim.explain_races();
  const scheduler_stats st = s.acs.stats();
  // Each DAG: 4 segments (64, 64, 64, 8 kernels), 6 occurrences: seen, built, then 4 updates.
  EXPECT_EQ(st.graphs_built, variants * 4);
  EXPECT_EQ(st.graph_replays, variants * 4 * 5);
  EXPECT_EQ(st.graph_updates, variants * 4 * 4);
  EXPECT_EQ(st.graph_call_by_call, 0u);
  EXPECT_EQ(s.sim.graph_counts().live_detached, 0u);
}


// Sampling (segment_replay.hpp): after `graph_sample_after` segments in a row that were not held
// whole, fewer are chosen to be examined for recurrence (down to 1 in 16, at random), the rest
// skimmed: sent the stream path with no key built, unless their first kernel begins a segment seen
// before. `barren` 8-kernel segments that never recur (random footprints) are skimmed more and
// more; then a recurring body is found all the same: once one occurrence was examined, the next
// begins with a known kernel and is examined, held whole, and every segment is examined again and
// replayed. With `graph_sample_after` 0 nothing is skimmed. Outputs equal serial execution.
struct sampled_run {
  scheduler_stats after_barren, after_loop, after_two;
};
sampled_run never_recurring_then_a_loop(unsigned sample_after, std::uint64_t seed) {
  constexpr unsigned barren = 200;
  scheduler_config cfg = with_segments(8);
  cfg.graph_sample_after = sample_after;
  scenario s({.cells = 128}, cfg);
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  std::uint64_t x = 0x9e3779b97f4a7c15ull + seed;
  const auto next = [&] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  for (unsigned i = 0; i < barren * 8; ++i) {
    const auto w = static_cast<cell>(next() % 128);
    const auto r = static_cast<cell>(next() % 128);
    EXPECT_EQ(s.launch(vs, s.make_kernel(short_kernel, {r}, {w})), 0);
  }
  sampled_run out;
  out.after_barren = s.acs.stats();
  const std::vector<dag> bodies = random_dags(2, 8);
  const auto run = [&](const dag& body) {
    for (const auto& [r, w] : body) EXPECT_EQ(s.launch(vs, s.make_kernel(short_kernel, r, {w})), 0);
  };
  for (unsigned i = 0; i < 200; ++i) run(bodies[0]);
  out.after_loop = s.acs.stats();
  // Then a second body alternates with the first: examined from its first occurrence.
  for (unsigned i = 0; i < 50; ++i) run(bodies[0]), run(bodies[1]);
  s.sync_stream(vs);
  EXPECT_TRUE(s.matches_serial()) << "sample_after " << sample_after;
  EXPECT_TRUE(s.sim.races().empty()) << s.sim.explain_races();
  EXPECT_EQ(s.sim.graph_counts().live_detached, 0u);
  out.after_two = s.acs.stats();
  return out;
}

TEST(segment_replay_sim, a_stream_that_never_recurs_is_sampled_and_a_loop_found_all_the_same) {
  // 16 runs, whose barren phases of 200 segments differ (the examined ones stir the choice).
  std::uint64_t skimmed_barren = 0, skimmed_loop = 0, replayed = 0;
  constexpr unsigned barren = 200;
  for (std::uint64_t seed = 0; seed < 16; ++seed) {
    const sampled_run r = never_recurring_then_a_loop(32, seed);
    EXPECT_EQ(r.after_barren.graph_replays, 0u);
    // The first 32 and a few more examined, then about 15 in 16 skimmed.
    EXPECT_GT(r.after_barren.graph_skimmed, barren / 2);
    EXPECT_LT(r.after_barren.graph_skimmed, barren - 32);
    skimmed_barren += r.after_barren.graph_skimmed;
    const std::uint64_t skimmed = r.after_loop.graph_skimmed - r.after_barren.graph_skimmed;
    skimmed_loop += skimmed;
    replayed += r.after_loop.graph_replays;
    // Two occurrences examined (the first chosen, the second by its known first kernel), one
    // built at the second, then every one replayed.
    EXPECT_EQ(r.after_loop.graph_replays + skimmed + 1, 200u) << "seed " << seed;
    // Every segment examined again once the first was held whole: the second body is seen at its
    // first occurrence and replayed from its second.
    EXPECT_EQ(r.after_two.graph_skimmed, r.after_loop.graph_skimmed) << "seed " << seed;
    EXPECT_EQ(r.after_two.graph_replays - r.after_loop.graph_replays, 50u + 49u) << "seed " << seed;
  }
  std::printf("[ sampled  ] 16 runs: %llu of 3,200 barren segments skimmed; 200 loop bodies each: %llu skimmed, "
              "%llu replayed in all\n",
              static_cast<unsigned long long>(skimmed_barren), static_cast<unsigned long long>(skimmed_loop),
              static_cast<unsigned long long>(replayed));
  // One chosen occurrence in 16 on average before the loop is found: about 16 skimmed per run. If a
  // known first kernel did not make a segment examined, two chosen occurrences would be needed.
  EXPECT_LT(skimmed_loop, 16u * 26u);

  const sampled_run full = never_recurring_then_a_loop(0, 0);
  EXPECT_EQ(full.after_two.graph_skimmed, 0u);
  EXPECT_EQ(full.after_loop.graph_replays, 199u) << "seen, then built and replayed: every occurrence from the second";
}

}  // namespace
}  // namespace acs::sim
