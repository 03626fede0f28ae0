#pragma once
// What the runtime sets up, and when:
//  * when libacs loads: the annotation layer gets the runtime's services (declared::connect),
//    and fork handlers are registered (rule 13: drain before fork(), pass everything through in
//    a child forked after acs started). Nothing the program could notice;
//  * at the program's first CUDA call (cuda_in_use, dispatch.hpp): CUDA_DEVICE_MAX_CONNECTIONS,
//    before any context exists (rule 14: a process that never calls CUDA sees no side effect);
//  * at acs's first call into the runtime (any dispatch.hpp entry but active(), which hooks may
//    call from inside dlsym): tracing starts if ACS_TRACE or ACS_STATS ask for it (also under
//    ACS_DISABLE: the trace then shows the program as it runs without acs).

#include "src/support/hot_flags.hpp"

namespace acs {

void runtime_started_slow() noexcept;

/// @brief Starts what has not started yet; one atomic load afterwards (inline: every hooked
/// launch calls it). Never throws.
inline void runtime_started() noexcept {
  if (hot.runtime_started.load(std::memory_order_acquire) || hot.forked_child.load(std::memory_order_relaxed))
    [[likely]] return;
  runtime_started_slow();
}

}  // namespace acs
