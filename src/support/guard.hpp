#pragma once
// The one way acs contains a failure of its own (rule 14: hooks never throw, never change
// CUDA's semantics): the work is wrapped in guarded(), an exception becomes one warning per
// place, and the caller goes on as if acs had nothing to do there (pass-through).
#include <type_traits>
#include <utility>

namespace acs {

/// @brief acs's own bookkeeping failed in `where` (a static string): said once per place.
void internal_failure(const char* where) noexcept;

/// @brief Runs `body`; should it throw, reports internal_failure(where) and returns.
template <class F>
  requires std::is_void_v<std::invoke_result_t<F&>>
void guarded(const char* where, F&& body) noexcept {
  try {
    body();
  } catch (...) {
    internal_failure(where);
  }
}

/// @brief Runs `body` for its result; should it throw, reports internal_failure(where) and
/// returns `fallback`.
template <class T, class F>
T guarded(const char* where, T fallback, F&& body) noexcept {
  try {
    return body();
  } catch (...) {
    internal_failure(where);
    return fallback;
  }
}

}  // namespace acs
