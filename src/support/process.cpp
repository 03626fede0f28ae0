#include "src/support/process.hpp"

#include <sched.h>

#include <atomic>

namespace acs::process {

namespace detail {

constinit std::atomic<bool> used{false};

}  // namespace detail

using detail::child;
using detail::used;

bool note_cuda_used() noexcept {
  return !used.load(std::memory_order_relaxed) && !used.exchange(true, std::memory_order_acq_rel);
}

void after_fork_in_child() noexcept {
  if (used.load(std::memory_order_relaxed)) child.store(true, std::memory_order_relaxed);
}

unsigned usable_cpus() noexcept {
  static const unsigned cpus = [] {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 1u;
    const int n = CPU_COUNT(&set);
    return n > 0 ? static_cast<unsigned>(n) : 1u;
  }();
  return cpus;
}

}  // namespace acs::process
