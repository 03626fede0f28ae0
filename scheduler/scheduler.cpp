#include "scheduler/scheduler.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <unordered_map>
#include <vector>

#include "scheduler/event_pool.hpp"
#include "scheduler/range_summary.hpp"
#include "scheduler/stream_pool.hpp"
#include "scheduler/window.hpp"

namespace acs {

namespace {

// Counts dispatched kernels across the process: a sync point is a value of it.
std::atomic<std::uint64_t> issue_stamps{0};

constexpr slot_id no_slot = ~slot_id{0};

// What the scheduler remembers of one application stream.
struct vstream_state {
  stream_handle handle = 0;
  stream_kind kind = stream_kind::non_blocking;
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

struct dependency {
  unsigned stream;
  std::uint64_t seq;
  event_handle event;
  slot_id slot;  // the window entry, or no_slot for folded work (always recorded)
};

}  // namespace

struct scheduler::state {
  backend& gpu;
  issue_queue* queue;  // with issue_threads: the backend `gpu` is
  scheduler_config config;
  bool started = false;
  backend_status start_status = 0;
  bool broken = false;  // an own CUDA call failed: everything was waited for, launches run in place
  stream_pool pool;
  event_pool events;
  window win;
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
  // Scratch, reused across launches so that steady state does not allocate.
  std::vector<slot_id> dep_slots;
  std::vector<dependency> deps;
  std::vector<event_handle> released;
  std::vector<std::uint64_t> waited_ids;

  state(backend& g, issue_queue* q, scheduler_config c)
      : gpu(g), queue(q), config(c), pool(g), events(g), win(std::clamp(c.window, 1u, scheduler_config::max_window)) {
    config.streams = std::clamp(c.streams, 1u, scheduler_config::max_streams);
  }

  bool start() {
    if (!started) {
      started = true;
      start_status = pool.create(config.streams);
      unrecorded_tail.assign(pool.size(), no_slot);
    }
    return start_status == 0;
  }

  // Most launches hit the stream of the previous one: remember it. Node-based
  // map, so the pointer stays valid until that stream is forgotten.
  std::uintptr_t last_key = 0;
  vstream_state* last_state = nullptr;
  vstream_state& vstream(const virtual_stream& s) {
    if (last_state == nullptr || last_key != s.key) {
      last_state = &vstreams[s.key];
      last_key = s.key;
    }
    last_state->handle = s.handle;
    last_state->kind = s.kind;
    return *last_state;
  }

  void release_all(std::vector<event_handle>& evs) {
    for (event_handle e : evs)
      if (e != 0) events.release(e);
    evs.clear();
  }

  // Bookkeeping for an entry leaving the window (the caller removes it).
  void drop_entry(slot_id s) {
    window_entry& e = win[s];
    pool[e.stream].in_window--;
    if (unrecorded_tail[e.stream] == s) unrecorded_tail[e.stream] = no_slot;
    events.release(e.event);
  }

  // An own CUDA call failed: nothing acs tracks can be trusted to be ordered
  // any more. Wait for every pool stream on the host (then all of it is
  // complete), forget it all, and run every later kernel in place.
  void fail() {
    if (broken) return;
    broken = true;
    ++stats.join_failures;
    for (unsigned p = 0; p < pool.size(); ++p) (void)gpu.synchronize(pool[p].handle);
    win.remove_if([&](slot_id s) {
      drop_entry(s);
      return true;
    });
    for (auto& [key, vs] : vstreams) {
      vs.older.clear(released);
      vs.newer.clear(released);
      vs.folds_into_newer = 0;
      vs.unjoined = 0;
      vs.fork_dirty = true;
    }
    release_all(released);
  }

  // Everything of `key` in the window and its summary issued up to `point`
  // is covered by a later fork or a host sync: forget it.
  void drop_stream_entries(std::uintptr_t key, vstream_state& vs,
                           std::uint64_t point = ~std::uint64_t{0}) {
    win.remove_if([&](slot_id s) {
      if (win[s].vstream != key || win[s].stamp > point) return false;
      drop_entry(s);
      return true;
    });
    if (vs.older.last_stamp() <= point) vs.older.clear(released);
    if (vs.newer.last_stamp() <= point) {
      vs.newer.clear(released);
      vs.folds_into_newer = 0;
    }
    release_all(released);
  }

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

