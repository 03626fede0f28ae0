#pragma once
// A backend that issues the scheduler's pool-stream work from threads of its own (lanes).
//
// Why: with kernels of tens of µs, programs are host-bound. A launch costs the driver
// ~4.5 µs of host time and acs adds its own decision on top, on the application's thread.
// Here the application's thread only decides and enqueues; the lanes make the driver calls,
// so acs's time per launch overlaps the driver's, and the driver's calls from several
// lanes overlap each other.
//
// Ordering. Every record, wait and launch on a pool stream (a stream made by
// create_stream) is queued for the lane that owns the stream (unless nothing is queued
// there and its thread sleeps: then the caller makes it at once, since waking the thread
// takes longer); each lane issues its calls in the order they were queued: the order the
// scheduler called them. Across lanes and with the caller's own calls, events order:
//  * a call naming an event waits until the last earlier call naming that event was
//    issued, whichever lane queued it: a wait binds to the record issued before it, and a
//    re-record must not overtake an older wait. Queued calls wait in their lane; since
//    they wait only for calls queued earlier, lanes never wait for each other in a cycle.
//    The caller's own calls (a wait or record on an application stream, a query) wait on
//    its thread;
//  * a launch that cannot be deferred, a host synchronize and anything that creates or
//    destroys waits until everything queued was issued (drain).
// Device-wide operations of the application (device synchronize, free, teardown) must
// call drain first: until then, a launch acs accepted may not be issued yet.
//
// Relayed launches (relay(), ACS_RELAY): launches on an *application* stream that the caller
// copied (detach) and hands to lane 0, so that the application's thread returns before the
// driver's launch call is made (docs/design.md, "The relay"). All of them go to lane 0, whatever
// their stream: they reach the driver in the order the program made them, which the legacy
// stream's implicit synchronisation depends on. Every call this queue makes at once on an
// application stream (a record, a wait, a launch, a synchronize, a graph launch) first waits
// until the relayed launches queued before it were issued (settle_relayed), so that it keeps its
// place behind them; what the application itself issues on its streams after acs's hooks return
// must be preceded by settle_relayed() too (the scheduler's before_barrier and join do it).
//
// Relayed graphs (relay_graph, scheduler_config::graph_relay): a replayed segment's executable
// (segment_replay.hpp), its nodes' arguments set and launched on an application stream by lane 0,
// in the order of the relayed launches and under the same settle_relayed rule, so that the
// driver's graph launch (6.6 µs for 64 kernels on 8 lanes, H100) and the updates of changed
// nodes (0.3-0.6 µs each) run beside the application's thread (docs/design.md §8.1, "Relayed
// graphs"). An executable is updated and launched only by lane 0 once relayed: its update cannot
// reach a launch of it still queued; creating and destroying one drains first.
//
// Errors. A launch is queued only when the inner backend can detach it (it knows that the
// launch will succeed as far as a launch can be known to); otherwise it runs at once and its
// status goes back as before. Should a queued call fail anyway, its lane stands in for it
// on the host, so order holds; broken() then tells the scheduler, which stops relying on
// events. A failed wait: the host waits for the event before the stream's next work (the
// lane's other streams go on meanwhile). A failed record: nothing at once (the stream's work may spin until a kernel queued later has run,
// docs/design.md rule 12): the event reads pending, a lane's wait on it has the host wait for
// the record's stream before the waiting stream's next work, and a wait the caller makes on it fails, so that the scheduler
// joins another way. A queued launch that fails (a fault made the context unusable)
// has no status to give back: it is counted.
//
// Thread-safety: calls other than drain() and broken() must be serialised by the caller (the
// scheduler's lock); drain() and broken() may be called from any thread.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <unordered_map>
#include <vector>

#include "scheduler/backend.hpp"
#include "scheduler/scheduler_config.hpp"

