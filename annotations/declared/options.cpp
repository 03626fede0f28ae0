#include "annotations/declared/options.hpp"

#include <atomic>

#include "src/support/config.hpp"

namespace acs::annotations {

namespace {

std::atomic<const options*> overridden{nullptr};

}  // namespace

const options& current_options() noexcept {
  if (const options* o = overridden.load(std::memory_order_acquire)) return *o;
  static const options from_settings = [] {
    const config& c = settings();
    return options{!c.pass_through(), c.infer == infer_mode::alloc, c.check};
  }();
  return from_settings;
}

void override_options(const options& o) noexcept {
  // Tests change options between cases, with no launch or annotation in flight.
  static options storage;
  storage = o;
  overridden.store(&storage, std::memory_order_release);
}

}  // namespace acs::annotations
