#pragma once
// A backend decorator that replays recurring sequences of pool-stream work as graphs
// (docs/design.md, "Graph replay"). Proved on the simulated device and run on the H200
// (gpu.graph_replay.*, outputs identical); measured there slower than without it on every
// short-kernel benchmark, since segments rarely recur (design.md §8), so ACS_GRAPH defaults to off.
//
// Why: with kernels of a few µs the host's launch rate sets the speed. Replaying an
// instantiated graph costs the host far less per kernel than a launch (issue 16's table), and
// a training or simulation loop issues the same kernels, in the same DAG, between the same
// barriers, again and again.
//
// Segments. Records, waits and launches (of kernels the inner backend can detach) on pool
// streams (made by create_stream here) are buffered in order into a segment, and return 0
// like the issue queue's. Anything else flushes the segment first, in order: a synchronize,
// creating or destroying, a call on another stream (a join or fork on an application stream,
// a kernel run in place), a launch for another application stream (note_owner), a launch that
// cannot be detached, flush() (the scheduler's, before every barrier, join and device-wide
// operation of the application: work it issues directly on one stream, say a kernel that spins
// for one of the segment's, must find the segment issued), the segment reaching its length
// limit (in calls, and optionally in kernels), and the idle flush: no new call during a whole
// `idle` (50 µs by default: so within twice that of the last call), so that a program spinning
// on mapped memory for a kernel it launched never hangs. A query does not
// flush: an event recorded in the segment is pending (its record was not even issued), any
// other event is unaffected by the segment and is asked of the inner backend.
//
// Shapes. At a flush the segment's kernels become a DAG: node identities (function and launch
// configuration, as the inner backend describes them) and edges from per-stream order and from
// record->wait pairs inside the segment. That shape is the key. One seen fewer than `after`
// times is replayed call by call to the inner backend (today's path). A recurring one is
// instantiated once, kept in an LRU cache of `cache` executables (eviction destroys one), and
// later occurrences update the executable's arguments in place, then launch it.
//
// A graph launch keeps the segment's order, coarsened, never weakened. On L, the stream of the
// segment's first kernel: L waits for the other used streams' earlier work; the waits on
// events recorded before the segment are made on L; the graph is launched on L; every event
// recorded in the segment is recorded again on L; the other used streams wait for L. Exact:
// the order among the segment's kernels (the edges), and between them and everything before
// and after. Coarsened: each kernel also follows every used stream's earlier work and every
// external wait of the segment, and each event and each used stream's later work follows the
// whole graph. Nothing observable changes: observations of the GPU flush first, and later
// work only starts later than it would have.
//
// Errors. Only detachable launches are buffered: their status is known to be success. A graph
// that cannot be built, updated or launched falls back to the call-by-call replay. A replayed
// call that fails is stood in for on the host (a failed record only once its event is waited
// for, stand_in), and broken() tells the
// scheduler, which then stops relying on events; the decorator then passes everything through.
//
// Thread-safety: calls are serialised by the caller (the scheduler's lock), but flush() and
// the idle thread may run beside them: one mutex guards the segment and every inner call.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "scheduler/backend.hpp"

namespace acs {

struct graph_replay_config {
  unsigned after = 2;          // occurrences of a shape before it is built as a graph, 1..
  unsigned cache = 64;         // instantiated executables kept, 1..
  unsigned max_segment = 256;  // calls buffered before a flush
  // Kernels buffered before a flush; 0: only max_segment limits a segment. Counted in kernels,
  // the program's own sequence, a cut falls at the same place in every iteration of a loop, while
  // the calls between kernels (acs's records and waits) vary with the GPU's progress.
  unsigned max_kernels = 0;
  // No new call for this long flushes the segment; 0: never (tests of the other causes only).
  std::chrono::microseconds idle{50};
};

// Why a segment was flushed (each flush has one cause).
enum class flush_cause : std::uint8_t {
  sync, create_destroy, other_stream, undetachable, explicit_call, limit, idle,
  barrier,  // the application works on one of its streams directly, or observes one
};
inline constexpr unsigned flush_cause_count = 8;

// Why a segment went call by call (the stats say which, so that a program whose segments never
// become graphs shows the reason).
enum class plain_cause : std::uint8_t {
  small,        // fewer than two kernels
  undescribed,  // a kernel the backend cannot describe (no graph interface, a launch it cannot copy)
  bare_stream,  // a stream with only records or waits in the segment
  new_shape,    // the shape has not recurred `after` times yet
  failed,       // building, updating or launching the graph failed
};
inline constexpr unsigned plain_cause_count = 5;

struct graph_replay_stats {
  std::uint64_t built = 0;      // executables instantiated
  std::uint64_t replays = 0;    // graph launches
  std::uint64_t updates = 0;    // of those, of an executable updated in place
  std::uint64_t evictions = 0;  // executables destroyed to make room
  std::uint64_t call_by_call = 0;  // segments replayed call by call (shape not recurring yet...)
  std::uint64_t failures = 0;      // replayed calls that failed
  std::uint64_t flushes[flush_cause_count] = {};
  std::uint64_t plain[plain_cause_count] = {};  // call_by_call, by cause (but for a broken replay)
};

class graph_replay final : public backend {
 public:
  graph_replay(backend& inner, graph_replay_config config);
  ~graph_replay() override;  // flushes, stops the idle thread, destroys the executables
  graph_replay(const graph_replay&) = delete;
  graph_replay& operator=(const graph_replay&) = delete;