  // Records the event of window entry `s` if it is not yet: only its pool
  // stream's unrecorded tail can be in that state, so the record is exact.
  backend_status record_entry(slot_id s) {
    const window_entry& e = win[s];
    if (unrecorded_tail[e.stream] != s) return 0;
    if (const backend_status st = gpu.record_event(e.event, pool[e.stream].handle); st != 0) return st;
    unrecorded_tail[e.stream] = no_slot;
    return 0;
  }

  // An event recorded on pool stream `p` after its kernel `seq`: the earliest
  // window entry there from `seq` on, else a temporary one recorded now (later
  // than needed, never earlier). 0 when that kernel is known complete.
  backend_status covering_event(unsigned p, std::uint64_t seq, event_handle& out, bool& temporary) {
    out = 0;
    temporary = false;
    if (pool[p].known_complete >= seq) return 0;
    slot_id best = no_slot;
    win.for_each([&](slot_id s) {
      const window_entry& e = win[s];
      if (e.stream == p && e.seq >= seq && (best == no_slot || e.seq < win[best].seq)) best = s;
    });
    if (best != no_slot) {
      if (const backend_status st = record_entry(best); st != 0) return st;
      out = win[best].event;
      return 0;
    }
    if (const backend_status st = events.acquire(&out); st != 0) return st;
    if (const backend_status st = gpu.record_event(out, pool[p].handle); st != 0) {
      events.release(out);
      out = 0;
      return st;
    }
    temporary = true;
    return 0;
  }

  // Makes `target` wait for the pool work of `source` that `source` itself
  // does not wait for yet.
  backend_status join_into(stream_handle target, const vstream_state& source) {
    for (std::uint64_t bits = source.unjoined; bits != 0; bits &= bits - 1) {
      const auto p = static_cast<unsigned>(__builtin_ctzll(bits));
      event_handle e = 0;
      bool temporary = false;
      if (const backend_status st = covering_event(p, source.unjoined_seq[p], e, temporary); st != 0) return st;
      if (e == 0) continue;
      const backend_status st = gpu.wait_event(target, e);
      if (temporary) events.release(e);
      if (st != 0) return st;
      ++stats.join_waits;
    }
    return 0;
  }

  // The stream waits for all its own pool work.
  void join_own(vstream_state& vs) {
    if (broken || vs.unjoined == 0) return;
    if (join_into(vs.handle, vs) != 0) return fail();
    vs.unjoined = 0;
  }

  // What the legacy stream's implicit synchronisation needs before work on `s`:
  // the legacy stream waits for blocking streams, blocking streams for the
  // legacy stream. Their pool work is made a wait of `s` itself (a per-thread
  // default stream can only be named by its own thread).
  void join_coupled(const virtual_stream& s) {
    if (broken || s.kind == stream_kind::non_blocking) return;
    for (auto& [key, other] : vstreams) {
      if (key == s.key || other.unjoined == 0) continue;
      const bool coupled =
          s.kind == stream_kind::legacy ? other.kind == stream_kind::blocking : other.kind == stream_kind::legacy;
      if (coupled && join_into(s.handle, other) != 0) return fail();
    }
  }

  // Records the fork event on the application stream, after the stream has
  // joined its own pool work (and, under legacy coupling, the other side's).
  backend_status refresh_fork(const virtual_stream& s, vstream_state& vs, bool coupled) {
    join_own(vs);
    if (coupled) join_coupled(s);
    if (broken) return 1;
    event_handle e = vs.fork_event;
    if (e == 0) {
      if (const backend_status st = events.acquire(&e); st != 0) return st;
    }
    if (const backend_status st = gpu.record_event(e, s.handle); st != 0) {
      if (vs.fork_event == 0) events.release(e);
      return st;
    }
    vs.fork_event = e;
    vs.fork_waiters = 0;
    vs.fork_dirty = false;
    vs.seen_legacy_epoch = legacy_epoch;
    vs.seen_blocking_epoch = blocking_epoch;
    drop_stream_entries(s.key, vs);
    return 0;
  }

  void collect_dependencies(const virtual_stream& s, vstream_state& vs, const access_set& access,
                            std::uint64_t group) {
    dep_slots.clear();
    deps.clear();
    win.dependencies(s.key, access, group, dep_slots);
    for (slot_id d : dep_slots) add_dependency({win[d].stream, win[d].seq, win[d].event, d});
    for (const range_summary* folded : {&vs.older, &vs.newer})
      if (folded->depends(access, group))
        for (const folded_event& f : folded->events()) add_dependency({f.stream, f.seq, f.event, no_slot});
  }

