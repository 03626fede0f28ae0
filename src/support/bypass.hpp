#pragma once
// The bypass: hooked calls that go straight to the driver while acs has nothing to do with them.
//
// Where acs stepped aside from every stream that launched (src/runtime/stream_mode.hpp), a
// launch, an event record or an asynchronous copy needs nothing of acs: its stream has no pool
// work to join and none to fork. Yet each still walked acs's path to find that out: hundreds of
// instructions on dozens of cache lines, which a framework's own host code evicts between two
// launches (docs/design.md, "The cost that counts is the cold one"). While the bypass is open, the
// hooks of launches and stream-ordered operations test one flag and call the real function: as
// with ACS_DISABLE, nearly nothing.
//
// acs must still notice when parallelism appears, so a thread takes acs's path for one launch in
// `sample_every` (its stream's probes count the launches it skipped: take_skipped), and is granted
// bypassed launches again only after a launch of its went straight to its stream: a thread that
// drives a probe's burst takes acs's path for each of the burst's launches. The runtime opens the
// bypass (try_open) when no stream is redirected, and closes it (close) before any launch goes to
// the pool, after a grace period: every call that entered the bypass before it closed has
// returned. Otherwise a launch that read the open flag just before a probe redirected its stream
// could reach the stream after the fork, unordered with the pool kernel before it (docs/design.md,
// "The bypass").
//
// The grace period is an asymmetric fence (as liburcu's membarrier flavour): a bypassed call marks
// its thread inside, then reads the flag, with only a compiler barrier between; the closer stores
// the flag, then has membarrier(2) run a full fence on every running thread of the process, then
// waits until each registered thread is outside. Without membarrier (an old kernel, a seccomp
// filter) the bypass never opens. The process registers for that fence when libacs loads
// (prepare): in a process that already runs several threads the registration waits for an RCU
// grace period, about 12 ms, which at the bypass's first opening fell inside the program's work.
// Threads register at their first sampled launch, up to `max_threads`; the others keep acs's path. The bypass never opens after the program used the
// annotation API (forbid): a declaration belongs to the declaring thread's next launch, which must
// see it.
#include <atomic>
#include <cstdint>

#include "src/support/hot_flags.hpp"

namespace acs::bypass {

/// @brief A thread takes acs's path for one launch in this many while the bypass is open.
inline constexpr std::uint32_t sample_every = 64;
/// @brief Threads that may use the bypass at once (registry slots).
inline constexpr int max_threads = 256;

struct thread_state {
  std::atomic<std::uint32_t> inside{0};  // bypassed calls in progress (a runtime call nests a driver one)
  std::uint32_t countdown = 0;           // bypassed launches left before one takes acs's path
  std::uint32_t granted = 0;             // the countdown when last granted
  std::int32_t slot = -1;                // registry slot; -1: none (the thread never bypasses)
};

// initial-exec, as hooks_guard.hpp's depth: no __tls_get_addr on the hooks' path.
extern constinit thread_local thread_state self [[gnu::tls_model("initial-exec")]];

/// @brief Whether the bypass is open now: one relaxed load of the hot line.
[[gnu::always_inline]] inline bool open_now() noexcept { return hot.bypass.load(std::memory_order_relaxed); }

/// @brief Marks the thread inside, then reads the flag (the order the grace period relies on).
/// True: go straight to the real function, then leave(). False: take acs's path (left already).
[[gnu::always_inline]] inline bool enter(thread_state& me) noexcept {
  me.inside.store(me.inside.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  std::atomic_signal_fence(std::memory_order_seq_cst);  // the heavy side is close()'s membarrier
  if (hot.bypass.load(std::memory_order_relaxed)) [[likely]]
    return true;
  me.inside.store(me.inside.load(std::memory_order_relaxed) - 1, std::memory_order_release);
  return false;
}

[[gnu::always_inline]] inline void leave(thread_state& me) noexcept {
  me.inside.store(me.inside.load(std::memory_order_relaxed) - 1, std::memory_order_release);
}

/// @brief A launch's hook: whether this launch may skip acs (the bypass is open, the thread is
/// registered and not due for a sampled launch). On true the thread is inside: leave() after.
[[gnu::always_inline]] inline bool enter_launch() noexcept {
  thread_state& me = self;
  if (me.countdown == 0 || !enter(me)) return false;
  --me.countdown;
  return true;
}

/// @brief A stream operation's hook: the same, for a registered thread, without sampling.
[[gnu::always_inline]] inline bool enter_operation() noexcept {
  thread_state& me = self;
  return me.slot >= 0 && enter(me);
}

/// @brief On acs's path, at every launch: how many launches this thread bypassed since its last
/// grant, plus this one; the thread is then due again (its countdown is 0).
std::uint32_t take_skipped() noexcept;

/// @brief Opens the bypass when `ready()` (called under the gate's lock) says so, unless it is
/// forbidden or membarrier is unavailable; then grants this thread sample_every launches.
/// Returns whether the bypass is open.
bool try_open(bool (*ready)()) noexcept;

/// @brief Gives this thread sample_every bypassed launches if the bypass is open (registering it).
void grant() noexcept;

/// @brief Closes the bypass, and returns only after every call that entered it before has left
/// (not counting the calling thread's own). Takes a lock: call it only where the mode changes (a
/// stream is counted redirected), after the change.
void close() noexcept;

/// @brief Closes the bypass for good (the annotation API is in use).
void forbid() noexcept;

/// @brief In a child forked from a process where it was open: closed (pthread_atfork child).
void after_fork_in_child() noexcept;

/// @brief Registers the process for membarrier(2)'s expedited fence, as the bypass's first opening
/// would: at load (src/runtime/start.cpp), while the process has one thread and that costs about a
/// microsecond, not about 12 ms later on a thread of the program's. Idempotent.
void prepare() noexcept;

/// @brief Whether the bypass can open at all here (membarrier(2) works and nothing forbade it).
bool available() noexcept;

/// @brief How often it opened, closed, and waited for a grace period (for the tests).
struct counters {
  std::uint64_t opened = 0, closed = 0, graces = 0;
};
counters counts() noexcept;

}  // namespace acs::bypass
