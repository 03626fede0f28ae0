#pragma once
// A simulated GPU behind acs::backend, so that the scheduling core is tested
// without one. It models what the virtual-stream contract depends on:
//  * streams run their operations in FIFO order; pool streams (create_stream)
//    are non-blocking, application streams have the kind the test asks for;
//  * the legacy default stream: an operation on it waits for all earlier work
//    of blocking streams, and an operation on a blocking stream waits for all
//    earlier legacy work;
//  * events: a wait binds to the latest record at the time of the call, and
//    waiting on a never-recorded event does nothing;
//  * time: the host clock advances by a cost per API call, kernels hold one of
//    a limited number of execution slots for their duration, host syncs wait
//    until the synced work completes;
//  * memory: a small array of cells, read when an operation starts and written
//    when it ends, with a happens-before race checker over the cells actually
//    touched;
//  * a context failure (fault_when_done): once a given kernel has run, every call
//    fails with the fault's status and does nothing, as after a kernel fault in
//    CUDA (a sticky error). Like the CUDA backend (src/runtime/cuda_backend.hpp),
//    the device then detaches no launch once a failure was seen: by one of its
//    own calls, or reported by the program (failure_observed, what acs's hooks
//    do with every failed call).
//  * stream priorities: a kernel waiting for an execution slot starts before
//    waiting kernels of less urgent streams (lower value: more urgent, as CUDA);
//  * spinning: a kernel may wait, running (its slot lent), until another
//    kernel (of any stream) has finished, as one that spins on a flag in memory
//    that the other sets (kernel::waits_for). When the host waits for work that
//    can never finish, the device reports a deadlock instead of hanging;
//  * rule 12 (docs/design.md): every kernel enqueued on a pool stream behind an
//    unfinished kernel there, or behind a wait for one, is recorded
//    (queued_behind), so that a test can check whose kernels those were.
//  * several devices (device_config::devices), as CUDA's "stream and event behavior" has
//    them: each device has its own legacy stream (coupled with its own blocking streams
//    only), streams, events and execution slots; an event is recorded only on a stream of
//    its own device, and waited on from any device; a device synchronize waits for its own
//    device's work. Memory is one array of cells, each owned by a device or by none
//    (assign_cells): a kernel may touch another device's cells only with peer access
//    (enable_peer_access); a copy may read and write any cells (a peer copy when they are
//    owned by different devices), ordered on the stream it was issued on. The context
//    failure (fault_when_done) is the whole machine's.
//    The device's own calls are the application's, on any device; on(d) is the backend a
//    scheduler of device d is given, which also refuses (and records, misuses) what a
//    per-device scheduler must never do: a stream or an event of another device.
// Every call may come from any thread: one mutex guards the whole device.
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "scheduler/backend.hpp"
#include "memory_effect.hpp"
#include "race_checker.hpp"
#include "scheduler/scheduler.hpp"
#include "sim_graph.hpp"
#include "vector_clock.hpp"

namespace acs::sim {

using nanos = std::uint64_t;

// What the scheduler receives as its opaque `const void* kernel`. Its footprint
// is what it really touches; the scheduler may be told a superset.
struct kernel {
  std::uint64_t id = 0;
  nanos duration = 1000;
  std::vector<cell> reads;
  std::vector<cell> writes;
  // Non-zero: the kernel cannot finish before a run of kernel `waits_for` has finished (it
  // spins on a flag that kernel sets); it runs at least `duration` all the same.
  std::uint64_t waits_for = 0;
  bool operator==(const kernel&) const = default;
};

struct device_config {
  std::uint32_t cells = 64;
  unsigned concurrency = 8;  // kernels and library calls running at once, per device
  nanos launch_cost = 4800;  // host time per launch (docs/design.md §7)
  nanos api_cost = 350;      // host time per other call
  unsigned devices = 1;      // streams 0..devices-1 are their legacy streams
};

// CUDA's codes, so that a status passed back unchanged is recognisable.
inline constexpr backend_status status_invalid_value = 1;
inline constexpr backend_status status_invalid_handle = 400;

const char* name(stream_kind k) noexcept;

// The backend calls a test can make fail.
enum class api_call : std::uint8_t { create_stream, create_event, record_event, wait_event, launch };
const char* name(api_call c) noexcept;

struct op_span {
  nanos start = 0;
  nanos end = 0;
};

class sim_device final : public backend {
 public:
  // The legacy default stream (of device 0), as CUDA's `0`.
  static constexpr stream_handle legacy_stream = 0;
  // A cell no device owns: every device may touch it (managed or pinned memory).
  static constexpr unsigned no_device = ~0u;
  // The operation id that race reports give to host reads.
  static constexpr std::uint64_t host_op = ~std::uint64_t{0};

