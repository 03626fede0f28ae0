// docs/design.md rule 8: any application thread may launch on any stream at any
// time. Several threads drive one scheduler and one device at once; this
// executable is labelled `threads` so that a TSan build can run it alone.
#include <deque>
#include <random>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "footprint.hpp"
#include "scheduler/scheduler.hpp"
#include "sim_device.hpp"

namespace acs::sim {
namespace {

constexpr unsigned thread_count = 4;
constexpr cell region_size = 8;
constexpr cell shared_input = thread_count * region_size;  // read by all, written by none
constexpr unsigned ops_per_thread = 3000;

// One application thread: random kernels, direct operations and syncs, all on
// its own region of memory, checked against its own serial execution.
class app_thread {
 public:
  // With `syncs`, the thread also syncs and queries its stream.
  app_thread(sim_device& sim, scheduler& acs, virtual_stream stream, unsigned index, bool syncs)
      : sim_(sim),
        acs_(acs),
        stream_(stream),
        first_(index * region_size),
        expected_(shared_input + 1),
        rng_(index + 1),
        syncs_(syncs),
        next_id_(1'000'000ULL * (index + 1)) {
    kernels_.reserve(ops_per_thread);
  }

  void run() {
    for (unsigned i = 0; i < ops_per_thread; ++i) {
      const unsigned r = pick(0, syncs_ ? 99 : 89);
      if (r < 75) {
        launch();
      } else if (r < 85) {
        const cell c = first_ + pick(0, region_size - 1);
        const value v = rng_();
        acs_.before_barrier(stream_);  // the operation is bracketed, as the hooks do
        record(sim_.fill(stream_.handle, c, 1, v, pick(500, 20'000)), "fill");
        acs_.barrier(stream_);
        expected_.apply({memory_effect::rule::fill, v, {}, {c}});
      } else if (r < 90) {
        acs_.before_barrier(stream_);
        record(sim_.marker(stream_.handle), "marker");
        acs_.barrier(stream_);
      } else if (r < 95) {
        const std::uint64_t point = acs_.join(stream_);
        record(sim_.synchronize(stream_.handle), "synchronize");
        acs_.synchronized(stream_.key, point);
        const cell c = first_ + pick(0, region_size - 1);
        if (sim_.host_read(c) != expected_[c]) errors_.push_back("host read of cell " + std::to_string(c));
      } else {
        const std::uint64_t point = acs_.join(stream_);
        if (sim_.query_stream(stream_.handle)) acs_.synchronized(stream_.key, point);
      }
    }
  }

  cell first() const { return first_; }
  const serial_memory& expected() const { return expected_; }
  const std::vector<std::string>& errors() const { return errors_; }
  const std::vector<kernel>& kernels() const { return kernels_; }
  void relay_half() { relay_ = true; }

 private:
  unsigned pick(unsigned lo, unsigned hi) { return std::uniform_int_distribution<unsigned>(lo, hi)(rng_); }

  void launch() {
    std::vector<cell> reads{shared_input};
    std::vector<cell> writes;
    for (unsigned n = pick(0, 2); n > 0; --n) reads.push_back(first_ + pick(0, region_size - 1));
    for (unsigned n = pick(1, 2); n > 0; --n) writes.push_back(first_ + pick(0, region_size - 1));
    const kernel& k = kernels_.emplace_back(kernel{next_id_++, pick(500, 40'000), reads, writes});
    // Relayed (ACS_RELAY: the issuing thread makes it) or through the window, at random.
    const bool relayed = relay_ && pick(0, 1) == 0;
    record(relayed ? acs_.relay(stream_, &k) : acs_.launch(stream_, footprint_of(k), &k), "launch");
    expected_.apply({memory_effect::rule::hash, k.id, k.reads, k.writes});
  }

  void record(backend_status status, const char* what) {
    if (status != 0) errors_.push_back(std::string(what) + " returned " + std::to_string(status));
  }

  sim_device& sim_;
  scheduler& acs_;
  virtual_stream stream_;
  cell first_;
  serial_memory expected_;
  std::mt19937_64 rng_;
  bool syncs_;
  bool relay_ = false;  // half of its launches relayed (scheduler::relay)
  std::uint64_t next_id_;
  std::vector<kernel> kernels_;  // reserved up front: the scheduler holds pointers
  std::vector<std::string> errors_;
};

// With graphs: graph replay on (graph_replay.hpp), built at the second occurrence (each
// executable adds timelines to the simulated device: building every shape made the TSan run
// last minutes), 64 cached, the idle flush running beside the application's threads.
// graphs: 0 none, 1 segments of pool calls (ACS_GRAPH=pool), 2 segments of launches (auto); 3: no
// graphs, but two issuing threads and half of the launches relayed (ACS_RELAY); 4: segments of
// launches whose graphs the issuing thread updates and launches (graph_relay), and half of the
// launches relayed.
scheduler_config threads_config(int graphs) {
  scheduler_config c{.window = 6, .streams = 4};
  if (graphs == 3) {
    c.issue_threads = 2;
    return c;
  }
  if (graphs == 4) {
    c = threads_config(2);
    c.issue_threads = 2;
    c.graph_relay = true;
    return c;
  }
  if (graphs != 0) {
    c.graphs = true;
    c.graph_segments = graphs == 2;
    c.graph_kernels = graphs == 2 ? 4 : 0;
    c.graph_after = 2;
    c.graph_cache = 64;
    c.graph_idle_us = 50;
  }
  return c;
}

struct threaded_run {
  explicit threaded_run(int graphs = 0) : acs{sim, threads_config(graphs)} {}
  sim_device sim{device_config{.cells = shared_input + 1, .concurrency = 8}};
  scheduler acs;
  std::deque<app_thread> threads;  // stable: the scheduler holds pointers to their kernels

  void go() {
    std::vector<std::thread> running;
    for (app_thread& t : threads) running.emplace_back([&t] { t.run(); });
    for (std::thread& t : running) t.join();
    const std::uint64_t point = scheduler::sync_point();
    acs.drain();  // as the hooks do before a device-wide operation
    sim.synchronize_device();
    acs.device_synchronized(point);
  }

  // No race, and each thread's region as its own serial execution left it.
  void check() const {
    EXPECT_TRUE(sim.races().empty()) << sim.explain_races();
    const std::vector<value> memory = sim.memory();
    for (const app_thread& t : threads) {
      for (const std::string& e : t.errors()) ADD_FAILURE() << e;
      for (cell c = t.first(); c < t.first() + region_size; ++c)
        EXPECT_EQ(memory[c], t.expected()[c]) << "cell " << c;
      for (const kernel& k : t.kernels()) ASSERT_EQ(sim.launches(k.id), 1u) << "kernel " << k.id;
    }
  }
};

virtual_stream app_stream(sim_device& sim, stream_kind kind) {
  const stream_handle h =
      kind == stream_kind::legacy ? sim_device::legacy_stream : sim.create_app_stream(kind);
  return {h + 1, h, kind};
}

// Each thread on a stream of its own, of differing kinds; `graphs` as threads_config.
scheduler_stats run_on_own_streams(int graphs) {
  threaded_run run(graphs);
  const stream_kind kinds[thread_count] = {stream_kind::legacy, stream_kind::blocking,
                                           stream_kind::non_blocking, stream_kind::blocking};
  for (unsigned i = 0; i < thread_count; ++i) {
    run.threads.emplace_back(run.sim, run.acs, app_stream(run.sim, kinds[i]), i, true);
    if (graphs >= 3) run.threads.back().relay_half();
  }
  run.go();
  run.check();
  return run.acs.stats();
}

// All threads on one stream of `kind`, each on its own data; with `sync`, each thread also
// syncs and queries that stream: one thread's sync must not make acs forget what another
// launched meanwhile.
scheduler_stats run_sharing_one_stream(int graphs, stream_kind kind, bool sync) {
  SCOPED_TRACE(name(kind));
  threaded_run run(graphs);
  const virtual_stream shared = app_stream(run.sim, kind);
  for (unsigned i = 0; i < thread_count; ++i) {
    run.threads.emplace_back(run.sim, run.acs, shared, i, sync);
    if (graphs >= 3) run.threads.back().relay_half();
  }
  run.go();
  run.check();
  return run.acs.stats();
}

constexpr stream_kind all_kinds[] = {stream_kind::legacy, stream_kind::blocking, stream_kind::non_blocking};

TEST(rule8_threads, threads_on_their_own_streams) {
  EXPECT_GT(run_on_own_streams(0).folds, 0u) << "the window never overflowed: the test missed the fold path";
}

class rule8_shared : public ::testing::TestWithParam<stream_kind> {};

TEST_P(rule8_shared, threads_share_one_stream) { run_sharing_one_stream(0, GetParam(), false); }
TEST_P(rule8_shared, threads_share_one_stream_and_sync_it) { run_sharing_one_stream(0, GetParam(), true); }

INSTANTIATE_TEST_SUITE_P(all_kinds, rule8_shared, ::testing::ValuesIn(all_kinds),
                         [](const ::testing::TestParamInfo<stream_kind>& param) {
                           return name(param.param);
                         });

// Graph replay of pool calls (ACS_GRAPH=pool), the same threads.
TEST(rule8_threads, graph_replay_threads_on_their_own_streams) {
  EXPECT_GT(run_on_own_streams(1).graph_replays, 0u) << "no segment became a graph: the mode was not exercised";
}

TEST(rule8_threads, graph_replay_threads_share_one_stream_and_sync_it) {
  for (const stream_kind kind : all_kinds) EXPECT_GT(run_sharing_one_stream(1, kind, true).graph_replays, 0u);
}

// Launch segments (ACS_GRAPH=auto): each thread's launches end the others' segments, the idle
// flush runs beside them.
TEST(rule8_threads, segment_replay_threads_on_their_own_streams) { run_on_own_streams(2); }

TEST(rule8_threads, segment_replay_threads_share_one_stream_and_sync_it) {
  for (const stream_kind kind : all_kinds) run_sharing_one_stream(2, kind, true);
}

// Relayed launches (ACS_RELAY): half of each thread's launches go to the issuing thread, among
// the others' launches through the window, their direct operations and syncs.
TEST(rule8_threads, relayed_threads_on_their_own_streams) {
  EXPECT_GT(run_on_own_streams(3).relayed, 0u) << "no launch was relayed: the mode was not exercised";
}

TEST(rule8_threads, relayed_threads_share_one_stream_and_sync_it) {
  for (const stream_kind kind : all_kinds) EXPECT_GT(run_sharing_one_stream(3, kind, true).relayed, 0u);
}

// Relayed graphs (graph_relay) among relayed launches and the window's: the issuing thread
// updates and launches each thread's replayed segments.
TEST(rule8_threads, relayed_segment_replay_threads_on_their_own_streams) {
  EXPECT_GT(run_on_own_streams(4).relayed, 0u) << "no launch was relayed: the mode was not exercised";
}

TEST(rule8_threads, relayed_segment_replay_threads_share_one_stream_and_sync_it) {
  for (const stream_kind kind : all_kinds) run_sharing_one_stream(4, kind, true);
}

// All threads launch on one stream, on the same data: the stream's order is the order in which
// launches reached the device, and the final state must be that order's serial execution.
void share_one_stream_and_its_data(int graphs);

TEST(rule8_threads, threads_share_one_stream_and_its_data) { share_one_stream_and_its_data(0); }
TEST(rule8_threads, graph_replay_threads_share_one_stream_and_its_data) { share_one_stream_and_its_data(1); }
TEST(rule8_threads, segment_replay_threads_share_one_stream_and_its_data) { share_one_stream_and_its_data(2); }

void share_one_stream_and_its_data(int graphs) {
  sim_device sim{device_config{.cells = 16, .concurrency = 8}};
  scheduler_config config = threads_config(graphs);
  config.window = 4;
  config.graph_after = 1;  // its random kernels rarely repeat a shape: built at first sight
  scheduler acs{sim, config};
  const virtual_stream shared = app_stream(sim, stream_kind::non_blocking);
  constexpr unsigned per_thread = 300;
  std::vector<std::vector<kernel>> kernels(thread_count);
  std::vector<std::thread> running;
  for (unsigned t = 0; t < thread_count; ++t) {
    running.emplace_back([&, t] {
      std::mt19937 rng(t + 7);
      std::uniform_int_distribution<cell> any(0, 15);
      kernels[t].reserve(per_thread);
      for (unsigned i = 0; i < per_thread; ++i) {
        const kernel& k =
            kernels[t].emplace_back(kernel{(t + 1) * 10'000ULL + i,
                                           std::uniform_int_distribution<nanos>(500, 30'000)(rng),
                                           {any(rng)},
                                           {any(rng)}});
        EXPECT_EQ(acs.launch(shared, footprint_of(k), &k), 0);
      }
    });
  }
  for (std::thread& t : running) t.join();
  const std::uint64_t point = scheduler::sync_point();
  acs.drain();
  sim.synchronize_device();
  acs.device_synchronized(point);
  EXPECT_TRUE(sim.races().empty()) << sim.explain_races();
  if (graphs == 1) {  // launch segments: these random kernels never recur, so only order is checked
    EXPECT_GT(acs.stats().graph_replays, 0u);
  }
  serial_memory expected(16);
  const std::vector<memory_effect> issued = sim.issued_effects();
  EXPECT_EQ(issued.size(), thread_count * per_thread);
  for (const memory_effect& e : issued) expected.apply(e);
  EXPECT_EQ(sim.memory(), expected.cells());
}

}  // namespace
}  // namespace acs::sim
