#include "src/support/process.hpp"

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

}  // namespace acs::process