  // Waiting on the latest kernel of a pool stream covers its earlier ones:
  // keep one dependency per pool stream (a long chain has many in the window).
  void add_dependency(const dependency& d) {
    for (dependency& known : deps) {
      if (known.stream != d.stream) continue;
      if (d.seq > known.seq) known = d;
      return;
    }
    deps.push_back(d);
  }

  // A kernel goes behind its producer when that producer is its stream's tail:
  // stream order then replaces an event. Otherwise the least loaded stream.
  unsigned choose_stream() {
    const dependency* tail = nullptr;
    for (const dependency& d : deps)
      if (d.seq == pool[d.stream].issued && (tail == nullptr || d.seq > tail->seq)) tail = &d;
    if (tail != nullptr) {
      ++stats.same_stream;
      return tail->stream;
    }
    return pool.pick_least_loaded();
  }

  // Before anything more is issued on pool stream `p`: its last kernel gets
  // its event now, unless the new kernel shadows it (same stream and scope-free,
  // and every later kernel that would depend on it depends on the new one,
  // which runs after it here): then no event is ever needed for it, and it
  // leaves the window once the new kernel is launched (`shadowed`). Should
  // that launch fail, it stays the unrecorded tail; waits issued meanwhile on
  // `p` can then only make its event later than needed, never earlier.
  //
  // Or it merges: when the new kernel depends on the tail, the tail's footprint
  // joins the new kernel's entry (`entry_access`), and what would have waited
  // for the tail waits for the new kernel as well. Same conditions, and it
  // leaves the window the same way, as a shadowed tail.
  backend_status settle_tail(unsigned p, const virtual_stream& s, const access_set& access, std::uint64_t group,
                             slot_id& shadowed, const access_set*& entry_access) {
    shadowed = no_slot;
    entry_access = &access;
    const slot_id t = unrecorded_tail[p];
    if (t == no_slot) return 0;
    const window_entry& e = win[t];
    if (group == 0 && e.group == 0 && e.vstream == s.key) {
      if (shadows(e.reads, e.writes, access)) {
        shadowed = t;
        return 0;
      }
      if (may_merge() && std::find(dep_slots.begin(), dep_slots.end(), t) != dep_slots.end() &&
          merge_footprints(e.reads, e.writes, access, max_merged_ranges, merged)) {
        shadowed = t;
        entry_access = &merged;
        return 0;
      }
    }
    return record_entry(t);
  }

  // Merging pays when nothing on another pool stream waits for a kernel that
  // already has a successor on its own (note_wait_for: such a wait would be late). The score
  // rises with each such wait and falls by one per launch; merges only while it
  // is low. It starts high: a program's first launches show what it does.
  static constexpr unsigned merge_score_start = 64, merge_score_below = 16, merge_score_step = 8,
                            merge_score_max = 256;
  static constexpr std::size_t max_merged_ranges = 8;
  unsigned merge_score = merge_score_start;
  access_set merged;  // scratch: the entry of a kernel that merged its producer

  bool may_merge() const {
    switch (config.merge) {
      case chain_merge::always: return true;
      case chain_merge::never: return false;
      case chain_merge::adaptive: return merge_score < merge_score_below;
    }
    return false;
  }

  void late_wait() { merge_score = std::min(merge_score + merge_score_step, merge_score_max); }

  // A wait from another pool stream for a kernel that has a successor on its
  // own: had they been merged, it would wait for the successor too.
  void note_wait_for(const dependency& d, unsigned from) {
    if (d.stream != from && d.seq < pool[d.stream].issued) late_wait();
  }

  // A dependency on a merged entry for a producer merged into it, not for the
  // entry's own kernel: merging made it wait for that kernel too.
  void note_merged_dependencies(const access_set& access) {
    for (slot_id d : dep_slots) {
      const window_entry& e = win[d];
      if (e.merged && !conflicts(e.own, access)) late_wait();
    }
  }

