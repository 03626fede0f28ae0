#pragma once
// Application streams as virtual streams: which context they belong to, their
// key in the scheduler, and their kind.
//
// Default-stream note. The handle 0 means the legacy default stream for most
// entry points but the per-thread default stream for `_ptsz`/`_ptds` ones and
// for code built with --default-stream per-thread; the hooks say which
// (default_stream). 0 is normalised to CU_STREAM_LEGACY or CU_STREAM_PER_THREAD
// here. Both special handles mean a stream of the *current* context, and the
// per-thread one is a different stream on every thread: its key is unique per
// thread (and never reused), while the handle CU_STREAM_PER_THREAD stays valid
// for the scheduler because only the owning thread records or waits on it.
//
// Created streams are looked up once with cuStreamGetCtx / cuStreamGetFlags /
// cuStreamGetPriority (their pool streams get that priority, docs/design.md rule 12) and
// cached (a process-wide map, fronted by a small per-thread cache); a destroyed
// stream's handle may be reused at once, so destruction invalidates the caches.
#include <cuda.h>

#include <cstdint>

#include "src/runtime/dispatch.hpp"
#include "src/runtime/devices.hpp"
#include "src/runtime/stream_mode.hpp"
#include "interpose/real_driver.hpp"
#include "scheduler/scheduler.hpp"
#include "src/support/hot_flags.hpp"

namespace acs {

struct stream_target {
  context_entry* context = nullptr;
  virtual_stream stream;        // key, handle (never 0), kind, priority
  stream_mode* mode = nullptr;  // whether acs redirects the stream's kernels (never null once resolved)
};

/// @brief How many streams, over every device, acs redirects now (first launch seen, mode
/// `redirect`). While none is, no stream has work on the pool that it does not contain
/// itself, so operations on streams need no join or fork: the hooks skip the scheduler.
inline std::atomic<int>& redirected_streams() noexcept { return hot.redirected_streams; }

/// @brief 0 replaced by the default stream the entry point means.
inline CUstream normalise_stream(CUstream stream, default_stream zero) noexcept {
  if (stream != nullptr) return stream;
  return zero == default_stream::per_thread ? CU_STREAM_PER_THREAD : CU_STREAM_LEGACY;
}

/// @brief This thread's per-thread default stream key: unique, and ≡ 3 (mod 4) so it
/// never equals a stream handle (aligned pointers) or CU_STREAM_LEGACY.
std::uintptr_t per_thread_stream_key() noexcept;

/// @brief Resolves an application stream. False when its context is unknown (no
/// current context for a default stream, or an invalid handle). Never creates a scheduler.
bool resolve_stream(const driver::table& cuda, CUstream stream, default_stream zero, stream_target& out);

/// @brief Forgets a created stream (destroyed). Returns false if it was never resolved.
bool forget_stream(CUstream stream, stream_target& was);

/// @brief Forgets every stream of an abandoned context.
void forget_streams_of(context_entry* context);

}  // namespace acs
