// Makespan on the simulated device: with enough independent work, acs keeps
// the device as busy as the ideal schedule would, within 10%. The ideal is
// max(total work / concurrency, critical path). Host launch costs are those
// measured (DESIGN.md §3); kernels of about 100 µs are not host-bound.
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

}  // namespace
}  // namespace acs::sim