  backend_status wait_dependencies(unsigned p, const vstream_state& vs) {
    for (const dependency& d : deps) {
      note_wait_for(d, p);
      if (!pool.note_wait(p, d.stream, d.seq)) continue;
      if (d.slot != no_slot) {
        if (const backend_status st = record_entry(d.slot); st != 0) return st;
      }
      if (const backend_status st = gpu.wait_event(pool[p].handle, d.event); st != 0) return st;
      ++stats.dependency_waits;
    }
    // A kernel with a dependency follows the fork through it (everything in the
    // window and summary was issued after the fork). Otherwise wait on the fork.
    const std::uint64_t bit = std::uint64_t{1} << p;
    if (deps.empty() && vs.fork_event != 0 && (vs.fork_waiters & bit) == 0) {
      if (const backend_status st = gpu.wait_event(pool[p].handle, vs.fork_event); st != 0) return st;
      ++stats.fork_waits;
    }
    return 0;
  }

  // Makes room in a full window. The oldest entry may still be running: it is
  // either seen complete, or folded into its stream's summary. Never lost.
  // Its pool stream's second-newest kernel is asked first: older than the one
  // most likely running there, it retires all but one of the stream's entries
  // in one query while the GPU keeps up. Folding a quarter of the window at a
  // time keeps queries to one per quarter-window of launches while it is behind.
  void make_room() {
    const slot_id o = win.oldest();
    const unsigned p = win[o].stream;
    const std::uint64_t oldest_seq = win[o].seq;
    pool_stream& ps = pool[p];
    if (ps.known_complete < oldest_seq) {
      const slot_id second = second_newest_on(p);
      if (second != no_slot && second != o && !probe(second)) return fail();
      if (ps.known_complete < oldest_seq && !probe(o)) return fail();
    }
    if (ps.known_complete >= oldest_seq) {
      const std::uint64_t done = ps.known_complete;
      win.remove_if([&](slot_id s) {
        if (win[s].stream != p || win[s].seq > done) return false;
        drop_entry(s);
        return true;
      });
      return;
    }
    const unsigned batch = std::max(1u, win.capacity() / 4);
    for (unsigned i = 0; i < batch && !win.empty() && !broken; ++i) fold_oldest();
  }

  slot_id second_newest_on(unsigned p) const {
    slot_id newest = no_slot, second = no_slot;
    win.for_each([&](slot_id s) {
      if (win[s].stream != p) return;
      second = newest;  // the window keeps a pool stream's entries in issue order
      newest = s;
    });
    return second;
  }

  // Queries entry `s` (recording its event first if it is its stream's tail);
  // false when recording failed.
  bool probe(slot_id s) {
    const window_entry& e = win[s];
    pool_stream& ps = pool[e.stream];
    if (ps.known_complete >= e.seq) return true;
    if (record_entry(s) != 0) return false;
    if (gpu.query_event(e.event) != event_state::pending)
      ps.known_complete = e.seq;  // an error also means nothing more will run
    return true;
  }

  void fold_oldest() {
    const slot_id s = win.oldest();
    if (record_entry(s) != 0) return fail();
    const window_entry& e = win[s];
    vstream_state& vs = vstreams[e.vstream];
    ++stats.folds;
    if (const event_handle unneeded = vs.newer.fold(e); unneeded != 0) events.release(unneeded);
    pool[e.stream].in_window--;
    win.remove(s);
    if (++vs.folds_into_newer >= win.capacity()) age_summaries(vs);
  }

  // Queries the older generation (oldest first, stopping at the first still
  // running). Complete: drop it. Running: fold the newer into it.
  void age_summaries(vstream_state& vs) {
    vs.folds_into_newer = 0;
    bool complete = true;
    for (const folded_event& f : vs.older.events()) {
      pool_stream& ps = pool[f.stream];
      if (ps.known_complete >= f.seq) continue;
      if (gpu.query_event(f.event) == event_state::pending) {
        complete = false;
        break;
      }
      ps.known_complete = f.seq;
    }
    if (complete) {
      vs.older.clear(released);
      std::swap(vs.older, vs.newer);
    } else {
      vs.older.absorb(vs.newer, released);
    }
    release_all(released);
  }

  // Before work is issued on `s` directly: it must follow s's pool work, and
  // the implicit synchronisation of the legacy stream.
  void before_direct_work(const virtual_stream& s) {
    join_own(vstream(s));
    join_coupled(s);
  }

