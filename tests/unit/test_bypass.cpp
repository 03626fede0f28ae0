// support/bypass.hpp: the hooks' bypass opens only when the runtime says every stream is aside,
// grants a thread sample_every launches and counts them, closes for good once forbidden, and a
// close with a grace period returns only after every call that entered the bypass has left
// (docs/design.md, "The bypass"). Each test runs in its own process (gtest_discover_tests):
// the bypass is one per process.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "src/support/bypass.hpp"

namespace acs {
namespace {

using namespace std::chrono_literals;

bool ready() { return true; }
bool not_ready() { return false; }

#define SKIP_WITHOUT_MEMBARRIER() \
  if (!bypass::available()) GTEST_SKIP() << "membarrier(2) is unavailable here: the bypass never opens"

TEST(support_bypass, opens_only_when_the_runtime_is_ready) {
  SKIP_WITHOUT_MEMBARRIER();
  EXPECT_FALSE(bypass::open_now());
  EXPECT_FALSE(bypass::try_open(not_ready));
  EXPECT_FALSE(bypass::open_now());
  EXPECT_FALSE(bypass::enter_launch());
  EXPECT_TRUE(bypass::try_open(ready));
  EXPECT_TRUE(bypass::open_now());
  EXPECT_EQ(bypass::counts().opened, 1u);
}

TEST(support_bypass, a_thread_takes_acs_path_once_in_sample_every_launches) {
  SKIP_WITHOUT_MEMBARRIER();
  ASSERT_TRUE(bypass::try_open(ready));  // grants this thread
  std::uint32_t bypassed = 0;
  while (bypass::enter_launch()) {
    bypass::leave(bypass::self);
    ++bypassed;
    ASSERT_LE(bypassed, bypass::sample_every);
  }
  EXPECT_EQ(bypassed, bypass::sample_every);
  EXPECT_EQ(bypass::take_skipped(), bypass::sample_every + 1);  // those, and the launch on acs's path
  EXPECT_EQ(bypass::take_skipped(), 1u);
  bypass::grant();
  EXPECT_TRUE(bypass::enter_launch());
  bypass::leave(bypass::self);
  EXPECT_TRUE(bypass::enter_operation());  // a registered thread's stream operations, not counted
  bypass::leave(bypass::self);
  EXPECT_EQ(bypass::take_skipped(), 2u);
}

TEST(support_bypass, nothing_enters_once_closed) {
  SKIP_WITHOUT_MEMBARRIER();
  ASSERT_TRUE(bypass::try_open(ready));
  bypass::close();
  EXPECT_FALSE(bypass::open_now());
  EXPECT_FALSE(bypass::enter_launch());
  EXPECT_FALSE(bypass::enter_operation());
  EXPECT_EQ(bypass::self.inside.load(), 0u);  // a refused entry leaves the thread outside
  EXPECT_EQ(bypass::counts().closed, 1u);
}

// The property the runtime relies on before a stream's work may reach the pool: close()
// returns after the calls inside the bypass. Fails if the grace period is skipped.
TEST(support_bypass, a_close_with_grace_waits_for_every_call_inside) {
  SKIP_WITHOUT_MEMBARRIER();
  std::atomic<bool> entered{false}, finished{false};
  std::thread caller([&] {
    ASSERT_TRUE(bypass::try_open(ready));
    ASSERT_TRUE(bypass::enter_launch());
    entered.store(true);
    std::this_thread::sleep_for(200ms);  // a launch that takes long in the driver
    finished.store(true);
    bypass::leave(bypass::self);
  });
  while (!entered.load()) std::this_thread::yield();
  bypass::close();
  EXPECT_TRUE(finished.load()) << "close() returned while a bypassed call was still inside";
  EXPECT_EQ(bypass::counts().graces, 1u);
  caller.join();
}

TEST(support_bypass, a_close_with_grace_does_not_wait_for_its_own_thread) {
  SKIP_WITHOUT_MEMBARRIER();
  ASSERT_TRUE(bypass::try_open(ready));
  ASSERT_TRUE(bypass::enter_launch());  // e.g. a runtime call bypassed, its driver call on acs's path
  bypass::close();  // must not deadlock
  bypass::leave(bypass::self);
  EXPECT_FALSE(bypass::open_now());
}

TEST(support_bypass, a_thread_that_exits_gives_its_slot_back) {
  SKIP_WITHOUT_MEMBARRIER();
  ASSERT_TRUE(bypass::try_open(ready));
  // More threads than slots, one after another: each registers, and exits.
  for (int i = 0; i < bypass::max_threads + 8; ++i) {
    bool granted = false;
    std::thread([&] {
      bypass::grant();
      granted = bypass::enter_launch();
      if (granted) bypass::leave(bypass::self);
    }).join();
    ASSERT_TRUE(granted) << "thread " << i << " found no free slot";
  }
  bypass::close();  // scans only live threads' slots
}

TEST(support_bypass, forbidden_for_good) {
  SKIP_WITHOUT_MEMBARRIER();
  ASSERT_TRUE(bypass::try_open(ready));
  bypass::forbid();
  EXPECT_FALSE(bypass::open_now());
  EXPECT_FALSE(bypass::try_open(ready));
  EXPECT_FALSE(bypass::available());
}

}  // namespace
}  // namespace acs
