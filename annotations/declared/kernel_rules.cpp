#include "annotations/declared/kernel_rules.hpp"

#include <mutex>

namespace acs::annotations {

void rule_registry::set(const void* function, const kernel_rule& rule) {
  std::unique_lock lock(mutex_);
  rules_[function] = rule;
  count_.store(rules_.size(), std::memory_order_relaxed);
}

bool rule_registry::erase(const void* function) {
  std::unique_lock lock(mutex_);
  const bool erased = rules_.erase(function) > 0;
  count_.store(rules_.size(), std::memory_order_relaxed);
  return erased;
}

std::optional<kernel_rule> rule_registry::find(const void* function) const {
  if (count_.load(std::memory_order_relaxed) == 0) return std::nullopt;
  std::shared_lock lock(mutex_);
  const auto it = rules_.find(function);
  if (it == rules_.end()) return std::nullopt;
  return it->second;
}

rule_registry& kernel_rules() noexcept {
  static auto* const registry = new rule_registry;
  return *registry;
}

}  // namespace acs::annotations
