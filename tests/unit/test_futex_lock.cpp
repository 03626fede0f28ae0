// support/futex_lock.hpp: the launch path's lock excludes (no two holders, no lost update under
// contention), a waiter that went to sleep is woken by the release, and try_lock fails while held.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "src/support/futex_lock.hpp"

namespace acs {
namespace {

using namespace std::chrono_literals;

TEST(support_futex_lock, holders_never_overlap_and_no_update_is_lost) {
  futex_lock lock;
  std::atomic<int> inside{0};
  std::atomic<int> overlaps{0};
  long counter = 0;  // plain: only the lock protects it
  constexpr int threads = 4, rounds = 50000;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&] {
      for (int i = 0; i < rounds; ++i) {
        std::lock_guard held(lock);
        if (inside.fetch_add(1, std::memory_order_relaxed) != 0) overlaps.fetch_add(1, std::memory_order_relaxed);
        ++counter;
        // Now and then a holder stays long enough for the others to go to sleep.
        if (i % 5000 == 0) std::this_thread::sleep_for(100us);
        inside.fetch_sub(1, std::memory_order_relaxed);
      }
    });
  for (std::thread& w : workers) w.join();
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_EQ(counter, static_cast<long>(threads) * rounds);
}

TEST(support_futex_lock, a_sleeping_waiter_is_woken_by_the_release) {
  futex_lock lock;
  lock.lock();
  std::atomic<bool> released{false};
  auto waiter = std::async(std::launch::async, [&] {
    lock.lock();  // spins, then sleeps: the holder keeps it far longer than the spin
    const bool after_release = released.load();
    lock.unlock();
    return after_release;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(waiter.wait_for(0ms), std::future_status::timeout) << "the waiter got a held lock";
  released.store(true);
  lock.unlock();
  ASSERT_EQ(waiter.wait_for(10s), std::future_status::ready) << "the release did not wake the waiter";
  EXPECT_TRUE(waiter.get());
}

TEST(support_futex_lock, try_lock_fails_while_held_and_succeeds_once_released) {
  futex_lock lock;
  ASSERT_TRUE(lock.try_lock());
  EXPECT_FALSE(std::async(std::launch::async, [&] { return lock.try_lock(); }).get());
  lock.unlock();
  EXPECT_TRUE(std::async(std::launch::async, [&] {
                const bool got = lock.try_lock();
                if (got) lock.unlock();
                return got;
              }).get());
}

}  // namespace
}  // namespace acs
