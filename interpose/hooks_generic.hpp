#pragma once
// One wrapper template for every hooked entry point.
//
// hook<Entry>::call has exactly the signature of the real function (taken from its type), so
// it can be exported under the symbol's name and returned from dlsym / cuGetProcAddress in
// place of the real pointer. It forwards straight to the real function when nested inside
// another hook (hooks_guard.hpp), and otherwise hands the call to the handler of its kind
// (hooks_handlers.hpp). A call that fails is reported (call_failed): a failed context means
// that no launch may be deferred any more (docs/design.md rule 6). In a child forked after acs
// started, every call goes straight to the real function (rule 13). So do launches and stream
// operations while the bypass is open (src/support/bypass.hpp).
//
// Entry (generated from hooks_table.inc in hooks_driver.cpp and hooks_runtime.cpp) provides:
//   static constexpr const char* name; hook_api api; hook_kind kind; acs::default_stream zero;
//   static real_type real() noexcept;   // nullptr when the real library is not loaded
//   static void count(bool nested) noexcept;  // diagnostics (ACS_LOG_LEVEL=debug)
#include "interpose/hooks_guard.hpp"
#include "interpose/hooks_handlers.hpp"
#include "interpose/hooks_kind.hpp"
#include "interpose/real_driver.hpp"
#include "src/support/bypass.hpp"
#include "src/support/config.hpp"
#include "src/support/process.hpp"
#include "src/support/stage_timer.hpp"

namespace acs::hooks {

template <class Entry, class Fn = decltype(Entry::real())>
struct hook;

template <class Entry, class R, class... A>
struct hook<Entry, R (*)(A...)> {
  static R call(A... a) noexcept {
    if constexpr (Entry::kind == hook_kind::launch) ACS_STAGE_BEGIN();
    const auto real = Entry::real();
    if (real == nullptr) [[unlikely]] {
      report_missing_real(Entry::name);
      return static_cast<R>(500);
    }
    // While every stream is stepped aside (src/support/bypass.hpp): straight to the driver, and
    // what the real function calls through acs's wrappers is nested (a runtime launch's driver
    // launch is neither counted again nor handled). Never in a forked child (the fork closed it).
    if constexpr (Entry::kind == hook_kind::launch || Entry::kind == hook_kind::barrier) {
      if (bypass::open_now() && !nested() &&
          (Entry::kind == hook_kind::launch ? bypass::enter_launch() : bypass::enter_operation())) {
        R result;
        {
          hook_scope scope;
          result = real(a...);
        }
        bypass::leave(bypass::self);
        if (result != R{}) [[unlikely]] call_failed(static_cast<int>(result));
        return result;
      }
    }
    // acs's threads and locks stayed in the parent: nothing of acs may run here.
    if (process::forked_child()) [[unlikely]] return real(a...);
    // ACS_DISABLE, CUDA_LAUNCH_BLOCKING: nothing of acs runs, and cuGetProcAddress hands out the
    // real pointers, so calls made through them skip acs altogether. Only the trace may start
    // (ACS_STATS=1 ACS_DISABLE=1 measures the program's own concurrency): then the wrappers are
    // still handed out, and start it at their first call (never while code loads); a teardown
    // still flushes it (handled below).
    if constexpr (Entry::kind == hook_kind::proc_address) {
      if (settings().hands_out_real_functions()) [[unlikely]] return real(a...);
    } else if constexpr (Entry::kind != hook_kind::teardown) {
      if (settings().pass_through()) [[unlikely]] {
        if constexpr (Entry::kind != hook_kind::code_load) {
          if (!nested()) {
            passing_through(launches(Entry::kind));
            hook_scope scope;  // what the real function calls through acs's wrappers is not counted again
            return real(a...);
          }
        }
        return real(a...);
      }
    }
    // Pointer substitution must happen even when nested: the caller keeps the pointer.
    // So must recording loaded code: the runtime loads it from inside other entry points.
    if (Entry::kind != hook_kind::proc_address && Entry::kind != hook_kind::code_load && nested()) {
      Entry::count(true);
      return real(a...);
    }
    cuda_in_use();
    hook_scope scope;
    Entry::count(false);
    const R result = handle<Entry>(kind_tag<Entry::kind>{}, real, a...);
    if (result != R{}) [[unlikely]] {
      call_failed(static_cast<int>(result));
    } else if constexpr (Entry::kind != hook_kind::code_load && Entry::kind != hook_kind::proc_address) {
      driver::resolve_early();  // outermost calls only: these two kinds may be nested in others
    }
    return result;
  }
};

}  // namespace acs::hooks
