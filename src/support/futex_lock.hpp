#pragma once
// A mutex for the launch path: taken and given back inline, one atomic instruction each, where
// std::mutex makes two calls into libc (a stepped-aside stream's launch holds its stream's lock
// once per launch; on the fake driver std::mutex cost about 20 ns of the 70 ns acs added to such
// a launch). Uncontended in practice, but a holder may block (a launch waiting for room in the
// window), so a waiter spins briefly and then sleeps on the word (C++20 atomic wait: a futex on
// Linux), as std::mutex does. The three states of Drepper's "Futexes Are Tricky" (mutex 3):
// 0 free, 1 held, 2 held with sleepers (its release wakes one).
// Satisfies Lockable: std::unique_lock<futex_lock>.
#include <atomic>

namespace acs {

class futex_lock {
 public:
  futex_lock() noexcept = default;
  futex_lock(const futex_lock&) = delete;
  futex_lock& operator=(const futex_lock&) = delete;

  void lock() noexcept {
    int expected = free;
    if (state_.compare_exchange_strong(expected, held, std::memory_order_acquire, std::memory_order_relaxed)) [[likely]]
      return;
    lock_contended();
  }

  bool try_lock() noexcept {
    int expected = free;
    return state_.compare_exchange_strong(expected, held, std::memory_order_acquire, std::memory_order_relaxed);
  }

  void unlock() noexcept {
    if (state_.exchange(free, std::memory_order_release) == sleepers) [[unlikely]] state_.notify_one();
  }

 private:
  static constexpr int free = 0, held = 1, sleepers = 2;

  void lock_contended() noexcept {
    // A short spin first: most holders are inside one driver call.
    for (int spin = 0; spin < 100; ++spin) {
      if (state_.load(std::memory_order_relaxed) == free && try_lock()) return;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    // Then sleep. Taken this way the lock is marked as having sleepers, which may wake one
    // needlessly at its release: never a missed wake-up.
    while (state_.exchange(sleepers, std::memory_order_acquire) != free) state_.wait(sleepers, std::memory_order_relaxed);
  }

  std::atomic<int> state_{free};
};

}  // namespace acs