  explicit sim_device(device_config config = {});
  ~sim_device() override;

  // The backend of a scheduler of `device` (valid as long as the device).
  backend& on(unsigned device);
  static constexpr stream_handle legacy_stream_of(unsigned device) noexcept { return device; }

  // backend: what the scheduler calls. The test calls them too, as the application.
  backend_status create_stream(stream_handle* out) override;
  backend_status create_stream_with_priority(stream_handle* out, int priority) override;
  backend_status create_event(event_handle* out) override;
  backend_status record_event(event_handle event, stream_handle stream) override;
  backend_status wait_event(stream_handle stream, event_handle event) override;
  event_state query_event(event_handle event) override;
  // The host waits for the stream; the application's stream syncs use it too.
  backend_status synchronize(stream_handle stream) override;
  backend_status launch(const void* kernel, stream_handle stream) override;
  // A copy of the kernel, for the scheduler's issuing thread; unless launches are made to
  // fail, or a context failure was seen (then they are issued at once, their status seen).
  const void* detach(const void* kernel) override;
  backend_status launch_detached(const void* kernel, stream_handle stream) override;
  void destroy_stream(stream_handle stream) noexcept override;
  void destroy_event(event_handle event) noexcept override;
  // Graphs of detached kernels (sim_graph.hpp; defined in sim_graph.cpp). A launch and its
  // detached copy are both simulated kernels: identify is describe.
  bool describe(const void* kernel, kernel_identity* out) override;
  bool identify(const void* kernel, kernel_identity* out) override { return describe(kernel, out); }
  backend_status graph_instantiate(const graph_description& graph, graph_handle* out) override;
  backend_status graph_update(graph_handle exec, const graph_description& graph) override;
  std::size_t graph_changes(graph_handle exec, const graph_description& graph, std::uint32_t* changed) override;
  backend_status graph_launch(graph_handle exec, stream_handle stream) override;
  void graph_destroy(graph_handle exec) noexcept override;
  void release_detached(const void* kernel) noexcept override;
  sim_graph_counts graph_counts() const;
  // Every executable instantiated so far, destroyed ones included (by graph_handle - 1).
  const std::vector<sim_graph_exec>& graphs() const noexcept { return graphs_; }

  // The application's streams (blocking or non-blocking) and events, and the work it issues
  // on them directly, which acs sees only as barriers.
  stream_handle create_app_stream(stream_kind kind, int priority = 0, unsigned device = 0);
  backend_status create_event_on(unsigned device, event_handle* out);
  backend_status library_call(stream_handle stream, const kernel& k);   // holds a slot
  backend_status host_function(stream_handle stream, const kernel& k);  // holds no slot
  backend_status copy(stream_handle stream, cell dst, cell src, std::uint32_t count, nanos duration);
  backend_status fill(stream_handle stream, cell first, std::uint32_t count, value v, nanos duration);
  // An operation without a memory effect: stream-ordered malloc, an unknown entry point.
  backend_status marker(stream_handle stream);

