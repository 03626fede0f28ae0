#include "interpose/real_driver_hooked.hpp"

#include <atomic>
#include <type_traits>

#include "src/support/log.hpp"
#include "interpose/real_dl.hpp"
#include "src/support/hot_flags.hpp"
#include "src/support/hot_path.hpp"

namespace acs::real {
namespace {

#define ACS_REAL_DRIVER_CHECK_HOOKED(symbol, kind) ACS_HOOKS_ASSERT_NOT_RENAMED(symbol, #symbol);
ACS_DRIVER_HOOKS(ACS_REAL_DRIVER_CHECK_HOOKED)
#undef ACS_REAL_DRIVER_CHECK_HOOKED

constexpr std::atomic<const driver_state*>& published = hot.driver;

const driver_state* resolve() noexcept {
  void* handle = libcuda();
  if (handle == nullptr) return nullptr;
  auto* state = new (std::nothrow) driver_state{};
  if (state == nullptr) return nullptr;
  state->handle = handle;
  const dlsym_fn lookup = real_dlsym();
#define ACS_REAL_DRIVER_RESOLVE_HOOKED(symbol, kind)                                       \
  state->by_id[static_cast<std::size_t>(driver_id::symbol)] = lookup(handle, #symbol);       \
  state->reals.symbol =                                                                      \
      reinterpret_cast<decltype(&::symbol)>(state->by_id[static_cast<std::size_t>(driver_id::symbol)]);
  ACS_DRIVER_HOOKS(ACS_REAL_DRIVER_RESOLVE_HOOKED)
#undef ACS_REAL_DRIVER_RESOLVE_HOOKED
  clear_dlerror();  // symbols an older driver lacks failed on purpose

  log::debug("resolved the real driver entry points from libcuda.so.1 (handle {})", handle);
  return publish(published, state);
}

}  // namespace

const driver_state* resolve_driver_state() noexcept { return published_or(published, resolve); }


}  // namespace acs::real
