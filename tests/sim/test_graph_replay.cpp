// Graph replay on the simulated device (scheduler/graph_replay.hpp, docs/design.md §8): what the
// scheduler and the decorator do together, beyond the random programs: a recurring loop body
// becomes one executable updated in place, and the program's own work on another stream finds
// the segment issued.
#include <gtest/gtest.h>

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

// A benchmark-shaped loop: four input-dependent DAGs of 200 kernels in turn, a host sync after
// each, 16 pool streams, a full window folding entries while segments are buffered and cut at
// their length limit. Returns the stats; outputs must equal serial execution.
scheduler_stats alternating_dags(unsigned graph_kernels) {
  scheduler_config cfg{.window = 32, .streams = 16, .graphs = true, .graph_after = 2, .graph_cache = 64,
                       .graph_idle_us = 0, .graph_kernels = graph_kernels};
  scenario s({.cells = 128}, cfg);
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  constexpr unsigned kernels = 200, reps = 24, variants = 4;
  std::vector<std::vector<std::pair<std::vector<cell>, cell>>> dags(variants);
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
