#include "src/support/bypass.hpp"

#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <mutex>

#include "src/support/log.hpp"

namespace acs::bypass {

constinit thread_local thread_state self [[gnu::tls_model("initial-exec")]];

namespace {

enum class fence_kind : std::uint8_t { unknown, expedited, global, none };

// All under `gate`, except the registry's loads by nobody else and `forbidden`'s first test.
std::mutex gate;
std::atomic<std::atomic<std::uint32_t>*> registry[max_threads];
fence_kind fence = fence_kind::unknown;
bool pending = false;  // opened since the last grace period: a call may be inside
std::atomic<bool> forbidden{false};
std::atomic<std::uint64_t> opened{0}, closed{0}, graces{0};
pthread_key_t exit_key;
bool have_exit_key = false;

int membarrier(int command) noexcept { return static_cast<int>(syscall(__NR_membarrier, command, 0, 0)); }

// Under `gate`: which fence a grace period uses, decided once.
fence_kind fence_locked() noexcept {
  if (fence != fence_kind::unknown) return fence;
  const int supported = membarrier(MEMBARRIER_CMD_QUERY);
  if (supported > 0 && (supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0 &&
      membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0)
    fence = fence_kind::expedited;
  else if (supported > 0 && (supported & MEMBARRIER_CMD_GLOBAL) != 0)
    fence = fence_kind::global;
  else
    fence = fence_kind::none;
  if (fence == fence_kind::none) {
    forbidden.store(true, std::memory_order_relaxed);  // try_open takes no lock again
    log::debug("membarrier(2) is unavailable: hooked calls never bypass acs (every launch takes its path)");
  }
  return fence;
}

// A thread's exit gives its slot back; its inside counter dies with it.
void release_slot(void* value) noexcept {
  const auto slot = static_cast<int>(reinterpret_cast<std::intptr_t>(value)) - 1;
  std::lock_guard lock(gate);
  if (slot >= 0 && slot < max_threads) registry[slot].store(nullptr, std::memory_order_release);
}

// Under `gate`.
bool register_locked(thread_state& me) noexcept {
  if (me.slot >= 0) return true;
  if (!have_exit_key) {
    if (pthread_key_create(&exit_key, release_slot) != 0) return false;
    have_exit_key = true;
  }
  for (int i = 0; i < max_threads; ++i) {
    if (registry[i].load(std::memory_order_relaxed) != nullptr) continue;
    if (pthread_setspecific(exit_key, reinterpret_cast<void*>(static_cast<std::intptr_t>(i) + 1)) != 0) return false;
    registry[i].store(&me.inside, std::memory_order_release);
    me.slot = i;
    return true;
  }
  return false;  // more threads than slots: this one keeps acs's path
}

}  // namespace

std::uint32_t take_skipped() noexcept {
  thread_state& me = self;
  const std::uint32_t skipped = me.granted - me.countdown;
  me.granted = me.countdown = 0;
  return skipped + 1;
}

void grant() noexcept {
  if (!open_now()) return;
  thread_state& me = self;
  if (me.slot < 0) {
    std::lock_guard lock(gate);
    if (!register_locked(me)) return;
  }
  me.countdown = me.granted = sample_every;
}

bool try_open(bool (*ready)()) noexcept {
  if (forbidden.load(std::memory_order_relaxed)) return false;
  bool now_open = false;
  {
    std::lock_guard lock(gate);
    if (!hot.bypass.load(std::memory_order_relaxed) && !forbidden.load(std::memory_order_relaxed) &&
        fence_locked() != fence_kind::none && ready()) {
      hot.bypass.store(true, std::memory_order_seq_cst);
      pending = true;
      opened.fetch_add(1, std::memory_order_relaxed);
      now_open = true;
    }
  }
  if (now_open) log::debug("every stream that launched is stepped aside: launches and stream operations bypass acs");
  grant();
  return open_now();
}

void close() noexcept {
  // Always under the lock, even when the flag reads closed: the caller's change (a stream counted
  // redirected) came before, so an opener that takes the lock after this sees it
  // and stays closed, and one that took it before is closed here. An unlocked test of the flag
  // could read it stale while an opener still saw nothing redirected (a store-buffer race).
  std::lock_guard lock(gate);
  if (hot.bypass.load(std::memory_order_relaxed)) {
    hot.bypass.store(false, std::memory_order_seq_cst);
    closed.fetch_add(1, std::memory_order_relaxed);
  }
  if (!pending) return;
  // Every thread that read the flag open before the store above is now seen inside (the fence),
  // or had left already.
  if (membarrier(fence == fence_kind::expedited ? MEMBARRIER_CMD_PRIVATE_EXPEDITED : MEMBARRIER_CMD_GLOBAL) != 0) {
    // Cannot fail once supported and registered. If it did, this grace period may miss a call
    // that is still inside: the bypass never opens again.
    forbidden.store(true, std::memory_order_relaxed);
    log::warn("membarrier(2) failed: launches no longer bypass acs");
  }
  const std::atomic<std::uint32_t>* mine = &self.inside;
  for (auto& entry : registry) {
    const std::atomic<std::uint32_t>* inside = entry.load(std::memory_order_acquire);
    if (inside == nullptr || inside == mine) continue;  // this thread may be nested in its own bypassed call
    while (inside->load(std::memory_order_acquire) != 0) sched_yield();
  }
  pending = false;
  graces.fetch_add(1, std::memory_order_relaxed);
}

void prepare() noexcept {
  std::lock_guard lock(gate);
  (void)fence_locked();
}

void forbid() noexcept {
  if (forbidden.load(std::memory_order_relaxed)) return;
  std::lock_guard lock(gate);
  forbidden.store(true, std::memory_order_relaxed);
  hot.bypass.store(false, std::memory_order_seq_cst);
}

void after_fork_in_child() noexcept { hot.bypass.store(false, std::memory_order_relaxed); }

bool available() noexcept {
  std::lock_guard lock(gate);
  return fence_locked() != fence_kind::none && !forbidden.load(std::memory_order_relaxed);
}

counters counts() noexcept {
  return {opened.load(std::memory_order_relaxed), closed.load(std::memory_order_relaxed),
          graces.load(std::memory_order_relaxed)};
}

}  // namespace acs::bypass
