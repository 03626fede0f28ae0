#include "interpose/real_driver.hpp"

#include <atomic>
#include <mutex>

#include "interpose/real_dl.hpp"
#include "src/support/log.hpp"
#include "src/support/hot_flags.hpp"

namespace acs::driver {

namespace {

enum class outcome { ready, not_loaded, failed };

outcome resolve_all(table& t) noexcept {
  void* cuda = real::libcuda();
  if (cuda == nullptr) return outcome::not_loaded;
  const auto get_proc = reinterpret_cast<PFN_cuGetProcAddress_v12000>(real::real_dlsym()(cuda, "cuGetProcAddress_v2"));
  if (get_proc == nullptr) {
    log::warn_once("driver:gpa", "libcuda has no cuGetProcAddress_v2 (driver older than CUDA 12): "
                                 "acs passes every call straight through");
    return outcome::failed;
  }
  bool complete = true;
#define ACS_DRIVER_RESOLVE(name, version, required)                                                  \
  {                                                                                                  \
    void* fn = nullptr;                                                                              \
    CUdriverProcAddressQueryResult found{};                                                          \
    if (get_proc(#name, &fn, version, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &found) != CUDA_SUCCESS ||  \
        found != CU_GET_PROC_ADDRESS_SUCCESS)                                                        \
      fn = nullptr;                                                                                  \
    t.name##_ = reinterpret_cast<PFN_##name##_v##version>(fn);                                       \
    if (fn == nullptr) {                                                                             \
      if (required) complete = false;                                                                \
      log::print_once(required ? log_level::warn : log_level::info, "driver:" #name,                 \
                      "the CUDA driver does not provide {} (ABI {}){}", #name, version,              \
                      required ? ": acs passes every call straight through"                          \
                               : ": some features are unavailable");                                 \
    }                                                                                                \
  }
  ACS_DRIVER_USED(ACS_DRIVER_RESOLVE)
#undef ACS_DRIVER_RESOLVE
  return complete ? outcome::ready : outcome::failed;
}

constexpr std::atomic<bool>& failed = hot.driver_failed;
constexpr std::atomic<const table*>& ready = hot.driver_table;

}  // namespace

void use_for_testing(const table* fake) noexcept {
  ready.store(fake, std::memory_order_release);
  failed.store(false, std::memory_order_relaxed);
}

void resolve_early_slow() noexcept {
  if (ready.load(std::memory_order_acquire) == nullptr && !failed.load(std::memory_order_relaxed)) (void)real_slow();
}

const table* real_slow() noexcept {
  if (const table* t = ready.load(std::memory_order_acquire)) return t;
  if (failed.load(std::memory_order_relaxed)) return nullptr;
  // Not resolved yet: libcuda may simply not be loaded so far, so failure to find it is not
  // final. Anything else is.
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  if (const table* t = ready.load(std::memory_order_acquire)) return t;
  if (failed.load(std::memory_order_relaxed)) return nullptr;
  static table storage;
  const outcome o = resolve_all(storage);
  real::clear_dlerror();  // acs's own look-ups fail on purpose: the application must not read them
  switch (o) {
    case outcome::ready: ready.store(&storage, std::memory_order_release); return &storage;
    case outcome::failed: failed.store(true, std::memory_order_relaxed); return nullptr;
    case outcome::not_loaded: return nullptr;
  }
  return nullptr;
}

}  // namespace acs::driver