  // A blocking stream forgotten (destroyed, or a per-thread default stream whose
  // thread ended) with kernels it never joined: the legacy stream's implicit
  // synchronisation must still wait for them. They move to a stream-less
  // blocking entry that only legacy coupling reads (and a device sync clears).
  static constexpr std::uintptr_t orphans_key = ~std::uintptr_t{0};
  void orphan_unjoined(const vstream_state& vs) {
    if (vs.unjoined == 0 || vs.kind != stream_kind::blocking) return;
    vstream_state& o = vstreams[orphans_key];
    o.kind = stream_kind::blocking;
    // A pool stream's sequence numbers only grow: the later kernel of the two covers both.
    for (std::uint64_t bits = vs.unjoined; bits != 0; bits &= bits - 1) {
      const auto p = static_cast<unsigned>(__builtin_ctzll(bits));
      o.unjoined_seq[p] = std::max(o.unjoined_seq[p], vs.unjoined_seq[p]);
    }
    o.unjoined |= vs.unjoined;
    o.unjoined_stamp = std::max(o.unjoined_stamp, vs.unjoined_stamp);
  }

  // After it: the next redirected kernel forks after it. Marked only now, so
  // that another thread's launch in between cannot take a fork recorded before
  // the work (refresh_fork joins whatever that launch added).
  void after_direct_work(const virtual_stream& s) {
    vstream_state& vs = vstream(s);
    bump_epoch(s.kind);
    vs.fork_dirty = true;
    drop_stream_entries(s.key, vs);
  }

  backend_status launch(const virtual_stream& s, const access_set& access, const void* kernel,
                        std::uint64_t group) {
    if (queue != nullptr && queue->broken()) fail();
    if (!start() || broken) return gpu.launch(kernel, s.handle);  // run in place, in order
    vstream_state& vs = vstream(s);
    const bool coupled = apply_legacy_coupling(s, vs);
    if (vs.fork_dirty && refresh_fork(s, vs, coupled) != 0) return launch_in_place(s, kernel);

    // The kernel's event first: if acs cannot get one, the kernel still runs, in place.
    event_handle done = 0;
    if (events.acquire(&done) != 0) return launch_in_place(s, kernel);
    collect_dependencies(s, vs, access, group);
    if (config.merge == chain_merge::adaptive) note_merged_dependencies(access);
    if (observer != nullptr) {
      waited_ids.clear();
      for (slot_id d : dep_slots) waited_ids.push_back(win[d].launch_id);
    }
    const unsigned p = choose_stream();
    slot_id shadowed = no_slot;
    const access_set* entry_access = &access;
    if (merge_score > 0) --merge_score;
    if (settle_tail(p, s, access, group, shadowed, entry_access) != 0 || wait_dependencies(p, vs) != 0) {
      events.release(done);
      fail();
      return launch_in_place(s, kernel);
    }

    const std::uint64_t launch_id = ++next_launch_id;
    if (observer != nullptr) observer->before_launch(launch_id);
    const backend_status status = gpu.launch(kernel, pool[p].handle);
    if (observer != nullptr) observer->after_launch(launch_id, status);
    if (status != 0) {
      events.release(done);
      ++stats.launch_errors;
      return status;
    }
    if (shadowed != no_slot) {
      drop_entry(shadowed);
      win.remove(shadowed);
      ++stats.shadowed;
      if (entry_access != &access) ++stats.merged;
    }
    pool.mark_chosen(p);
    pool_stream& ps = pool[p];
    const std::uint64_t seq = ++ps.issued;
    vs.fork_waiters |= std::uint64_t{1} << p;
    ++stats.kernels;
    if (deps.empty()) ++stats.independent;
    const std::uint64_t stamp = issue_stamps.fetch_add(1, std::memory_order_seq_cst) + 1;
    vs.unjoined |= std::uint64_t{1} << p;
    vs.unjoined_seq[p] = seq;
    vs.unjoined_stamp = stamp;

    if (win.full()) make_room();
    unrecorded_tail[p] = win.insert(s.key, group, *entry_access, p, seq, done, launch_id, stamp);
    if (entry_access != &access) {
      window_entry& e = win[unrecorded_tail[p]];
      e.merged = true;
      e.own.reads.assign(access.reads.begin(), access.reads.end());
      e.own.writes.assign(access.writes.begin(), access.writes.end());
    }
    ps.in_window++;
    if (config.eager_join) join_own(vs);  // records the kernel's event; the stream waits on it now
    bump_epoch(s.kind);
    stats.occupancy_sum += win.size();
    if (observer != nullptr)
      observer->dispatched({launch_id, s.key, p, ps.handle, waited_ids.data(), waited_ids.size(), win.size()});
    return status;
  }