namespace acs {

struct issue_queue_stats {
  std::uint64_t deferred = 0;        // launches issued by the lanes (relayed ones included)
  std::uint64_t relayed = 0;         // launches of application streams queued by relay()
  std::uint64_t relayed_here = 0;    // relay() calls made at once by the caller (lane 0 asleep)
  std::uint64_t inline_launches = 0; // launches issued at once (first of their kind...)
  std::uint64_t waits = 0;           // calls that had to wait for a lane
  std::uint64_t relay_waits = 0;     // calls that found a relayed launch not yet issued, and waited
  std::uint64_t failures = 0;        // queued calls that failed
  std::uint64_t relayed_graphs = 0;  // graph replays queued by relay_graph
};

class issue_queue final : public backend {
 public:
  // `threads`: issuing threads (lanes), 1..max_threads; pool stream i is issued by lane
  // i % threads. `issue_when_asleep`: whether the caller makes a call itself when its lane has
  // nothing queued and sleeps (issue_here); tests of the lanes' own order turn it off.
  explicit issue_queue(backend& inner, unsigned threads = 1, unsigned capacity = 1024, bool issue_when_asleep = true);
  ~issue_queue() override;  // issues what is queued, then stops the threads
  issue_queue(const issue_queue&) = delete;
  issue_queue& operator=(const issue_queue&) = delete;
  static constexpr unsigned max_threads = scheduler_config::max_issue_threads;

  // Creating and destroying wait for everything queued; so does a host synchronize.
  backend_status create_stream(stream_handle* out) override;
  void destroy_stream(stream_handle stream) noexcept override;
  backend_status synchronize(stream_handle stream) override;
  backend_status create_stream_with_priority(stream_handle* out, int priority) override;
  backend_status create_event(event_handle* out) override;
  void destroy_event(event_handle event) noexcept override;
  // Queued for the lane of a pool stream, or made at once (see above).
  backend_status record_event(event_handle event, stream_handle stream) override;
  backend_status wait_event(stream_handle stream, event_handle event) override;
  event_state query_event(event_handle event) override;
  backend_status launch(const void* kernel, stream_handle stream) override;
  // Under graph replay (graph_replay.hpp), which detaches the kernels it buffers: a detached
  // launch is queued like a launch; the graph calls wait for everything queued (an update must
  // not reach a launch still queued) and are made by the caller.
  const void* detach(const void* kernel) override { return inner_.detach(kernel); }
  backend_status launch_detached(const void* kernel, stream_handle stream) override;
  bool describe(const void* kernel, kernel_identity* out) override { return inner_.describe(kernel, out); }
  bool identify(const void* kernel, kernel_identity* out) override { return inner_.identify(kernel, out); }
  backend_status graph_instantiate(const graph_description& graph, graph_handle* out) override;
  backend_status graph_update(graph_handle exec, const graph_description& graph) override;
  // Not drained: an update given its list of changed nodes, queued or made, never reads what this
  // compares and writes (the executable's last arguments: cuda_graphs.cpp).
  std::size_t graph_changes(graph_handle exec, const graph_description& graph, std::uint32_t* changed) override {
    return inner_.graph_changes(exec, graph, changed);
  }
  backend_status graph_launch(graph_handle exec, stream_handle stream) override;
  void graph_destroy(graph_handle exec) noexcept override;
  void release_detached(const void* kernel) noexcept override { inner_.release_detached(kernel); }
  void release_all_detached(const void* const* kernels, std::size_t n) noexcept override {
    inner_.release_all_detached(kernels, n);
  }
  void issuing_thread_started() noexcept override { inner_.issuing_thread_started(); }