  // The host waits; it then knows everything the completed work knew. They return the
  // context failure, if one happened (the wait is then cut short).
  backend_status synchronize_event(event_handle event);
  backend_status synchronize_device();               // every device
  backend_status synchronize_device(unsigned device);  // that device's work only
  // Whether the stream is idle; `status`, if given, receives the context failure.
  bool query_stream(stream_handle stream, backend_status* status = nullptr);
  // A race-checked read of device memory by the host.
  value host_read(cell c);

  // Cells [first, first + count) belong to `device` (no_device: to none).
  void assign_cells(cell first, std::uint32_t count, unsigned device);
  // Kernels of `from` may touch the cells of `to` (cudaDeviceEnablePeerAccess).
  void enable_peer_access(unsigned from, unsigned to);
  unsigned device_of(stream_handle stream) const;
  unsigned event_device(event_handle event) const;
  // Calls of a device's backend (on) that named another device's stream or event.
  std::vector<std::string> misuses() const;

  // After `after` more successful calls of `which`, the next `count` fail with
  // `status` and do nothing else.
  void fail_calls(api_call which, unsigned count, backend_status status, unsigned after = 0);

  // The context fails once a kernel (or library call) with this id has run: from then on
  // every call returns `status` and does nothing.
  void fault_when_done(std::uint64_t kernel_id, backend_status status);
  bool faulted() const;
  // The program saw a call fail (acs's hooks report every failed call).
  void failure_observed();

  std::vector<race> races() const;
  std::string explain(const race& r) const;
  std::string explain_races(std::size_t max = 5) const;
  // Memory now; after synchronize_device, the final state.
  std::vector<value> memory() const;
  // Effects of every operation with one, in the order the host issued them.
  std::vector<memory_effect> issued_effects() const;
  // The latest run of a kernel (or library call) with this id, once it started.
  std::optional<op_span> kernel_span(std::uint64_t kernel_id) const;
  unsigned launches(std::uint64_t kernel_id) const;
  // The stream the latest run of a kernel (or library call) with this id was issued on (a graph
  // node's: the stream its graph was launched on).
  std::optional<stream_handle> kernel_stream(std::uint64_t kernel_id) const;
  int priority(stream_handle stream) const;
  bool is_pool_stream(stream_handle stream) const;
  // Whether a host wait found work that can never finish (a kernel spinning for one queued
  // behind it); what was stuck.
  bool deadlocked() const;
  std::string deadlock_report() const;
  // Kernel `later` was enqueued on a pool stream behind kernel `earlier`, unfinished then,
  // or behind a wait for it.
  struct queued_pair {
    std::uint64_t earlier = 0;
    std::uint64_t later = 0;
  };
  std::vector<queued_pair> queued_behind() const;
  nanos now() const;              // host time
  nanos last_completion() const;  // device time of the latest completion
  unsigned peak_concurrency() const;  // over every device
  unsigned peak_concurrency(unsigned device) const;
  // How many times the scheduler (or the test) called each of these, failed calls included:
  // what host time beyond the launches goes to.
  struct call_counts {
    std::uint64_t record = 0, wait = 0, query = 0;
  };
  call_counts calls() const;

 private:
  enum class op_kind : std::uint8_t { kernel, library_call, host_function, copy, fill, marker, record, wait };
  enum class phase : std::uint8_t { waiting, running, done };
  enum class stream_origin : std::uint8_t { legacy, app, pool, graph };

