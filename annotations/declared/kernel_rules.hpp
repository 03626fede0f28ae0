#pragma once
// Per-kernel rules (acs_register_kernel), by function handle. Registration is
// rare and lookups happen at every launch: a process with no rule pays one
// relaxed load; otherwise a shared lock.
#include <atomic>
#include <cstddef>
#include <optional>
#include <shared_mutex>
#include <unordered_map>

#include "acs/acs.h"
#include "annotations/declared/declared_set.hpp"

// What acs_footprint_read/write fill in while a rule runs.
struct acs_footprint {
  acs::annotations::declared_set set;
  unsigned issues = 0;
};

namespace acs::annotations {

struct kernel_rule {
  acs_kernel_rule rule = nullptr;
  void* user = nullptr;
  bool exact = false;
};

class rule_registry {
 public:
  /// @brief Sets (or replaces) the rule of `function`.
  void set(const void* function, const kernel_rule& rule);
  /// @brief Removes the rule of `function`; false if it had none.
  bool erase(const void* function);
  /// @brief The rule of `function`, if any.
  std::optional<kernel_rule> find(const void* function) const;
  std::size_t size() const noexcept { return count_.load(std::memory_order_relaxed); }

 private:
  mutable std::shared_mutex mutex_;
  std::unordered_map<const void*, kernel_rule> rules_;
  std::atomic<std::size_t> count_{0};
};

/// @brief The process's rules. Never destroyed: launches may come during exit.
rule_registry& kernel_rules() noexcept;

}  // namespace acs::annotations