  // A detached launch (`detach`) on an application stream (not one this queue created), queued
  // for lane 0 (see above); made at once by the caller when that lane has nothing queued and
  // sleeps (it is woken for the launches that follow) or a queued call failed. Returns its
  // status: 0 when queued (a detached launch cannot fail on its own: cuda_backend.hpp).
  backend_status relay(const void* detached, stream_handle stream);
  // A replay of the executable `exec` on an application stream: its nodes' arguments set to those
  // of `graph.kernels` (detached launches; graph_update, which compares and sets only the changed
  // ones), then launched on `stream` (graph_launch), queued for lane 0 after the relayed launches;
  // made at once by the caller when lane 0 has nothing queued and sleeps (as relay()). `graph`'s
  // edges must stay valid until it was issued (exec's, which outlive it: destroying drains).
  // Returns 0 when queued or launched: the kernels are the queue's, released once the graph was
  // launched. Should a queued update or launch fail, lane 0 stands in for it: the kernels are
  // launched on `stream` one after another, in their order (the graph's edges only relax it),
  // and the queue is broken(), as for any failed queued call. Non-zero: a call made at once failed
  // and nothing was launched; the kernels stay the caller's. Throws std::bad_alloc before
  // anything was queued.
  backend_status relay_graph(graph_handle exec, const graph_description& graph, stream_handle stream);
  // Returns once every launch relayed before the call was issued. Any thread.
  void settle_relayed() noexcept;
  // Relayed launches so far, and calls (settle_relayed, drain) that found one of them not yet
  // issued and waited for it: where the program waits for most of them, the relay hides none of
  // the launch's time and adds its hand-off (stream_mode.hpp). Any thread; two relaxed loads.
  relay_record relay_counts() const noexcept {
    return {relayed_.load(std::memory_order_relaxed), relay_waits_.load(std::memory_order_relaxed)};
  }
  // Its waits alone (written by the program's threads, not by the issuing thread): one relaxed load.
  std::uint64_t relay_waits() const noexcept { return relay_waits_.load(std::memory_order_relaxed); }

  // Returns once everything queued before the call was issued. Any thread.
  void drain() noexcept;
  // A queued call failed: the scheduler should stop relying on events.
  bool broken() const noexcept { return broken_.load(std::memory_order_acquire); }
  issue_queue_stats stats() const noexcept;

 private:
  enum class op : std::uint8_t { record, wait, launch, graph, stop };
  static constexpr unsigned no_lane = ~0u;
  // A cache line each: the caller writes the next slot while the lane's thread reads this one.
  struct alignas(64) command {
    op kind = op::launch;
    stream_handle stream = 0;
    event_handle event = 0;
    const void* kernel = nullptr;
    graph_handle graph = 0;  // op::graph: its kernels and edges are the lane's graph_slots at this slot
    // Issued only once lane `after_lane` has issued `after_count` calls: the last call of
    // another lane that named the same event.
    unsigned after_lane = no_lane;
    std::uint64_t after_count = 0;
  };

  // Where a thread sleeps until a counter reaches a value.
  class parking {
   public:
    explicit parking(std::chrono::microseconds spin) : spin_time_(spin) {}
    void wait_until(const std::atomic<std::uint64_t>& value, std::uint64_t target) noexcept;
    void wake() noexcept;  // after the counter changed, or to have a sleeper spin again
    bool asleep() const noexcept { return sleepers_.load(std::memory_order_seq_cst) != 0; }

   private:
    std::chrono::microseconds spin_time_;
    std::mutex mutex_;
    std::condition_variable wakeup_;
    std::atomic<unsigned> sleepers_{0};
  };

  struct graph_slot {
    std::vector<const void*> kernels;
    bool listed = false;                 // graph_description::listed, and its changed nodes
    std::vector<std::uint32_t> changed;
    const graph_edge* edges = nullptr;
    std::size_t edge_count = 0;
  };

