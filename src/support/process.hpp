#pragma once
// What acs knows of the process it runs in, read on every hooked call (one relaxed load each):
//  * whether the program has made a CUDA call yet (docs/design.md rule 14: until then acs has no
//    side effect: no environment change, no statistics, no threads);
//  * whether this is a child forked after that (rule 13): acs's threads and locks stayed in the
//    parent, so the child passes every call straight through and does no work at exit. (A child
//    forked before the program used CUDA is a fresh process for acs.)
// And, read once, how many CPUs it may use.
#include <atomic>

#include "src/support/hot_flags.hpp"

namespace acs::process {

namespace detail {
extern constinit std::atomic<bool> used;
inline constexpr std::atomic<bool>& child = hot.forked_child;
}  // namespace detail

/// @brief Whether a CUDA call was seen in this process (or its parent, before a fork).
inline bool cuda_used() noexcept { return detail::used.load(std::memory_order_relaxed); }

/// @brief Records that the program makes a CUDA call; true for the first one only.
bool note_cuda_used() noexcept;

/// @brief Whether this is a child forked after acs started: everything passes through. Inline:
/// every hook asks, several times.
inline bool forked_child() noexcept { return detail::child.load(std::memory_order_relaxed); }

/// @brief The pthread_atfork child handler's part: marks the child if CUDA was used before.
void after_fork_in_child() noexcept;

/// @brief How many CPUs the process may run on (its first caller's affinity mask, read once; 1 if
/// it cannot be read): the relay's thread needs one besides the program's (ACS_RELAY).
unsigned usable_cpus() noexcept;

}  // namespace acs::process
