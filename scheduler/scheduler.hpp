#pragma once
// One device's scheduler: the bounded window, the dependency check, the stream
// pool and the virtual-stream rules of docs/design.md §1. Thread-safe.
//
// Virtual-stream note. The application's streams are virtual: a kernel launched
// on S may run on a pool stream P. Three mechanisms keep S's contract:
//  * lazy join: S is made to wait (cudaStreamWaitEvent) for its kernels on the
//    pool only when something needs S to contain them: before any work is
//    issued on S directly (before_barrier), before S is synchronised, queried or
//    captured (join), before a fork is recorded on S. With
//    scheduler_config::eager_join, S waits for each kernel right after its
//    launch instead (the eager join of docs/design.md);
//  * fork: work issued on S directly (any barrier: memcpy, event wait, host
//    function, a kernel passed through...) is followed by an event recorded on
//    S before the next redirected kernel; kernels with no dependency in the
//    window wait on it;
//  * legacy coupling: pool streams are non-blocking, so when both the legacy
//    stream and blocking streams carry work, the switch from one to the other
//    is treated as a barrier, which reproduces the implicit synchronisation;
//    work on one side also waits for the other side's unjoined pool kernels.
// A kernel's own event is recorded only when something needs it (a dependant
// on another pool stream, a join, the window making room), and before
// anything else is issued on its pool stream, so it is never late; when the
// next kernel on that stream shadows it (chain_merging.hpp), never.
// Dependencies are tracked between kernels of the same virtual stream only:
// across streams the application orders work itself, through events, which
// reach us as barriers. And streams stay apart (docs/design.md rule 12): a
// kernel never goes behind another virtual stream's unfinished work on a pool
// stream, and runs on a pool stream of its stream's priority (stream_pool.hpp).
// When every such pool stream is held by other streams, it runs in place.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>

#include "scheduler/backend.hpp"
#include "scheduler/scheduler_config.hpp"
#include "scheduler/byte_range.hpp"
#include "scheduler/graph_replay.hpp"
#include "scheduler/issue_queue.hpp"

namespace acs {

class segment_replay;

enum class stream_kind : std::uint8_t {
  legacy,        // the legacy default stream
  blocking,      // created without cudaStreamNonBlocking, or the per-thread default stream
  non_blocking,  // created with cudaStreamNonBlocking
};

// An application stream as the scheduler sees it.
struct virtual_stream {
  std::uintptr_t key = 0;     // unique per stream (per thread for the per-thread default stream)
  stream_handle handle = 0;   // what join and fork events are recorded on and waited by
  stream_kind kind = stream_kind::non_blocking;
  int priority = 0;           // CUDA's stream priority (0 for the default streams): its pool streams'
  // `handle` names the calling thread's stream (CUDA's per-thread default stream): work may be
  // issued on it only from the thread that launched on it, never from another thread's call
  // or the scheduler's own thread.
  bool thread_relative = false;
};

// What a tracer learns of each dispatched kernel (see set_observer).
struct dispatch_record {
  std::uint64_t launch_id = 0;          // increasing per scheduler, from 1
  std::uintptr_t vstream = 0;           // the application stream's key
  unsigned pool_stream = 0;             // index in the pool
  stream_handle pool_handle = 0;
  const std::uint64_t* waited_for = nullptr;  // launch ids of the window entries it depends on
  std::size_t waited_count = 0;
  unsigned window_size = 0;             // entries in flight after it entered
};

// Optional observer, called under the scheduler's lock: `before_launch` and
// `after_launch` bracket the enqueue of every pool launch (a tracer tags the
// launch between them), `dispatched` follows a successful one. Must be cheap
// and must not call back into the scheduler.
struct dispatch_observer {
  virtual ~dispatch_observer() = default;
  virtual void before_launch(std::uint64_t launch_id) noexcept = 0;
  virtual void after_launch(std::uint64_t launch_id, backend_status status) noexcept = 0;
  virtual void dispatched(const dispatch_record& record) noexcept = 0;
};

// Whether the calling thread may make capture-unsafe calls (queries: docs/design.md rule 5) while
// the scheduler issues held launches outside a launch (segment_replay.hpp): the runtime's
// unsafe_section, entered and left around the flush. Without one, always.
struct unsafe_call_guard {
  virtual ~unsafe_call_guard() = default;
  virtual bool enter() noexcept = 0;  // true: allowed until leave()
  virtual void leave() noexcept = 0;
};

class scheduler {
 public:
  scheduler(backend& gpu, scheduler_config config);
  ~scheduler();
  scheduler(const scheduler&) = delete;
  scheduler& operator=(const scheduler&) = delete;

  // Dispatches `kernel` with footprint `access` in place of a launch on `stream`.
  // Returns the backend's status for the launch itself: what the application sees.
  // Kernels of one virtual stream that share a non-zero `group` (an annotation
  // scope) are one task: they always keep their order among themselves.
  backend_status launch(const virtual_stream& stream, const access_set& access, const void* kernel,
                        std::uint64_t group = 0);

