#pragma once
// The scheduler's state behind its lock (scheduler.hpp), private to scheduler/. Its work is
// split by responsibility, one file each:
//  * scheduler.cpp   dispatching a launch: dependencies, the pool stream, its waits, the
//                    window entry; and the public calls;
//  * joins.cpp       application streams and their pool work: joins, forks, legacy coupling;
//  * retirement.cpp  entries leaving the window: completion, folding into summaries, syncs,
//                    and the fallback when acs's own calls fail;
//  * chain_merging   the fate of a pool stream's tail (shadowed, merged or recorded).
// Every function here runs under the scheduler's lock.
#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "scheduler/backend_check.hpp"
#include "scheduler/chain_merging.hpp"
#include "scheduler/event_pool.hpp"
#include "scheduler/range_summary.hpp"
#include "scheduler/scheduler.hpp"
#include "scheduler/stream_pool.hpp"
#include "scheduler/window.hpp"

namespace acs {

inline constexpr slot_id no_slot = ~slot_id{0};

// A step of the launch path, always inlined into it (see below).
#define ACS_STEP [[gnu::always_inline]] inline

// What the scheduler remembers of one application stream.
struct vstream_state {
  stream_handle handle = 0;
  stream_kind kind = stream_kind::non_blocking;
  int priority = 0;
  bool pool_bound = false;             // whether pool_set is known for `priority` (bind_pool)
  unsigned pool_set = stream_pool::none;  // the pool streams of its priority; none: it runs in place
  // Work was issued on the stream itself since its fork event was recorded:
  // the next redirected kernel must record a new one. True at first sight,
  // since the stream may already hold work issued before acs saw it.
  bool fork_dirty = true;
  event_handle fork_event = 0;            // 0: none recorded yet
  std::uint64_t fork_waiters = 0;         // pool streams already after the fork (bit i)
  std::uint64_t seen_legacy_epoch = 0;    // legacy coupling, see scheduler.hpp
  std::uint64_t seen_blocking_epoch = 0;
  // Lazy join: pool streams holding kernels of this stream that the stream
  // itself does not wait for yet (bit p), the latest such kernel on each, and
  // the issue stamp of the latest of all.
  std::uint64_t unjoined = 0;
  std::array<std::uint64_t, scheduler_config::max_streams> unjoined_seq{};
  std::uint64_t unjoined_stamp = 0;
  // Folded work in two generations: `newer` receives folds; once it holds a
  // window's worth, `older` is dropped if its events are complete (else the
  // two merge) and `newer` takes its place. Staleness stays bounded.
  range_summary older;
  range_summary newer;
  unsigned folds_into_newer = 0;
};

// A kernel that the launch being dispatched must follow.
struct dependency {
  unsigned stream;
  std::uint64_t seq;
  event_handle event;
  slot_id slot;  // the window entry, or no_slot for folded work (always recorded)
};

// The dependencies of the launch being dispatched: at most one per pool stream
// (add_dependency keeps the latest), so a fixed array, never allocated.
class dependency_list {
 public:
  void clear() noexcept { count_ = 0; }
  bool empty() const noexcept { return count_ == 0; }
  void push_back(const dependency& d) noexcept { items_[count_++] = d; }
  dependency* begin() noexcept { return items_.data(); }
  dependency* end() noexcept { return items_.data() + count_; }
  const dependency* begin() const noexcept { return items_.data(); }
  const dependency* end() const noexcept { return items_.data() + count_; }

 private:
  std::array<dependency, scheduler_config::max_streams> items_{};
  unsigned count_ = 0;
};

struct scheduler::state {
  backend& gpu;
  graph_replay* replay;  // with graphs: the backend `gpu` is
  issue_queue* queue;  // with issue_threads: the backend `gpu` is
  scheduler_config config;
  bool broken = false;  // an own CUDA call failed: everything was waited for, launches run in place
  stream_pool pool;
  event_pool events;
  window win;
  chain_merger merger;
  // Per pool stream: the window slot of its last kernel while that kernel's
  // event is not recorded. Nothing is issued on the stream after such a
  // kernel until its event is recorded (or it is shadowed), so recording it
  // late is exact.
  std::vector<slot_id> unrecorded_tail;
  std::unordered_map<std::uintptr_t, vstream_state> vstreams;
  // Counters of work issued on the legacy stream and on blocking streams.
  std::uint64_t legacy_epoch = 0;
  std::uint64_t blocking_epoch = 0;
  scheduler_stats stats;
  dispatch_observer* observer = nullptr;
  std::uint64_t next_launch_id = 0;
  // The kernel being dispatched is a copy from backend::detach (segment_replay.hpp): issued by
  // launch_detached, which frees it.
  bool issuing_detached = false;
  backend_status issue(const void* kernel, stream_handle stream) {
    return issuing_detached ? gpu.launch_detached(kernel, stream) : gpu.launch(kernel, stream);
  }
  // Scratch, reused across launches so that steady state does not allocate.
  std::vector<slot_id> dep_slots;
  dependency_list deps;
  std::vector<event_handle> released;
  std::vector<std::uint64_t> waited_ids;
  // Most launches hit the stream of the previous one: remember it. Node-based
  // map, so the pointer stays valid until that stream is forgotten.
  std::uintptr_t last_key = 0;
  vstream_state* last_state = nullptr;

