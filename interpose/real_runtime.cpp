#include "interpose/real_runtime.hpp"

#include <atomic>
#include <new>

#include "src/support/log.hpp"
#include "interpose/real_dl.hpp"

namespace acs::real {
namespace {

#define ACS_REAL_RUNTIME_CHECK(symbol, ...) ACS_HOOKS_ASSERT_NOT_RENAMED(symbol, #symbol);
ACS_RUNTIME_HOOKS(ACS_REAL_RUNTIME_CHECK)
ACS_RUNTIME_USED(ACS_REAL_RUNTIME_CHECK)
#undef ACS_REAL_RUNTIME_CHECK

// The symbol version of the runtime these hooks were compiled for; libacs.map gives the runtime
// hooks the same one, so that only references made against this runtime reach them.
static_assert(CUDART_VERSION / 1000 == 13, "update cudart_version and interpose/libacs.map");
constexpr const char* cudart_version = "libcudart.so.13";

constinit std::atomic<const runtime_reals*> published{nullptr};

const runtime_reals* resolve() noexcept {
  auto* reals = new (std::nothrow) runtime_reals{};
  if (reals == nullptr) return nullptr;
  bool any = false;
#define ACS_REAL_RUNTIME_RESOLVE(symbol, ...)                                      \
  reals->symbol = reinterpret_cast<decltype(&::symbol)>(cudart_symbol(#symbol, cudart_version)); \
  any = any || reals->symbol != nullptr;
  ACS_RUNTIME_HOOKS(ACS_REAL_RUNTIME_RESOLVE)
  ACS_RUNTIME_USED(ACS_REAL_RUNTIME_RESOLVE)
#undef ACS_REAL_RUNTIME_RESOLVE
  clear_dlerror();
  if (!any) {  // no libcudart.so.13 in the process: try again at the next call
    delete reals;
    return nullptr;
  }
  log::debug("resolved the real runtime entry points");
  return publish(published, reals);
}

}  // namespace

const runtime_reals* runtime() noexcept { return published_or(published, resolve); }

}  // namespace acs::real