  // A launch of a stream acs stepped aside from (src/runtime/stream_mode.hpp): issued on the
  // stream itself, in order, as work issued directly on it (rule 2); with launch segments, held
  // and replayed as a chain graph where its segment recurs (segment_replay.hpp). Returns the
  // launch's status, as `launch` does.
  backend_status launch_in_order(const virtual_stream& stream, const void* kernel);

  // The same without graphs, relayed (ACS_RELAY, docs/design.md "The relay"): the launch is
  // copied and issued on the stream by an issuing thread (issue_queue::relay), in the order of
  // every relayed launch, so that the caller returns before the driver's launch call. A launch
  // that cannot be copied (its status is not known in advance: cuda_backend.hpp), one of a
  // thread-relative stream, or without issuing threads, is made at once, after the relayed ones.
  // Everything the application issues on any stream afterwards is preceded by before_barrier or
  // join, which wait until the relayed launches were issued. Returns the launch's status.
  backend_status relay(const virtual_stream& stream, const void* kernel);

  // Any operation issued directly on `stream` (rule 2) is bracketed by these.
  // Before it, the stream joins its pool work (and what legacy coupling asks);
  // after it, the next redirected kernel forks after the operation.
  void before_barrier(const virtual_stream& stream);
  void barrier(const virtual_stream& stream);

  // Before `stream` is synchronised, queried or begins a capture: it joins its
  // own pool work. Returns the sync point for `synchronized`.
  std::uint64_t join(const virtual_stream& stream);

  // Host synchronisation. A stream sync takes its point from `join`, a device
  // sync from `sync_point`, both before forwarding the sync, and reports it
  // once the sync returned: only kernels issued before the point are known
  // complete (another thread may launch while the sync waits). Points are
  // process-wide, so they serve every device.
  static std::uint64_t sync_point() noexcept;
  void synchronized(std::uintptr_t stream_key, std::uint64_t point);
  void device_synchronized(std::uint64_t point);

  // Before a device-wide operation of the application (device synchronize, free, teardown):
  // returns once every launch accepted so far was issued to the GPU. Without issue_threads
  // and graphs, they all were. Any thread; takes no lock of the scheduler's.
  void drain() noexcept;

  // Before code is unloaded (cuModuleUnload, cuLibraryUnload), bracketed as a change of the launch
  // conditions (drained already, nothing deferred meanwhile): graph replay's held segment and
  // queued graph launches are issued, then every executable it keeps is destroyed
  // (segment_replay::forget_executables). Without graph replay, nothing. Any thread.
  void code_unloading() noexcept;

  // Returns once every launch relayed so far (relay) was issued. Any thread; takes no lock.
  void settle_relayed() noexcept {
    if (queue_) queue_->settle_relayed();
  }

  // The relay's record so far (issue_queue::relay_counts). Any thread; no lock.
  relay_record relay_counts() const noexcept { return queue_ ? queue_->relay_counts() : relay_record{}; }
  std::uint64_t relay_waits() const noexcept { return queue_ ? queue_->relay_waits() : 0; }

  // The application destroyed the stream: forget it (its pool work still runs).
  void forget(std::uintptr_t stream_key);

  // Not owned; nullptr removes it. Costs nothing when unset.
  void set_observer(dispatch_observer* observer);
  // Not owned, set before the first launch (segment replay only).
  void set_unsafe_call_guard(unsafe_call_guard* guard) noexcept { guard_ = guard; }

  scheduler_stats stats() const;
  unsigned in_flight() const;

 private:
  struct state;
  struct segment_sink;
  void idle_loop();
  // The held segment issued, under mutex_. `observation`: an observation point of a stream,
  // where the segment's count restarts even when nothing is held.
  void flush_segments(bool observation) noexcept;
  void segments_moved() noexcept;

  mutable std::mutex mutex_;
  std::unique_ptr<issue_queue> queue_;  // outlives state_, whose pools it serves
  std::unique_ptr<graph_replay> replay_;  // ACS_GRAPH=pool: between state_ and queue_ (or the GPU)
  std::unique_ptr<state> state_;
  // ACS_GRAPH=auto: in front of state_ (segment_replay.hpp), with the idle flush's thread, which
  // waits on idle_wakeup_ under idle_mutex_ and reads the segments' state from the atomics.
  std::unique_ptr<segment_sink> sink_;
  std::unique_ptr<segment_replay> segments_;
  unsafe_call_guard* guard_ = nullptr;
  std::mutex idle_mutex_;
  std::condition_variable idle_wakeup_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> idle_asleep_{false};
  std::atomic<bool> holding_{false};
  std::atomic<std::uint64_t> launches_{0};
  std::thread idle_thread_;
};

}  // namespace acs
