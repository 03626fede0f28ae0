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

// How many CPUs the process may run on, in two parts. The relay's thread needs one besides the
// program's (ACS_RELAY): on one CPU it would take the program's, and under a cgroup limit of 1.5
// CPUs its spinning would get the whole group throttled.

/// @brief The CPUs in the affinity mask of its first caller, read once (one system call; 1 if it
/// cannot be read): a stream's first launch asks it.
unsigned affinity_cpus() noexcept;

/// @brief Whether a thread of acs's own that spins while work comes (the relay's, ACS_RELAY) leaves
/// the program a CPU: two CPUs or more in the affinity mask, and a cgroup CPU limit (0: none) of
/// two or more.
constexpr bool room_for_a_spinning_thread(unsigned affinity_cpus, unsigned cgroup_cpu_limit) noexcept {
  return affinity_cpus >= 2 && (cgroup_cpu_limit == 0 || cgroup_cpu_limit >= 2);
}

/// @brief This process's cgroup_cpu_limit() (a container's `--cpus`, a Kubernetes CPU limit), read
/// once (about ten file reads, 50-100 µs). acs's background thread reads it at the first CUDA call
/// (start.cpp), and the relay asks only when it would start, so that no launch waits for the files.
unsigned process_cgroup_cpu_limit() noexcept;

/// @brief The whole CPUs a cgroup CPU bandwidth limit leaves the process (rounded down, at least
/// 1), the tightest of its cgroup and the cgroups above it; 0 where none is set or none can be
/// read. `proc_cgroup`: the process's /proc/self/cgroup; `root`: where cgroups are mounted (v2
/// at ROOT or ROOT/unified, v1's cpu controller at ROOT/cpu,cpuacct or ROOT/cpu). Arguments for
/// tests.
unsigned cgroup_cpu_limit(const char* proc_cgroup = "/proc/self/cgroup", const char* root = "/sys/fs/cgroup") noexcept;

}  // namespace acs::process