  struct op {
    op_kind kind = op_kind::marker;
    stream_handle stream = 0;
    std::uint64_t kernel_id = 0;
    std::uint64_t waits_for = 0;  // kernel id it spins for (kernel::waits_for)
    std::optional<std::uint64_t> bound_to;  // a wait: the record it binds to
    std::optional<std::uint64_t> previous;  // the op before it on its stream
    memory_effect effect;
    nanos duration = 0;
    bool uses_slot = false;
    bool slot_lent = false;  // spinning: its slot serves others meanwhile
    vector_clock clock;
    std::uint32_t tick = 0;
    unsigned pending = 0;  // dependencies not yet complete
    std::vector<std::uint64_t> dependents;
    phase at = phase::waiting;
    nanos start = 0;
    nanos end = 0;
    std::vector<value> read_values;
  };
  struct stream_state {
    stream_kind kind = stream_kind::non_blocking;
    stream_origin origin = stream_origin::pool;
    int priority = 0;
    unsigned device = 0;
    bool destroyed = false;
    std::optional<std::uint64_t> tail;
    std::uint32_t ticks = 0;
  };
  struct event_slot {
    std::optional<std::uint64_t> record;  // the latest record
    bool destroyed = false;
    unsigned device = 0;
  };
  class device_backend;

  static std::uint32_t timeline(stream_handle s) noexcept { return static_cast<std::uint32_t>(s + 1); }
  bool valid_stream(stream_handle s) const noexcept;
  bool valid_event(event_handle e) const noexcept;
  bool valid_cells(const std::vector<cell>& cells) const noexcept;
  // Whether a kernel on `stream` may touch these cells (their owner, peer access).
  bool accessible(const kernel& k, stream_handle stream) const noexcept;
  stream_handle add_stream(stream_kind kind, stream_origin origin, int priority = 0, unsigned device = 0);
  backend_status new_pool_stream(stream_handle* out, int priority, unsigned device);
  backend_status new_event(event_handle* out, unsigned device);
  const void* detach_on(const void* kernel, unsigned device);
  unsigned op_device(std::uint64_t id) const noexcept { return streams_[ops_[id].stream].device; }

  // Issues `o` on `stream` at the current host time, after `extra` and after
  // what stream order and the legacy stream require.
  std::uint64_t enqueue(op o, stream_handle stream, std::optional<std::uint64_t> extra);
  std::uint64_t enqueue_after(op o, stream_handle stream, std::span<const std::uint64_t> extra);
  backend_status enqueue_effect(op_kind kind, stream_handle stream, const kernel& k, nanos cost);
  backend_status enqueue_effect(op_kind kind, stream_handle stream, std::uint64_t kernel_id,
                                memory_effect effect, nanos duration, nanos cost, std::uint64_t waits_for = 0);
  void dispatch();
  void start(std::uint64_t id);
  void finish(std::uint64_t id);
  void run_until(nanos t);
  // False when it can never be done: a deadlock (recorded).
  bool run_until_done(std::uint64_t id);
  void note_queued_behind(std::uint64_t id);
  // Kernel `kernel_id` was enqueued behind `at` and what precedes it on that stream.
  void note_queued_behind_from(std::uint64_t kernel_id, std::optional<std::uint64_t> at);
  std::optional<std::size_t> next_in_slot_queue() const;
  void observe(std::uint64_t id);
  std::string describe_op(std::uint64_t id) const;
  std::string describe_stream(stream_handle s) const;

  mutable std::mutex mutex_;
  device_config config_;
  nanos now_ = 0;         // host time
  nanos device_now_ = 0;  // device time, never ahead of work left to simulate
  nanos last_completion_ = 0;
  call_counts calls_;
  std::vector<stream_state> streams_;
  std::vector<event_slot> events_;
  std::vector<op> ops_;
  std::vector<value> memory_;
  race_checker checker_;
  vector_clock host_clock_;
  std::uint32_t host_ticks_ = 0;
  std::deque<std::uint64_t> ready_;       // dependencies complete, not started
  std::deque<std::uint64_t> slot_queue_;  // ready, waiting for an execution slot
  std::priority_queue<std::pair<nanos, std::uint64_t>, std::vector<std::pair<nanos, std::uint64_t>>,
                      std::greater<>>
      running_;
  std::vector<unsigned> busy_slots_;  // per device
  std::vector<unsigned> peak_slots_;  // per device
  std::vector<unsigned> owner_;       // per cell: its device, or no_device
  std::set<std::pair<unsigned, unsigned>> peer_access_;  // (from, to)
  std::vector<std::string> misuses_;
  std::vector<std::unique_ptr<device_backend>> views_;  // per device, made on first use
  struct injected_failure {
    unsigned after = 0;
    unsigned count = 0;
    backend_status status = 0;
  };
  backend_status launch_checked(const void* kernel, stream_handle stream, bool may_fail);
  // The context failure, once it happened: the call then costs `cost` and does nothing.
  std::optional<backend_status> context_failed(nanos cost);
  // What a call of acs's returned: a failure is seen (no more detaching).
  backend_status seen(backend_status status);
  std::optional<std::uint64_t> faulting_kernel_;
  backend_status fault_status_ = 0;
  std::optional<backend_status> fault_;  // the context failed
  bool failure_seen_ = false;
  // A failure to return instead of making the call, if one is pending.
  std::optional<backend_status> injected(api_call which);