  // The kernel runs on the application's stream, which keeps its order: after
  // the stream's pool work, and later kernels fork after it.
  backend_status launch_in_place(const virtual_stream& s, const void* kernel) {
    before_direct_work(s);
    const backend_status st = gpu.launch(kernel, s.handle);
    after_direct_work(s);
    if (st != 0) ++stats.launch_errors;
    return st;
  }
};

scheduler::scheduler(backend& gpu, scheduler_config config)
    : queue_(config.issue_threads != 0 ? std::make_unique<issue_queue>(gpu, config.issue_threads) : nullptr),
      state_(std::make_unique<state>(queue_ ? *queue_ : gpu, queue_.get(), config)) {}

void scheduler::drain() noexcept {
  if (queue_) queue_->drain();
}

scheduler::~scheduler() {
  // Events held by the window and summaries go back to the pool, which destroys them.
  state& st = *state_;
  st.win.remove_if([&](slot_id s) {
    st.events.release(st.win[s].event);
    return true;
  });
  for (auto& [key, vs] : st.vstreams) {
    vs.older.clear(st.released);
    vs.newer.clear(st.released);
    if (vs.fork_event != 0) st.released.push_back(vs.fork_event);
  }
  st.release_all(st.released);
}

backend_status scheduler::launch(const virtual_stream& stream, const access_set& access,
                                 const void* kernel, std::uint64_t group) {
  std::lock_guard lock(mutex_);
  return state_->launch(stream, access, kernel, group);
}

void scheduler::before_barrier(const virtual_stream& stream) {
  std::lock_guard lock(mutex_);
  state_->before_direct_work(stream);
}

void scheduler::barrier(const virtual_stream& stream) {
  std::lock_guard lock(mutex_);
  ++state_->stats.barriers;
  state_->after_direct_work(stream);
}

std::uint64_t scheduler::join(const virtual_stream& stream) {
  std::lock_guard lock(mutex_);
  state_->join_own(state_->vstream(stream));
  return sync_point();
}

std::uint64_t scheduler::sync_point() noexcept { return issue_stamps.load(std::memory_order_seq_cst); }

void scheduler::synchronized(std::uintptr_t stream_key, std::uint64_t point) {
  std::lock_guard lock(mutex_);
  state& st = *state_;
  const auto it = st.vstreams.find(stream_key);
  if (it != st.vstreams.end()) st.drop_stream_entries(stream_key, it->second, point);
}

void scheduler::device_synchronized(std::uint64_t point) {
  std::lock_guard lock(mutex_);
  state& st = *state_;
  for (auto& [key, vs] : st.vstreams) {
    st.drop_stream_entries(key, vs, point);
    if (vs.unjoined_stamp <= point) vs.unjoined = 0;  // complete: nothing left to wait for
  }
}

void scheduler::forget(std::uintptr_t stream_key) {
  std::lock_guard lock(mutex_);
  state& st = *state_;
  auto it = st.vstreams.find(stream_key);
  if (it == st.vstreams.end()) return;
  st.orphan_unjoined(it->second);
  it = st.vstreams.find(stream_key);  // the orphans' entry may have been added: a rehash
  st.drop_stream_entries(stream_key, it->second);
  if (it->second.fork_event != 0) st.events.release(it->second.fork_event);
  if (st.last_state == &it->second) st.last_state = nullptr;
  st.vstreams.erase(it);
}

void scheduler::set_observer(dispatch_observer* observer) {
  std::lock_guard lock(mutex_);
  state_->observer = observer;
}

scheduler_stats scheduler::stats() const {
  std::lock_guard lock(mutex_);
  scheduler_stats s = state_->stats;
  if (queue_) {
    const issue_queue_stats q = queue_->stats();
    s.deferred = q.deferred;
    s.issue_waits = q.waits;
    s.deferred_failures = q.failures;
  }
  return s;
}

unsigned scheduler::in_flight() const {
  std::lock_guard lock(mutex_);
  return state_->win.size();
}

}  // namespace acs
