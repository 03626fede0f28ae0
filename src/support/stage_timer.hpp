#pragma once
// Where an intercepted launch spends its host time, stage by stage. Compiled in
// only with -DACS_STAGE_TIMERS=ON (a developer's tool: every stamp reads the
// TSC); otherwise the macros are empty. Means per stage go to stderr at exit.
// Header-only, so that the hooks and the runtime share it without a link edge.
#ifdef ACS_STAGE_TIMERS
#include <x86intrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace acs::stage_timer {

enum stage : unsigned {
  hook_entry,    // from the hook's entry to dispatch (kernel look-up, closure)
  prologue,      // settings, driver table
  stream,        // stream resolution
  capture,       // capture section and cuStreamIsCapturing
  runtime,       // the device's scheduler
  footprint,     // annotations and inference
  schedule,      // lock, fork, dependencies, waits
  gpu_launch,    // the real launch on the pool stream
  after_launch,  // the join's record + wait, making room in the window, insert
  aside,         // a launch issued on its own stream: what came before the real launch
  direct_launch, // the real launch on the application's stream (passed through, stepped aside)
  // Graph replay (scheduler/segment_replay.hpp), stamped from cuda_backend's calls:
  segment_key,   // the scheduler's lock, the launch's words of the key and their hash (to detach)
  segment_hold,  // the launch copied to be held (detach)
  graph_find,    // at a held segment's end: its prefixes remembered, its executable found
  graph_update,  // the executable's arguments compared, and set where they changed
  graph_join,    // the stream joins its pool work before the graph
  graph_launch,  // the driver's graph launch
  leave,         // back to the hook's caller (ends the launch)
  count_
};

inline constexpr const char* names[count_] = {"hook entry", "prologue", "stream",     "capture",      "runtime",
                                              "footprint",  "schedule", "gpu launch", "after launch", "aside",
                                              "direct launch", "segment key", "segment hold", "graph find",
                                              "graph update", "graph join", "graph launch", "leave"};
inline std::atomic<std::uint64_t> ticks[count_];
inline std::atomic<std::uint64_t> hits[count_];
inline std::atomic<std::uint64_t> longest[count_];  // one-time costs (a first probe) hide in a mean
// Stamps in buckets of 8 TSC ticks (a few ns), the last for everything longer: the median says
// what a stage costs in steady state, which a mean that includes a module's lazy load does not.
inline constexpr unsigned bucket_ticks = 8, buckets = 2048;
inline std::atomic<std::uint32_t> histogram[count_][buckets];
inline thread_local std::uint64_t last = 0;

struct calibration {
  std::uint64_t tsc0 = __rdtsc();
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
};
inline calibration clock0;

inline void report() {
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - clock0.t0).count();
  const double ns_per_tick = ns / static_cast<double>(__rdtsc() - clock0.tsc0);
  double total = 0;
  for (unsigned s = 0; s < count_; ++s) {
    const std::uint64_t n = hits[s].load();
    if (n == 0) continue;
    const double mean = static_cast<double>(ticks[s].load()) * ns_per_tick / static_cast<double>(n);
    total += mean;
    const double max = static_cast<double>(longest[s].load()) * ns_per_tick;
    // The bucket holding the median and the 99th percentile, at its middle.
    auto percentile = [&](double q) {
      std::uint64_t seen = 0;
      for (unsigned b = 0; b < buckets; ++b) {
        seen += histogram[s][b].load();
        if (static_cast<double>(seen) >= q * static_cast<double>(n))
          return b + 1 == buckets ? max : (b + 0.5) * bucket_ticks * ns_per_tick;
      }
      return max;
    };
    std::fprintf(stderr, "acs stage %-12s %9.1f ns  median %8.1f  p99 %9.1f  max %10.1f ns  (%llu)\n", names[s],
                 mean, percentile(0.5), percentile(0.99), max, static_cast<unsigned long long>(n));
  }
  std::fprintf(stderr, "acs stage total        %9.1f ns\n", total);
}

inline void begin() noexcept {
  static const bool registered = std::atexit(report) == 0;
  (void)registered;
  last = __rdtsc();
}

inline void mark(stage s) noexcept {
  const std::uint64_t now = __rdtsc();
  if (last != 0) {
    const std::uint64_t spent = now - last;
    ticks[s].fetch_add(spent, std::memory_order_relaxed);
    hits[s].fetch_add(1, std::memory_order_relaxed);
    histogram[s][std::min<std::uint64_t>(spent / bucket_ticks, buckets - 1)].fetch_add(1, std::memory_order_relaxed);
    std::uint64_t seen = longest[s].load(std::memory_order_relaxed);
    while (spent > seen && !longest[s].compare_exchange_weak(seen, spent, std::memory_order_relaxed)) {
    }
  }
  last = s == leave ? 0 : now;
}

}  // namespace acs::stage_timer

#define ACS_STAGE_BEGIN() ::acs::stage_timer::begin()
#define ACS_STAGE(s) ::acs::stage_timer::mark(::acs::stage_timer::s)
#else
#define ACS_STAGE_BEGIN() ((void)0)
#define ACS_STAGE(s) ((void)0)
#endif
