#pragma once
// Stream capture, as acs must respect it (docs/design.md rule 5).
//
// Capture note. While a stream is being captured, work issued to it is recorded
// into a graph instead of running, so its launches pass straight through: that
// is always valid. Beyond that, some calls are "unsafe" during capture (event
// and stream queries, synchronisation, which the scheduler makes when it
// retires work): in cudaStreamCaptureModeGlobal they break a capture in
// progress on *any* thread, in cudaStreamCaptureModeThreadLocal one on the
// calling thread, and cudaStreamCaptureModeRelaxed forbids nothing. While such
// a capture is under way, launches on other streams pass through too. The
// scheduler's barrier/synchronized/forget bookkeeping makes no CUDA call, so it
// stays in use throughout.
//
// A thread may already be inside the scheduler when another begins a global
// capture. So launches enter an unsafe_section (a per-thread flag, then a check
// of the capture count) and capture_began, after counting the capture, waits
// until no thread is inside one: a Dekker-style handshake on seq_cst atomics.
// Hooks must therefore call capture_began *before* forwarding the begin.
//
// A stream can join a capture without capture_began (it waits on an event
// recorded in a capturing stream), so each launch also asks the driver
// (cuStreamIsCapturing, 0.08 µs, safe at any time).
#include <cuda.h>

#include <atomic>

#include "interpose/real_driver.hpp"
#include "scheduler/scheduler.hpp"

namespace acs {

/// @brief Whether `stream` (never 0) is capturing, or the driver cannot tell
/// (e.g. CUDA_ERROR_STREAM_CAPTURE_IMPLICIT on the legacy stream): either way,
/// pass through.
bool stream_capturing(const driver::table& cuda, CUstream stream) noexcept;

/// @brief Whether a stream capture of any mode is in progress anywhere in the process.
bool capture_in_progress_anywhere() noexcept;

/// @brief Scope in which the calling thread may make capture-unsafe calls, if allowed(). Nests:
/// an inner section gives the outermost's answer.
class unsafe_section {
 public:
  unsafe_section() noexcept;
  ~unsafe_section();
  unsafe_section(const unsafe_section&) = delete;
  unsafe_section& operator=(const unsafe_section&) = delete;

  /// @brief False while a capture forbids unsafe calls on this thread: then pass through.
  bool allowed() const noexcept { return flag_ != nullptr; }

 private:
  std::atomic<bool>* flag_ = nullptr;
  bool nested_ = false;
};

/// @brief The scheduler's guard for its flushes outside a launch: an unsafe_section per thread.
unsafe_call_guard& scheduler_unsafe_call_guard() noexcept;

}  // namespace acs
