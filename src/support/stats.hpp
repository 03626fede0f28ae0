#pragma once
// ACS_STATS=1: what acs did, printed to stderr at exit, summed over devices, then per device.
// Two forms: a readable summary, and one `acs-stats: key=value ...` line that
// the GPU tests parse (per device: device<N>_dispatched=... with N the CUDA device ordinal).
// Printing makes no CUDA call (the driver may be gone).
#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "scheduler/scheduler_config.hpp"
#include "src/support/pass_reason.hpp"
#include "src/support/hot_flags.hpp"

namespace acs::stats {

inline constexpr std::size_t reason_count = static_cast<std::size_t>(pass_reason::count_);

// Why a launch could not be copied for acs's threads, the relay or a graph (cuda_backend::detach):
// its status is not known in advance (docs/design.md rule 6), so it is made at once.
enum class uncopied : std::uint8_t {
  attributes,  // launch attributes, or shared memory the driver's call cannot carry
  extra,       // arguments passed as `extra`
  grid,        // a grid beyond the device's limits
  conditions,  // a change of the launch conditions under way, or a context failure seen
  unproven,    // no success of its kind (function, block, shared memory) since the last change
  context,     // not the device's primary context current
  layout,      // its parameter layout unknown, or a parameter missing where it has one
  count_
};
inline constexpr std::size_t uncopied_count = static_cast<std::size_t>(uncopied::count_);
constexpr const char* uncopied_name(uncopied why) noexcept {
  constexpr const char* names[] = {"attributes", "extra", "grid", "conditions", "unproven", "context", "layout"};
  static_assert(std::size(names) == uncopied_count);
  return names[static_cast<std::size_t>(why)];
}

// One device's schedulers (a device reset makes a new one: they are summed).
struct device_figures {
  int device = -1;  // the CUDA device ordinal (CUdevice)
  scheduler_stats scheduler;
};

struct summary {
  std::uint64_t kernels_seen = 0;                    // every launch handed to acs
  std::array<std::uint64_t, reason_count> passed{};  // of those, passed through, per reason
  scheduler_stats scheduler;                         // summed over devices
  std::uint64_t functions_ptx = 0;                   // kernel functions whose PTX narrowed their writes
  std::uint64_t functions_no_ptx = 0;                // kernel functions read without usable PTX
  std::uint64_t probes_busy = 0;                     // independent probed launches whose stream had work pending
  std::uint64_t probes_idle = 0;                     // independent probed launches onto an idle stream
  std::uint64_t probes_launch_bound = 0;             // of those, while the host was launch-bound
  std::uint64_t probe_pauses = 0;                    // probe bursts paused: their kernel's code not read yet
  std::uint64_t probe_code_waits = 0;                // probed launches that read their kernel's layout themselves
  std::uint64_t probe_code_wait_ns = 0;              // the time those took, on the program's thread
  std::uint64_t condition_changes = 0;               // calls that may change whether a launch succeeds
  std::uint64_t condition_repeats = 0;               // attribute sets of the value already set: no change
  std::array<std::uint64_t, uncopied_count> uncopied_launches{};  // launches not copyable, per reason
  unsigned devices = 0;                              // schedulers created
  std::vector<device_figures> per_device;            // by device ordinal, ascending
};

/// @brief Adds one scheduler's counters to `s`: the sums, and its device's figures.
void add_scheduler(summary& s, int device, const scheduler_stats& stats);

namespace detail {
inline constexpr std::atomic<bool>& counting = hot.stats_counting;
struct counters {
  std::atomic<std::uint64_t> kernels_seen{0};
  std::array<std::atomic<std::uint64_t>, reason_count> passed{};
  std::atomic<std::uint64_t> functions_ptx{0};
  std::atomic<std::uint64_t> functions_no_ptx{0};
  std::atomic<std::uint64_t> probes_busy{0};
  std::atomic<std::uint64_t> probes_idle{0};
  std::atomic<std::uint64_t> probes_launch_bound{0};
  std::atomic<std::uint64_t> probe_pauses{0};
  std::atomic<std::uint64_t> probe_code_waits{0};
  std::atomic<std::uint64_t> probe_code_wait_ns{0};
  std::atomic<std::uint64_t> condition_changes{0};
  std::atomic<std::uint64_t> condition_repeats{0};
  std::array<std::atomic<std::uint64_t>, uncopied_count> uncopied_launches{};
};
counters& global() noexcept;
}  // namespace detail

/// @brief Whether counting is on (ACS_STATS=1): for counters that need a clock read first.
inline bool counting_now() noexcept { return detail::counting.load(std::memory_order_relaxed); }

/// @brief Counts a launch handed to acs (only while ACS_STATS=1).
inline void count_kernel() noexcept {
  if (detail::counting.load(std::memory_order_relaxed))
    detail::global().kernels_seen.fetch_add(1, std::memory_order_relaxed);
}

/// @brief Counts a launch passed through, by reason (only while ACS_STATS=1).
inline void count_pass(pass_reason why) noexcept {
  const auto i = static_cast<std::size_t>(why);
  if (detail::counting.load(std::memory_order_relaxed) && i < reason_count)
    detail::global().passed[i].fetch_add(1, std::memory_order_relaxed);
}

/// @brief Counts a kernel function whose parameter layout was read, with or without
/// usable PTX (once per function; only while ACS_STATS=1).
inline void count_function(bool ptx) noexcept {
  if (detail::counting.load(std::memory_order_relaxed))
    (ptx ? detail::global().functions_ptx : detail::global().functions_no_ptx).fetch_add(1, std::memory_order_relaxed);
}

/// @brief Counts a probed launch that queried its stream: busy or idle (only while ACS_STATS=1).
inline void count_probe(bool busy) noexcept {
  if (detail::counting.load(std::memory_order_relaxed))
    (busy ? detail::global().probes_busy : detail::global().probes_idle).fetch_add(1, std::memory_order_relaxed);
}

/// @brief Counts a probed launch onto an idle stream that found the host launch-bound
/// (stream_mode.hpp, ACS_GRAPH=auto; only while ACS_STATS=1).
inline void count_probe_launch_bound() noexcept {
  if (detail::counting.load(std::memory_order_relaxed))
    detail::global().probes_launch_bound.fetch_add(1, std::memory_order_relaxed);
}

/// @brief Counts a probe burst paused because its kernel's code was still being read on acs's
/// background thread (stream_mode::probe_unsettled; only while ACS_STATS=1).
inline void count_probe_pause() noexcept {
  if (detail::counting.load(std::memory_order_relaxed))
    detail::global().probe_pauses.fetch_add(1, std::memory_order_relaxed);
}

/// @brief Counts a probed launch that read its kernel's layout on the program's thread after its
/// burst paused long enough (stream_mode::probe_waited_enough), and the `ns` it took.
inline void count_probe_code_wait(std::uint64_t ns) noexcept {
  if (!detail::counting.load(std::memory_order_relaxed)) return;
  detail::global().probe_code_waits.fetch_add(1, std::memory_order_relaxed);
  detail::global().probe_code_wait_ns.fetch_add(ns, std::memory_order_relaxed);
}

/// @brief Counts a call that may change whether a launch succeeds (a function's attributes, a
/// limit, code unloaded: launch_conditions::change_begins; only while ACS_STATS=1).
inline void count_condition_change() noexcept {
  if (detail::counting.load(std::memory_order_relaxed))
    detail::global().condition_changes.fetch_add(1, std::memory_order_relaxed);
}

/// @brief Counts a set of a function's attribute to the value it already held: no change
/// (launch_conditions::set_function_attribute; only while ACS_STATS=1).
inline void count_condition_repeat() noexcept {
  if (detail::counting.load(std::memory_order_relaxed))
    detail::global().condition_repeats.fetch_add(1, std::memory_order_relaxed);
}

/// @brief Counts a launch that could not be copied, by reason (cuda_backend::detach; only while
/// ACS_STATS=1).
inline void count_uncopied(uncopied why) noexcept {
  if (detail::counting.load(std::memory_order_relaxed))
    detail::global().uncopied_launches[static_cast<std::size_t>(why)].fetch_add(1, std::memory_order_relaxed);
}

/// @brief Where the schedulers' counters come from (set by the runtime).
using scheduler_source = void (*)(summary& s);  // calls add_scheduler for each scheduler
void set_scheduler_source(scheduler_source source) noexcept;

/// @brief A snapshot of every counter.
summary collect() noexcept;

/// @brief "acs-stats: kernels_seen=N dispatched=N ... pass_capturing=N ..." (one line, no newline).
std::string format_machine(const summary& s);

/// @brief The readable lines (newline-terminated).
std::string format_human(const summary& s);

/// @brief Starts counting and prints the summary at exit. Idempotent.
void enable_at_exit() noexcept;

}  // namespace acs::stats