  backend_status create_stream(stream_handle* out) override;
  backend_status create_stream_with_priority(stream_handle* out, int priority) override;
  backend_status create_event(event_handle* out) override;
  backend_status record_event(event_handle event, stream_handle stream) override;
  backend_status wait_event(stream_handle stream, event_handle event) override;
  event_state query_event(event_handle event) override;
  backend_status synchronize(stream_handle stream) override;
  backend_status launch(const void* kernel, stream_handle stream) override;
  void destroy_stream(stream_handle stream) noexcept override;
  void destroy_event(event_handle event) noexcept override;

  // The launches that follow are of application stream `key` (until the next note). A segment
  // holds one application stream's work: the coarsening then adds only order that stream's
  // own program order already has (docs/design.md rule 12: streams stay apart), so no kernel
  // can wait behind another stream's spinner or priority. Callers are serialised (the
  // scheduler's lock).
  void note_owner(std::uintptr_t key) noexcept;
  // Issues the segment. Any thread: before a device-wide operation of the application
  // (explicit_call), before any direct work or observation of one of its streams (barrier).
  void flush(flush_cause cause = flush_cause::explicit_call) noexcept;
  // Code is about to be unloaded: the segment is flushed and every cached executable destroyed
  // (segment_replay::forget_executables says why). The caller drains the issuing threads between
  // the two (`between`), so that no launch of an executable is still queued when it is destroyed.
  void forget_executables(void (*between)(void* context) noexcept, void* context) noexcept;
  bool broken() const noexcept;
  graph_replay_stats stats() const noexcept;

 private:
  enum class op : std::uint8_t { record, wait, launch };
  struct pending {
    op kind = op::launch;
    stream_handle stream = 0;
    event_handle event = 0;
    const void* kernel = nullptr;  // detached: owned until issued or released
  };
  // A segment as a graph: what the shape key is made of, and what its launch needs.
  struct plan {
    std::vector<const void*> nodes;
    std::vector<graph_edge> edges;
    std::vector<std::uint64_t> key;
    std::vector<stream_handle> streams;   // used, in order of first use; streams[0] launches
    std::vector<event_handle> external_waits;  // on events recorded before the segment
    std::vector<event_handle> recorded;   // events recorded in the segment, once each
  };
  struct key_hash {
    std::size_t operator()(const std::vector<std::uint64_t>& k) const noexcept;
  };
  struct cached {
    std::vector<std::uint64_t> key;
    graph_handle exec = 0;
  };

  bool is_pool(stream_handle s) const noexcept;
  void append(pending p);
  backend_status event_call(op kind, event_handle event, stream_handle stream);
  void flush_locked(flush_cause cause) noexcept;
  // nullopt when the segment makes a graph; else why it goes call by call.
  std::optional<plain_cause> make_plan(plan& out);
  std::optional<plain_cause> replay_as_graph(const plan& p) noexcept;
  // `recurring` false: the shape has not recurred enough yet (0 returned).
  graph_handle executable_for(const plan& p, const graph_description& d, bool& recurring) noexcept;
  bool launch_graph(const plan& p, graph_handle exec) noexcept;
  void replay_call_by_call() noexcept;
  void stand_in(const pending& p) noexcept;
  bool stood_in_for_wait(event_handle event) noexcept;
  bool failed_record(event_handle event) const noexcept;
  void note_record(event_handle event, stream_handle stream, backend_status status) noexcept;
  void settle_lagging(stream_handle stream) noexcept;
  void forget_failed_record(event_handle event) noexcept;
  void idle_loop() noexcept;

  backend& inner_;
  graph_replay_config config_;
  mutable std::mutex mutex_;
  std::vector<stream_handle> pool_streams_;
  std::vector<pending> segment_;
  std::vector<event_handle> segment_records_;  // events recorded in the segment
  std::vector<std::pair<event_handle, stream_handle>> failed_records_;  // records that failed, and their streams
  std::vector<std::pair<stream_handle, stream_handle>> lagging_;  // a stream, and the graph's it failed to wait for
  // Set under mutex_; read without it by broken(), which the scheduler asks at every launch.
  std::atomic<bool> broken_{false};
  // The application stream whose launches the segment holds. Changed only by note_owner, whose
  // callers the scheduler's lock serialises: read there without mutex_.
  std::atomic<std::uintptr_t> owner_{0};
  event_handle scratch_ = 0;  // joins the used streams around a graph launch
  // Occurrences of shapes not built yet (cleared when it grows past its bound), and the LRU
  // cache of executables, most recent first.
  std::unordered_map<std::vector<std::uint64_t>, unsigned, key_hash> seen_;
  std::list<cached> lru_;
  std::unordered_map<std::vector<std::uint64_t>, std::list<cached>::iterator, key_hash> cache_;
  graph_replay_stats stats_;
  // The idle flush.
  // Calls appended so far: the idle thread flushes after a whole `idle` without a new one. A count,
  // not a time stamp: reading the clock at every append cost more than the rest of it.
  std::uint64_t calls_ = 0;
  unsigned segment_kernels_ = 0;  // launches in segment_
  std::condition_variable idle_wakeup_;
  bool stopping_ = false;
  std::thread idle_thread_;
};

}  // namespace acs
