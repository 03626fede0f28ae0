#pragma once
// Figures measured from GPU timestamps, for ACS_STATS=1. Pure code, no CUDA.
//
// Definitions (per device d, over its kernel intervals [start, end), with
// n_d(t) the number of its kernels running at time t):
//   kernel time    K_d = sum of kernel durations            = integral of n_d(t)
//   busy time      B_d = length of the union of intervals   = time with n_d(t) >= 1
//   achieved concurrency = sum_d K_d / sum_d B_d
//       the time-weighted mean of n(t) over the time when at least one kernel
//       runs; 1.0 for a serial program, idle gaps do not lower it;
//   peak concurrency     = max over d and t of n_d(t);
//   span S   = from the first start to the last end of any recorded activity
//              (kernels, memcpys, memsets), on any device;
//   busy fraction        = sum_d B_d / (D * S), D = devices that ran kernels:
//       for one device, the share of the run's GPU time with a kernel running.
// Intervals that merely touch (one ends when the next starts) do not overlap.
// Kernels without valid timestamps are left out (counted as incomplete).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "src/trace/join.hpp"

namespace acs::trace {

struct interval {
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
};

struct occupancy {
  std::uint64_t kernel_ns = 0;  // sum of durations
  std::uint64_t busy_ns = 0;    // length of the union
  unsigned peak = 0;            // most intervals open at once
};

/// @brief Sweeps one device's intervals (empty or inverted ones are ignored).
occupancy sweep(std::vector<interval> intervals);

struct top_kernel {
  std::string name;            // demangled
  std::uint64_t launches = 0;  // executions recorded
  std::uint64_t total_ns = 0;
  std::uint64_t dispatched = 0;        // of those, dispatched by acs
  std::uint64_t dependency_waits = 0;  // kernels its dispatched launches waited for, summed
  std::uint64_t waiting_launches = 0;  // dispatched launches that waited for at least one
};

struct measured {
  std::uint64_t kernels = 0;     // kernel executions measured
  std::uint64_t dispatched = 0;  // of those, joined to an acs dispatch
  unsigned devices = 0;          // devices that ran kernels
  std::uint64_t kernel_ns = 0;
  std::uint64_t busy_ns = 0;
  std::uint64_t span_ns = 0;
  double achieved_concurrency = 0.0;
  double busy_fraction = 0.0;
  unsigned peak_concurrency = 0;
  std::vector<top_kernel> top;  // by total time, longest first
  std::uint64_t dropped = 0;    // records lost (caps, CUPTI): the figures cover the rest
  std::uint64_t incomplete = 0;
};

/// @brief Computes every figure from the joined records; `top_count` longest kernels.
measured measure(const trace_view& view, std::size_t top_count = 10);

/// @brief Fields for the `acs-stats:` line, each preceded by a space:
/// " measured=1 achieved_concurrency=X busy_fraction=X peak_concurrency=N measured_kernels=N
/// measured_span_us=X", or " measured=0" when `m` is null (no CUPTI, another profiler...).
std::string machine_fields(const measured* m);

/// @brief Readable lines ("[acs] measured: ..."), newline-terminated.
std::string human_lines(const measured& m);

}  // namespace acs::trace
