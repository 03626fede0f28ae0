#pragma once
// ACS_TRACE and the measured half of ACS_STATS: one CUPTI activity session per
// process, started on demand, and everything the runtime calls.
//
// Cost when off. Unless start() is asked for a trace or for measurements,
// CUPTI is never loaded, no observer is installed and the launch path is as
// without tracing. When on, each pool launch pays one push and one pop of an
// external correlation id, a clock read and one append (see observer.hpp).
//
// Coexistence with other CUPTI clients (docs/design.md §7: one subscriber per
// process). acs never stays subscribed: it only probes with cuptiSubscribe,
// and unsubscribes at once, to find out whether another client (Nsight
// Systems or Compute, cuda-gdb, compute-sanitizer, torch.profiler, a program
// of its own) holds CUPTI. If one does, or if any activity call fails, acs
// warns once, records nothing and changes nothing; the program runs as
// without ACS_TRACE. A client that starts AFTER acs (torch.profiler started
// mid-run) finds the subscriber slot free and subscribes as usual. CUPTI keeps
// one pair of activity-buffer callbacks per process, though: once that client
// registers its own, the buffers go to it, so acs's trace and figures cover
// only the time before (or less: a flush hands acs's pending records to it),
// that client also receives the record kinds acs enabled (kernels, copies,
// correlations of kind CUSTOM2, which it should ignore), and if it disables
// kinds or finalises CUPTI, acs collects nothing more. The program itself
// runs unchanged. acs's correlation kind is CUSTOM2 because torch.profiler
// (Kineto) uses CUSTOM0 and CUSTOM1: ids of one kind nest, and CUPTI reports
// only one per kind, so sharing a kind would corrupt its operator links.
// (This late-client case follows CUPTI's documented model; it is untested.)
//
// Flush points: at exit (an atexit handler registered by start(), so it runs
// before handlers registered earlier, such as the stats printer's) and
// trace_flush(), which the hooks call before a device reset destroys the
// context. Records of kernels still running at the final flush are dropped
// (counted as incomplete). A forked child writes nothing.
#include <optional>
#include <string>
#include <vector>

#include "scheduler/scheduler.hpp"
#include "src/trace/measure.hpp"

namespace acs::trace {

/// @brief Receives the tracer's messages; `warning` false for information.
using log_sink = void (*)(bool warning, const char* message) noexcept;

struct options {
  std::string path;        // ACS_TRACE: trace file ("%p": the process id; relative: to the cwd at start)
  bool measure = false;    // ACS_STATS: keep measured figures for the stats summary
  log_sink log = nullptr;  // default: warnings on stderr as "[acs] [warn] ...", information dropped
  std::vector<std::string> cupti_candidates;  // empty: cupti::default_candidates()
  // Record every driver and runtime API call to carry the external
  // correlations. On the H200 with CUDA 13, enabling the launch functions one
  // by one delivered no external correlation records at all, so this is the
  // default; false tries the per-function switches first.
  bool all_api_records = true;
};

/// @brief Starts collection if `opts` asks for a trace or measurements. Only the
/// first call acts; later ones return its result. Call it on acs's first CUDA
/// call, before creating any scheduler (also when ACS_DISABLE=1: the trace then
/// shows the program as it runs without acs), outside acs's locks and never from
/// inside the dlsym / cuGetProcAddress hooks (loading CUPTI calls dlsym).
/// Returns whether collection is on. Never throws.
bool start(const options& opts) noexcept;

/// @brief start(make()) the first time, with the options made only then; later
/// calls cost one atomic load. Safe to call at the top of every launch.
bool start_once(options (*make)()) noexcept;

/// @brief Whether start() or start_once() has decided, for good, whether tracing is on.
bool start_decided() noexcept;

/// @brief Whether collection is on: one relaxed load.
bool collecting() noexcept;

/// @brief A new observer for a scheduler of `device` (the CUDA ordinal), to pass
/// to scheduler::set_observer; nullptr when not collecting. Owned by the tracer
/// and never freed. Ask again for a scheduler created anew (after a reset).
dispatch_observer* new_observer(unsigned device) noexcept;

/// @brief The measured figures for the stats summary: those of the final flush
/// at exit once it ran, else from a flush now. nullopt when not measuring or
/// when collection could not start (then print trace::machine_fields(nullptr)).
std::optional<measured> measured_figures() noexcept;

}  // namespace acs::trace

namespace acs {

/// @brief Delivers CUPTI's pending records and, with ACS_TRACE, rewrites the
/// trace file with everything so far. Call before forwarding cudaDeviceReset,
/// cuDevicePrimaryCtxReset or cuCtxDestroy. A no-op when not collecting.
void trace_flush() noexcept;

}  // namespace acs
