#pragma once
// One thread of acs's own for work that must stay off the application's launch path (reading a
// loaded module's PTX ahead of its first launch). Jobs run in order; posting never blocks for
// long and never fails the caller: a job that cannot be queued is dropped, and what it would
// have prepared is then done when first needed, as without it.
//
// The thread and its queue are never destroyed (hooks run until the process ends); a job may
// still run while the process exits, so jobs touch only objects that are never destroyed
// either. A forked child never posts (its hooks pass everything through: docs/design.md rule 13).
#include <cstdint>
#include <functional>

namespace acs::background {

/// @brief Starts the thread now, if it is not running: at the process's first CUDA call
/// (start.cpp), not inside the launch whose probe first posts a job, where creating a thread cost
/// 20-30 µs on the fake driver (up to a millisecond on a loaded machine) inside a short program's
/// timed launches.
void start() noexcept;

/// @brief How many jobs the thread has begun so far: a caller that waits for a job of its can
/// tell a busy thread (this grows) from one that gets no CPU at all (it does not).
std::uint64_t jobs_begun() noexcept;

/// @brief Queues `job` for acs's background thread (started on first use); false when it could
/// not be queued (no thread, no memory), and the job is then dropped.
bool post(std::function<void()> job) noexcept;

}  // namespace acs::background
