#include "src/support/process.hpp"

#include <atomic>

namespace acs::process {

namespace {

constinit std::atomic<bool> used{false};
constinit std::atomic<bool> child{false};

}  // namespace

bool cuda_used() noexcept { return used.load(std::memory_order_relaxed); }

bool note_cuda_used() noexcept {
  return !used.load(std::memory_order_relaxed) && !used.exchange(true, std::memory_order_acq_rel);
}

bool forked_child() noexcept { return child.load(std::memory_order_relaxed); }

void after_fork_in_child() noexcept {
  if (used.load(std::memory_order_relaxed)) child.store(true, std::memory_order_relaxed);
}

}  // namespace acs::process
