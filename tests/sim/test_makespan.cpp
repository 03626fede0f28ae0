// Makespan on the simulated device: with enough independent work, acs keeps
// the device as busy as the ideal schedule would, within 10%. The ideal is
// max(total work / concurrency, critical path). Host launch costs are those
// measured (docs/design.md §7); kernels of about 100 µs are not host-bound.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <random>

#include <gtest/gtest.h>

#include "scenario.hpp"

namespace acs::sim {
namespace {

constexpr unsigned concurrency = 8;
constexpr nanos typical = 100'000;

struct measured {
  nanos makespan = 0;
  nanos ideal = 0;
  nanos serial = 0;
  unsigned kernels = 0;
  sim_device::call_counts calls;  // the scheduler's event calls, for the host time they cost
};

// A layered DAG: kernel (l, i) writes cell l * width + i and reads cells i and
// i + 1 (mod width) of layer l - 1. One application stream, as a framework
// issues it.
measured run_layers(unsigned layers, unsigned width, unsigned pool, unsigned window,
                    const std::function<nanos(unsigned, unsigned)>& duration) {
  scenario s({.cells = layers * width, .concurrency = concurrency}, {.window = window, .streams = pool});
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  std::vector<nanos> finish(width, 0);  // earliest finish of layer l - 1, for the critical path
  measured m;
  const nanos t0 = s.sim.now();
  for (unsigned l = 0; l < layers; ++l) {
    std::vector<nanos> next(width);
    for (unsigned i = 0; i < width; ++i) {
      const nanos d = duration(l, i);
      std::vector<cell> reads;
      if (l > 0) reads = {(l - 1) * width + i, (l - 1) * width + (i + 1) % width};
      EXPECT_EQ(s.launch(vs, s.make_kernel(d, reads, {l * width + i})), 0);
      next[i] = d + (l > 0 ? std::max(finish[i], finish[(i + 1) % width]) : 0);
      m.serial += d;
    }
    finish = next;
  }
  EXPECT_TRUE(s.matches_serial());
  EXPECT_EQ(s.sim.peak_concurrency(), concurrency);
  m.makespan = s.sim.last_completion() - t0;
  m.ideal = std::max(m.serial / concurrency, *std::max_element(finish.begin(), finish.end()));
  return m;
}

void report(const char* what, const measured& m) {
  std::printf("[ makespan ] %s: %llu us under acs, ideal %llu us (ratio %.3f), serial %llu us\n", what,
              static_cast<unsigned long long>(m.makespan / 1000),
              static_cast<unsigned long long>(m.ideal / 1000),
              static_cast<double>(m.makespan) / static_cast<double>(m.ideal),
              static_cast<unsigned long long>(m.serial / 1000));
  if (m.kernels != 0)
    std::printf("[ makespan ]   per kernel: %.3f event records, %.3f waits, %.3f queries\n",
                static_cast<double>(m.calls.record) / m.kernels, static_cast<double>(m.calls.wait) / m.kernels,
                static_cast<double>(m.calls.query) / m.kernels);
}

nanos fixed(unsigned, unsigned) { return typical; }

TEST(makespan, independent_kernels_reach_the_ideal) {
  const measured m = run_layers(1, 256, concurrency, 32, fixed);
  report("256 independent kernels, pool 8, concurrency 8", m);
  EXPECT_LE(m.makespan, m.ideal + m.ideal / 10);
}

TEST(makespan, layered_dag_reaches_the_ideal) {
  const measured m = run_layers(8, 32, concurrency, 32, fixed);
  report("8 layers x 32 kernels, pool 8, concurrency 8", m);
  EXPECT_LE(m.makespan, m.ideal + m.ideal / 10);
}

TEST(makespan, layered_dag_with_a_wider_pool_reaches_the_ideal) {
  const measured m = run_layers(8, 32, 2 * concurrency, 64, fixed);
  report("8 layers x 32 kernels, pool 16, concurrency 8", m);
  EXPECT_LE(m.makespan, m.ideal + m.ideal / 10);
}

TEST(makespan, layered_dag_with_uneven_kernels_reaches_the_ideal) {
  std::mt19937 rng(42);
  std::uniform_int_distribution<nanos> spread(typical / 2, 3 * typical / 2);
  std::vector<nanos> durations(8 * 32);
  for (nanos& d : durations) d = spread(rng);
  const measured m =
      run_layers(8, 32, 2 * concurrency, 64, [&](unsigned l, unsigned i) { return durations[l * 32 + i]; });
  report("8 layers x 32 uneven kernels (50-150 us), pool 16, concurrency 8", m);
  EXPECT_LE(m.makespan, m.ideal + m.ideal / 10);
}

// The bench's synth-random DAG (benchmarks/gpu/synth.cu) at its long-kernel
// setting: node i reads 1-3 of the 16 nodes before it and rewrites its own
// buffer; 30 us kernels issued at the measured host launch cost, so the launch
// rate, not the GPU, bounds the overlap. The ideal adds the launch bound:
// the last kernel cannot start before every launch was issued.
enum class dag_shape { random, wide, layered };

// `stages` > 1 issues the DAG that many times over the same buffers, as the bench does
// once per input: a stage's nodes then also wait for the previous stage's readers and
// writers of their buffer.
measured run_random(unsigned nodes, unsigned width, unsigned window, unsigned pool, nanos d, unsigned seed,
                    dag_shape shape = dag_shape::random, chain_merge merge = chain_merge::adaptive,
                    unsigned stages = 1) {
  scenario s({.cells = nodes, .concurrency = 32}, {.window = window, .streams = pool, .merge = merge});
  const virtual_stream vs = s.stream(stream_kind::legacy);
  std::mt19937_64 rng(seed);
  std::vector<nanos> finish(nodes, 0), read_done(nodes, 0);
  measured m;
  const nanos t0 = s.sim.now();
  nanos critical = 0;
  for (unsigned k = 0; k < stages * nodes; ++k) {
    const unsigned i = k % nodes;
    std::vector<cell> reads;
    if (shape == dag_shape::wide && i >= width) {
      reads.push_back(i - width);
    } else if (shape == dag_shape::layered && i >= width) {
      const unsigned layer_start = (i / width - 1) * width, j = i % width;
      reads.push_back(layer_start + j);
      reads.push_back(layer_start + (j + 1 + static_cast<unsigned>(rng() % (width - 1))) % width);
    } else if (i >= width) {
      const unsigned lo = i >= 2 * width ? i - 2 * width : 0;
      const unsigned want = 1 + static_cast<unsigned>(rng() % 3);
      for (int t = 0; t < 8 && reads.size() < want; ++t) {
        const cell j = lo + static_cast<cell>(rng() % (i - lo));
        if (std::find(reads.begin(), reads.end(), j) == reads.end()) reads.push_back(j);
      }
    }
    nanos ready = std::max(finish[i], read_done[i]);  // the previous stage's writer and readers of i
    for (cell j : reads) ready = std::max(ready, finish[j]);
    for (cell j : reads) read_done[j] = std::max(read_done[j], ready + d);
    reads.push_back(i);  // it rewrites its own buffer
    EXPECT_EQ(s.launch(vs, s.make_kernel(d, reads, {i})), 0);
    finish[i] = ready + d;
    critical = std::max(critical, finish[i]);
    m.serial += d;
  }
  EXPECT_TRUE(s.matches_serial());
  m.makespan = s.sim.last_completion() - t0;
  m.kernels = stages * nodes;
  m.calls = s.sim.calls();
  const nanos launch_bound = m.kernels * device_config{}.launch_cost + d;
  m.ideal = std::max({m.serial / 32, critical, launch_bound});
  return m;
}

TEST(makespan, random_dag_of_the_bench_reaches_the_launch_bound) {
  for (const unsigned window : {32u, 64u}) {
    const measured m = run_random(512, 8, window, 16, 30'000, 1);
    const std::string what = "synth-random (512 nodes, 30 us), window " + std::to_string(window) + ", pool 16";
    report(what.c_str(), m);
    EXPECT_LE(m.makespan, m.ideal + m.ideal / 5);
  }
}

// synth-wide: `width` independent chains, node i after node i - width.
TEST(makespan, wide_dag_of_the_bench_reaches_the_launch_bound) {
  const measured m = run_random(512, 8, 32, 16, 30'000, 1, dag_shape::wide);
  report("synth-wide (8 chains of 64, 30 us), window 32, pool 16", m);
  EXPECT_LE(m.makespan, m.ideal + m.ideal / 5);
}

// The bench's wide DAG as it runs it: 4 inputs, each 8 chains of 16 over the same
// buffers. A stage's chain heads depend on the previous stage's chain through a merged
// entry (late: they wait for the whole chain), which keeps adaptive merging on only part
// of the time: fewer records than never merging, more than always.
TEST(makespan, staged_wide_dag_of_the_bench) {
  std::vector<measured> runs;
  for (const chain_merge merge : {chain_merge::never, chain_merge::adaptive, chain_merge::always}) {
    runs.push_back(run_random(128, 8, 32, 16, 30'000, 1, dag_shape::wide, merge, 4));
    const char* name = merge == chain_merge::never ? "never" : merge == chain_merge::always ? "always" : "adaptive";
    report((std::string("synth-wide, 4 stages of 8 chains of 16, merging ") + name).c_str(), runs.back());
    EXPECT_LE(runs.back().makespan, runs.back().ideal + runs.back().ideal / 5) << name;
  }
  EXPECT_LT(runs[1].calls.record, runs[0].calls.record);
  EXPECT_LE(runs[1].makespan, runs[0].makespan);
}

// synth-layered: layers of `width`; node j reads node j and one other of the layer before.
TEST(makespan, layered_dag_of_the_bench_reaches_the_launch_bound) {
  const measured m = run_random(512, 8, 32, 16, 30'000, 1, dag_shape::layered);
  report("synth-layered (64 layers of 8, 30 us), window 32, pool 16", m);
  EXPECT_LE(m.makespan, m.ideal + m.ideal / 5);
}

// Chain merging saves an event record per link where nothing else waits for the
// links (wide), and the adaptive policy keeps it off where merging would delay
// kernels on other streams (random).
TEST(makespan, adaptive_chain_merging_pays_on_chains_and_stays_off_on_random_dags) {
  const measured wide_never = run_random(512, 8, 32, 16, 30'000, 1, dag_shape::wide, chain_merge::never);
  const measured wide = run_random(512, 8, 32, 16, 30'000, 1, dag_shape::wide);
  report("synth-wide, merging never", wide_never);
  EXPECT_LT(wide.calls.record * 2, wide_never.calls.record);
  EXPECT_LT(wide.makespan, wide_never.makespan - wide_never.makespan / 20);
  const measured random_never = run_random(512, 8, 32, 16, 30'000, 1, dag_shape::random, chain_merge::never);
  const measured random_always = run_random(512, 8, 32, 16, 30'000, 1, dag_shape::random, chain_merge::always);
  const measured random = run_random(512, 8, 32, 16, 30'000, 1);
  report("synth-random, merging never", random_never);
  report("synth-random, merging always", random_always);
  report("synth-random, merging adaptive", random);
  EXPECT_LE(random.makespan, random_never.makespan + random_never.makespan / 50);
}

}  // namespace
}  // namespace acs::sim