  injected_failure failures_[5];
  std::map<std::uint64_t, std::uint64_t> latest_run_;  // kernel id -> op
  std::map<std::uint64_t, unsigned> launch_counts_;    // kernel id -> launches
  std::set<std::uint64_t> finished_kernels_;           // kernel ids with a finished run
  std::map<std::uint64_t, std::vector<std::uint64_t>> spinning_;  // kernel id -> ops spinning for it
  std::vector<queued_pair> queued_behind_;
  std::string deadlock_;  // what was stuck, once a host wait deadlocked
  std::vector<std::uint64_t> effect_ops_;              // ops with a memory effect, issue order
  std::vector<sim_graph_exec> graphs_;                 // graph_handle - 1
  std::map<std::uint64_t, stream_handle> node_launch_stream_;  // a graph node's op -> its launch's stream
  sim_graph_counts graph_counts_;
};

// What a scheduler of one device calls (sim_device::on): the device's calls, restricted to
// its own streams and events. A call naming another device's is refused (status_invalid_handle)
// and recorded: a per-device scheduler has no business there, and CUDA would either reject it or
// act on the wrong device (a join waited for on another device's stream orders nothing).
class sim_device::device_backend final : public backend {
 public:
  device_backend(sim_device& sim, unsigned device) noexcept : sim_(sim), device_(device) {}

  backend_status create_stream(stream_handle* out) override;
  backend_status create_stream_with_priority(stream_handle* out, int priority) override;
  backend_status create_event(event_handle* out) override;
  backend_status record_event(event_handle event, stream_handle stream) override;
  backend_status wait_event(stream_handle stream, event_handle event) override;
  event_state query_event(event_handle event) override;
  backend_status synchronize(stream_handle stream) override;
  backend_status launch(const void* kernel, stream_handle stream) override;
  const void* detach(const void* kernel) override;
  backend_status launch_detached(const void* kernel, stream_handle stream) override;
  void destroy_stream(stream_handle stream) noexcept override;
  void destroy_event(event_handle event) noexcept override;
  // Graphs (sim_graph.cpp): launched only on this device's streams.
  bool describe(const void* kernel, kernel_identity* out) override;
  bool identify(const void* kernel, kernel_identity* out) override { return describe(kernel, out); }
  backend_status graph_instantiate(const graph_description& graph, graph_handle* out) override;
  backend_status graph_update(graph_handle exec, const graph_description& graph) override;
  std::size_t graph_changes(graph_handle exec, const graph_description& graph, std::uint32_t* changed) override;
  backend_status graph_launch(graph_handle exec, stream_handle stream) override;
  void graph_destroy(graph_handle exec) noexcept override;
  void release_detached(const void* kernel) noexcept override;

 private:
  // False (and recorded) when `stream` or `event` (0: none) is not of this device.
  bool own(const char* call, stream_handle stream, event_handle event);

  sim_device& sim_;
  unsigned device_;
};

}  // namespace acs::sim