  // One issuing thread and its ring, in FIFO order.
  // The caller writes `queued`, the lane's thread `issued` and its parking: each on a cache line of
  // its own, so that neither write takes the line the other side reads next away from it.
  struct lane {
    explicit lane(unsigned capacity) : ring(capacity) {}
    std::vector<command> ring;
    // Lane 0's op::graph commands' kernels and edges, by ring slot (sized at the first
    // relay_graph; each keeps its capacity, so that a steady replay allocates nothing).
    std::vector<graph_slot> graph_slots;
    alignas(64) std::atomic<std::uint64_t> queued{0};
    // The caller's last reading of `issued` (a lower bound): enqueue reads `issued` itself, a
    // line the lane's thread has just written, only when the ring looks full by this one.
    std::uint64_t issued_seen = 0;
    alignas(64) std::atomic<std::uint64_t> issued{0};
    // Its thread, until something is queued: it spins for the next launch of a burst.
    alignas(64) parking worker{std::chrono::microseconds(200)};
    std::thread thread;
  };
  struct last_use {
    unsigned lane;
    std::uint64_t count;  // the lane's queued count once that call was queued
  };

  // The lane of a pool stream; no_lane for any other stream.
  unsigned lane_of(stream_handle s) const noexcept;
  bool issue_here(unsigned l) noexcept;
  backend_status event_call(op kind, stream_handle stream, event_handle event);
  void enqueue(unsigned l, command c);
  // Waits until lane `l`'s ring has room for one more call; returns the count it will be queued at.
  std::uint64_t room(lane& l);
  backend_status replay_graph(const command& c, const graph_slot& slot) noexcept;
  void wait_issued(const lane& l, std::uint64_t count) noexcept;
  void wait_for_event(event_handle e) noexcept;
  void stand_in_for(const command& c) noexcept;
  // Records that failed (stand_in_for): guarded by failed_mutex_, read only once any exists.
  void note_record(event_handle event, stream_handle stream, backend_status status) noexcept;
  bool failed_record(event_handle event) noexcept;
  std::optional<stream_handle> failed_record_stream(event_handle event) noexcept;
  // A stream that must wait on the host before its next work: for `event` (a failed wait), else
  // for `after_stream` (a wait on a failed record).
  struct lag {
    stream_handle stream = 0;
    event_handle event = 0;
    stream_handle after_stream = 0;
    std::uint64_t id = 0;  // taken off the list by it once waited for (settle_lags)
  };
  void add_lag(const lag& w) noexcept;
  void wait_on_host(const lag& w) noexcept;
  void settle_lags(stream_handle stream, event_handle event = 0) noexcept;
  void run(lane& l) noexcept;
  // `on_lane`: by an issuing thread (a wait on a failed record then waits on the host).
  backend_status execute(const command& c, bool on_lane) noexcept;

  backend& inner_;
  bool issue_when_asleep_;
  std::vector<std::unique_ptr<lane>> lanes_;
  std::vector<stream_handle> pool_streams_;  // created through this queue, in order
  std::unordered_map<event_handle, last_use> event_last_use_;
  // Callers, and lanes waiting for another lane: at ~5 µs a launch, a full window takes ~150 µs.
  parking issued_parking_{std::chrono::microseconds(1000)};
  std::atomic<bool> broken_{false};
  std::mutex failed_mutex_;
  std::vector<std::pair<event_handle, stream_handle>> failed_records_;
  std::atomic<bool> any_failed_record_{false};
  std::mutex lag_mutex_;
  std::vector<lag> lags_;
  std::uint64_t lags_added_ = 0;  // under lag_mutex_: the last lag's id
  std::atomic<bool> any_lag_{false};
  std::atomic<std::uint64_t> deferred_{0}, failures_{0}, relayed_{0}, relayed_here_{0}, relayed_graphs_{0};
  // Lane 0's queued count after the last relayed launch: settle_relayed waits until it was issued.
  std::atomic<std::uint64_t> relayed_until_{0};
  // Atomic: under graph replay the idle flush makes calls beside the scheduler's stats().
  std::atomic<std::uint64_t> inline_launches_{0}, waits_{0}, relay_waits_{0};
  // Lane 0's count that the relayed launches still queued end at; 0 when none is.
  std::uint64_t relayed_pending_until() const noexcept;
};

}  // namespace acs
