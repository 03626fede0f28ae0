#pragma once
// The real driver entry points behind each driver hook, one typed member per table line.
// Only for the hooks' translation units (they need __CUDA_API_VERSION_INTERNAL: hooks_cuda.hpp).
#include <array>
#include <atomic>
#include <cstddef>

#include "interpose/hooks_cuda.hpp"
#include "interpose/hooks_table.inc"
#include "src/support/hot_flags.hpp"

namespace acs::real {

// Dense index of each hooked driver symbol (pass lines included, as they take no room anyway).
enum class driver_id : unsigned {
#define ACS_REAL_DRIVER_ID(symbol, kind) symbol,
  ACS_DRIVER_HOOKS(ACS_REAL_DRIVER_ID)
#undef ACS_REAL_DRIVER_ID
  count_
};
inline constexpr std::size_t driver_hook_count = static_cast<std::size_t>(driver_id::count_);

struct driver_reals {
#define ACS_REAL_DRIVER_HOOKED(symbol, kind) decltype(&::symbol) symbol = nullptr;
  ACS_DRIVER_HOOKS(ACS_REAL_DRIVER_HOOKED)
#undef ACS_REAL_DRIVER_HOOKED
};

// Everything resolved from one libcuda.so.1, published once.
struct driver_state {
  void* handle = nullptr;
  driver_reals reals;
  std::array<void*, driver_hook_count> by_id{};  // the same pointers as `reals`, by driver_id
};

// Resolves and publishes the table (in hot.driver), or nullptr while libcuda.so.1 is not loaded.
const driver_state* resolve_driver_state() noexcept;

// nullptr while libcuda.so.1 is not loaded. Inline: every driver hook asks, first of all (one
// load of the hot line once published; src/support/hot_flags.hpp).
[[gnu::always_inline]] inline const driver_state* driver_state_now() noexcept {
  const real::driver_state* state = hot.driver.load(std::memory_order_acquire);
  return state != nullptr ? state : resolve_driver_state();
}

}  // namespace acs::real
