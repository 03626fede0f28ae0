#pragma once
// What hooks_driver.cpp and hooks_runtime.cpp generate for each line of their table: the Entry
// type that hook<> is instantiated with (hooks_generic.hpp says what it provides), and the calls
// per hook, counted while debug logging is on and printed at exit.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "interpose/hooks_kind.hpp"
#include "src/runtime/dispatch.hpp"
#include "src/support/log.hpp"

namespace acs::hooks {

template <std::size_t N>
class hook_counters {
 public:
  // `print_at_exit` prints this table's counters (a plain function, for atexit).
  void count(std::size_t line, bool nested, void (*print_at_exit)()) noexcept {
    if (!log::enabled(log_level::debug)) return;
    (nested ? nested_ : calls_)[line].fetch_add(1, std::memory_order_relaxed);
    if (!registered_.exchange(true, std::memory_order_relaxed)) std::atexit(print_at_exit);
  }

  // `names`: the table's symbols, one per line.
  void print(const char* const (&names)[N]) const noexcept {
    for (std::size_t i = 0; i < N; ++i) {
      const std::uint64_t calls = calls_[i].load(std::memory_order_relaxed);
      const std::uint64_t nested = nested_[i].load(std::memory_order_relaxed);
      if (calls + nested == 0) continue;
      log::debug("{}: {} calls handled, {} nested calls passed through", names[i],
                 static_cast<unsigned long long>(calls), static_cast<unsigned long long>(nested));
    }
  }

 private:
  std::atomic<std::uint64_t> calls_[N] = {};
  std::atomic<std::uint64_t> nested_[N] = {};
  std::atomic<bool> registered_{false};
};

}  // namespace acs::hooks

// One Entry type per table line: `reals` is an expression for the struct of real pointers of the
// line's library (nullptr while it is not loaded), `line` the line's index for count_call.
#define ACS_HOOKS_ENTRY(symbol, kind_, api_, reals, line)                                   \
  ACS_HOOKS_ASSERT_NOT_RENAMED(symbol, #symbol);                                             \
  struct entry_##symbol {                                                                    \
    static constexpr const char* name = #symbol;                                             \
    static constexpr hook_api api = hook_api::api_;                                          \
    static constexpr hook_kind kind = hook_kind::kind_;                                      \
    static constexpr default_stream zero =                                                   \
        per_thread_variant(#symbol) ? default_stream::per_thread : default_stream::legacy;  \
    static decltype(&::symbol) real() noexcept {                                             \
      const auto* loaded = reals;                                                            \
      return loaded != nullptr ? loaded->symbol : nullptr;                                   \
    }                                                                                        \
    static void count(bool nested) noexcept { count_call(line, nested); }                    \
  };

// The exported wrapper of a hooked line (pass lines get none).
#define ACS_HOOKS_EXPORT_LINE(symbol, kind) \
  ACS_HOOKED_##kind(ACS_HOOKS_EXPORT(symbol, &hook<entry_##symbol>::call))

// The table's symbols, one per line, for hook_counters::print.
#define ACS_HOOKS_NAME(symbol, kind) #symbol,
