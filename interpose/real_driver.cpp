#include "real_driver.hpp"

#include <atomic>
#include <type_traits>

#include "hooks_log.hpp"
#include "real_dl.hpp"
#include "real_driver_hooked.hpp"

namespace acs::real {
namespace {

// The PFN chosen for each used entry point must be the ABI of that exact symbol.
#define ACS_REAL_DRIVER_CHECK_USED(symbol, pfn)                                        \
  ACS_HOOKS_ASSERT_NOT_RENAMED(symbol, #symbol);                                       \
  static_assert(std::is_same_v<pfn, decltype(&::symbol)>, #pfn " is not the ABI of " #symbol);
ACS_DRIVER_USED(ACS_REAL_DRIVER_CHECK_USED)
#undef ACS_REAL_DRIVER_CHECK_USED

#define ACS_REAL_DRIVER_CHECK_HOOKED(symbol, kind) ACS_HOOKS_ASSERT_NOT_RENAMED(symbol, #symbol);
ACS_DRIVER_HOOKS(ACS_REAL_DRIVER_CHECK_HOOKED)
#undef ACS_REAL_DRIVER_CHECK_HOOKED

constinit std::atomic<const driver_state*> published{nullptr};

const driver_state* resolve() noexcept {
  void* handle = libcuda();
  if (handle == nullptr) return nullptr;
  auto* state = new (std::nothrow) driver_state{};
  if (state == nullptr) return nullptr;
  state->handle = handle;
  const dlsym_fn lookup = real_dlsym();
#define ACS_REAL_DRIVER_RESOLVE_USED(symbol, pfn) \
  state->used.symbol = reinterpret_cast<pfn>(lookup(handle, #symbol));
  ACS_DRIVER_USED(ACS_REAL_DRIVER_RESOLVE_USED)
#undef ACS_REAL_DRIVER_RESOLVE_USED
#define ACS_REAL_DRIVER_RESOLVE_HOOKED(symbol, kind)                                       \
  state->by_id[static_cast<std::size_t>(driver_id::symbol)] = lookup(handle, #symbol);       \
  state->reals.symbol =                                                                      \
      reinterpret_cast<decltype(&::symbol)>(state->by_id[static_cast<std::size_t>(driver_id::symbol)]);
  ACS_DRIVER_HOOKS(ACS_REAL_DRIVER_RESOLVE_HOOKED)
#undef ACS_REAL_DRIVER_RESOLVE_HOOKED
  clear_dlerror();  // symbols an older driver lacks failed on purpose

  const driver_state* expected = nullptr;
  if (!published.compare_exchange_strong(expected, state, std::memory_order_acq_rel)) {
    delete state;  // another thread resolved the same libcuda first
    return expected;
  }
  ACS_HOOK_DEBUG("resolved the real driver entry points from libcuda.so.1 (handle %p)", handle);
  return state;
}

}  // namespace

const driver_state* driver_state_now() noexcept {
  const driver_state* state = published.load(std::memory_order_acquire);
  return state != nullptr ? state : resolve();
}

const driver_api* driver() noexcept {
  const driver_state* state = driver_state_now();
  return state != nullptr ? &state->used : nullptr;
}

}  // namespace acs::real
