#pragma once
// A mutex for the launch path: taken and given back inline, one atomic instruction each, where
// std::mutex makes two calls into libc (a stepped-aside stream's launch takes its stream's lock
// once per launch: on the fake driver such a launch went from 89 to 83 ns with this, native 13;
// 7 interleaved runs, medians). Uncontended in practice, but a holder may block (a launch waiting for room in the
// window), so a waiter spins briefly and then sleeps on the word with the futex system call, as
// std::mutex does. Not C++20's atomic wait: libstdc++ 12's woke such a waiter up to 3.6 ms after
// the release (90th percentile 0.9 ms; the futex's 83 us, its worst 92 us: 40 wakes each on the
// 2-core CPU machine under a build's load; README's GPU test suite section met it too). The
// three states of Drepper's "Futexes Are Tricky" (mutex 3): 0 free, 1 held, 2 held with sleepers
// (its release wakes one).
// Satisfies Lockable: std::unique_lock<futex_lock>.
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

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
    if (state_.exchange(free, std::memory_order_release) == sleepers) [[unlikely]] wake_one();
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
    while (state_.exchange(sleepers, std::memory_order_acquire) != free) sleep_while_sleepers();
  }

  // The kernel compares the word with `sleepers` under its own lock before sleeping: a release in
  // between makes the call return at once (EAGAIN), as does a signal (EINTR); the loop retries.
  void sleep_while_sleepers() noexcept {
    (void)syscall(SYS_futex, word(), FUTEX_WAIT_PRIVATE, sleepers, nullptr, nullptr, 0);
  }
  void wake_one() noexcept { (void)syscall(SYS_futex, word(), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0); }
  int* word() noexcept { return reinterpret_cast<int*>(&state_); }
  static_assert(sizeof(std::atomic<int>) == sizeof(int) && std::atomic<int>::is_always_lock_free);

  std::atomic<int> state_{free};
};

}  // namespace acs
