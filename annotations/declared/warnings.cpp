#include "annotations/declared/warnings.hpp"

#include <atomic>

namespace acs::annotations {

namespace {

constexpr auto kinds = static_cast<std::size_t>(warning::count_);
std::atomic<bool> reported[kinds];

}  // namespace

bool first_report(warning w) noexcept {
  const auto i = static_cast<std::size_t>(w);
  return i < kinds && !reported[i].exchange(true, std::memory_order_relaxed);
}

void forget_reports() noexcept {
  for (auto& r : reported) r.store(false, std::memory_order_relaxed);
}

}  // namespace acs::annotations