  // A blocking stream forgotten with kernels it never joined leaves them here (joins.cpp).
  static constexpr std::uintptr_t orphans_key = ~std::uintptr_t{0};

  state(backend& g, graph_replay* r, issue_queue* q, scheduler_config c);

  // ---- scheduler.cpp: dispatching a launch --------------------------------
  // The steps of a launch: defined in scheduler.cpp, the one unit that calls them, and
  // inlined into launch as they were when all of this was one function. GCC stops inlining
  // some of them once launch grows (measured: 6% more instructions per decision).
  ACS_STEP void collect_dependencies(const virtual_stream& s, vstream_state& vs, const access_set& access,
                                     std::uint64_t group);
  ACS_STEP void add_dependency(const dependency& d);
  ACS_STEP unsigned choose_stream(const virtual_stream& s, const vstream_state& vs);
  ACS_STEP backend_status settle_tail(unsigned p, const virtual_stream& s, const access_set& access,
                                      std::uint64_t group, slot_id& shadowed, const access_set*& entry_access);
  ACS_STEP backend_status wait_dependencies(unsigned p, const vstream_state& vs);
  backend_status launch(const virtual_stream& s, const access_set& access, const void* kernel,
                        std::uint64_t group);
  void launch_failed(const virtual_stream& s, unsigned p, event_handle done);
  backend_status launch_in_place(const virtual_stream& s, const void* kernel);

  void bind_pool(vstream_state& vs);
  unsigned reclaim(const vstream_state& vs);

  // Used by every part, or at every launch, and small.
  vstream_state& vstream(const virtual_stream& s) {
    if (last_state == nullptr || last_key != s.key) {
      last_state = &vstreams[s.key];
      last_key = s.key;
    }
    last_state->handle = s.handle;
    last_state->kind = s.kind;
    if (last_state->priority != s.priority) {
      last_state->priority = s.priority;
      last_state->pool_bound = false;
    }
    return *last_state;
  }
  void release_all(std::vector<event_handle>& evs) {
    if (evs.empty()) return;
    for (event_handle e : evs)
      if (e != 0) events.release(e);
    evs.clear();
  }
  // Records the event of window entry `s` if it is not yet: only its pool
  // stream's unrecorded tail can be in that state, so the record is exact.
  backend_status record_entry(slot_id s) {
    const window_entry& e = win[s];
    if (unrecorded_tail[e.stream] != s) return 0;
    ACS_BACKEND_CHECK(gpu.record_event(e.event, pool[e.stream].handle));
    unrecorded_tail[e.stream] = no_slot;
    return 0;
  }

  // ---- joins.cpp: application streams and their pool work ------------------
  // (These two run at every launch: inline here.)
  void bump_epoch(stream_kind kind) {
    if (kind == stream_kind::legacy) ++legacy_epoch;
    if (kind == stream_kind::blocking) ++blocking_epoch;
  }
  // Legacy-stream rule (docs/design.md rule 4): pool streams are non-blocking,
  // so a switch between the legacy stream and blocking streams is a barrier.
  // True when it applies: the fork must then also cover the other side's pool work.
  bool apply_legacy_coupling(const virtual_stream& s, vstream_state& vs) {
    const bool coupled = (s.kind == stream_kind::legacy && vs.seen_blocking_epoch != blocking_epoch) ||
                         (s.kind == stream_kind::blocking && vs.seen_legacy_epoch != legacy_epoch);
    if (coupled) vs.fork_dirty = true;
    return coupled;
  }
  backend_status covering_event(unsigned p, std::uint64_t seq, event_handle& out, bool& temporary);
  backend_status join_into(stream_handle target, const vstream_state& source);
  void join_own(vstream_state& vs);
  void join_coupled(const virtual_stream& s);
  backend_status refresh_fork(const virtual_stream& s, vstream_state& vs, bool coupled);
  void before_direct_work(const virtual_stream& s);
  void after_direct_work(const virtual_stream& s);
  void orphan_unjoined(const vstream_state& vs);

  // ---- retirement.cpp: entries leaving the window --------------------------
  // Bookkeeping for an entry leaving the window (the caller removes it). Inline: a shadowed
  // or merged tail leaves at nearly every launch of a chain.
  void drop_entry(slot_id s) {
    window_entry& e = win[s];
    pool[e.stream].in_window--;
    if (unrecorded_tail[e.stream] == s) unrecorded_tail[e.stream] = no_slot;
    events.release(e.event);
  }
  void fail();
  void join_on_host(vstream_state& vs);
  void drop_stream_entries(std::uintptr_t key, vstream_state& vs, std::uint64_t point = ~std::uint64_t{0});
  void make_room();
  // The steps of make_room, which runs at every launch once the window is full.
  ACS_STEP slot_id second_newest_on(unsigned p) const;
  ACS_STEP bool probe(slot_id s);
  void fold_oldest();
  void age_summaries(vstream_state& vs);
  // A host sync from `point` of the stream `owner` (no_owner: of the device): the pool
  // streams whose work it saw complete are free again (rule 12).
  void pools_synchronized(std::uintptr_t owner, std::uint64_t point);

};

}  // namespace acs
