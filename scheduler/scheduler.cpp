#include "scheduler.hpp"

#include <algorithm>
#include <atomic>
#include <unordered_map>
#include <vector>

#include "event_pool.hpp"
#include "range_summary.hpp"
#include "stream_pool.hpp"
#include "window.hpp"

namespace acs {

namespace {

// Counts eager joins across the process: a sync point is a value of it.
std::atomic<std::uint64_t> joins{0};

// What the scheduler remembers of one application stream.
struct vstream_state {
  // Work was issued on the stream itself since its fork event was recorded:
  // the next redirected kernel must record a new one. True at first sight,
  // since the stream may already hold work issued before acs saw it.
  bool fork_dirty = true;
  event_handle fork_event = 0;            // 0: none recorded yet
  std::uint64_t fork_waiters = 0;         // pool streams already after the fork (bit i)
  std::uint64_t seen_legacy_epoch = 0;    // legacy coupling, see scheduler.hpp
  std::uint64_t seen_blocking_epoch = 0;
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
};

}  // namespace

struct scheduler::state {
  backend& gpu;
  scheduler_config config;
  bool started = false;
  backend_status start_status = 0;
  bool broken = false;  // a bookkeeping call failed: launches run in place from then on
  stream_pool pool;
  event_pool events;
  window win;
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

  state(backend& g, scheduler_config c)
      : gpu(g), config(c), pool(g), events(g), win(std::clamp(c.window, 1u, scheduler_config::max_window)) {
    config.streams = std::clamp(c.streams, 1u, scheduler_config::max_streams);
  }

  bool start() {
    if (!started) {
      started = true;
      start_status = pool.create(config.streams);
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
    return *last_state;
  }

  void release_all(std::vector<event_handle>& evs) {
    for (event_handle e : evs)
      if (e != 0) events.release(e);
    evs.clear();
  }

  void drop_entry(slot_id s) {
    window_entry& e = win[s];
    pool[e.stream].in_window--;
    events.release(e.event);
  }

  // Everything of `key` in the window and its summary launched up to `point`
  // is covered by a later fork or a host sync: forget it.
  void drop_stream_entries(std::uintptr_t key, vstream_state& vs,
                           std::uint64_t point = ~std::uint64_t{0}) {
    win.remove_if([&](slot_id s) {
      if (win[s].vstream != key || win[s].joined > point) return false;
      drop_entry(s);
      return true;
    });
    if (vs.older.last_joined() <= point) vs.older.clear(released);
    if (vs.newer.last_joined() <= point) {
      vs.newer.clear(released);
      vs.folds_into_newer = 0;
    }
    release_all(released);
  }

  void bump_epoch(stream_kind kind) {
    if (kind == stream_kind::legacy) ++legacy_epoch;
    if (kind == stream_kind::blocking) ++blocking_epoch;
  }

  // Legacy-stream rule (DESIGN.md §1 rule 4): pool streams are non-blocking,
  // so a switch between the legacy stream and blocking streams is a barrier.
  void apply_legacy_coupling(const virtual_stream& s, vstream_state& vs) {
    if (s.kind == stream_kind::legacy && vs.seen_blocking_epoch != blocking_epoch) vs.fork_dirty = true;
    if (s.kind == stream_kind::blocking && vs.seen_legacy_epoch != legacy_epoch) vs.fork_dirty = true;
  }

  // Records the fork event on the application stream: it follows everything
  // issued there, including (by the eager join) every earlier redirected kernel.
  backend_status refresh_fork(const virtual_stream& s, vstream_state& vs) {
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
    for (slot_id d : dep_slots) add_dependency({win[d].stream, win[d].seq, win[d].event});
    for (const range_summary* folded : {&vs.older, &vs.newer})
      if (folded->depends(access, group))
        for (const folded_event& f : folded->events()) add_dependency({f.stream, f.seq, f.event});
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

  backend_status wait_dependencies(unsigned p, const vstream_state& vs) {
    for (const dependency& d : deps) {
      if (!pool.note_wait(p, d.stream, d.seq)) continue;
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
  // Folding a quarter of the window at a time keeps queries to one per
  // quarter-window of launches while the GPU is behind.
  void make_room() {
    const window_entry& oldest = win[win.oldest()];
    pool_stream& ps = pool[oldest.stream];
    if (ps.known_complete < oldest.seq && gpu.query_event(oldest.event) != event_state::pending)
      ps.known_complete = oldest.seq;  // an error also means nothing more will run
    if (ps.known_complete >= oldest.seq) {
      retire_stream(oldest.stream);
      return;
    }
    const unsigned batch = std::max(1u, win.capacity() / 4);
    for (unsigned i = 0; i < batch && !win.empty(); ++i) fold_oldest();
  }

  // The oldest entry of pool stream `p` is complete. Its newest one may be too
  // (the GPU keeps up): one more query then retires the whole stream's entries
  // at once, instead of one query per launch.
  void retire_stream(unsigned p) {
    pool_stream& ps = pool[p];
    const window_entry* newest = nullptr;
    win.for_each([&](slot_id s) {
      const window_entry& e = win[s];
      if (e.stream == p && (newest == nullptr || e.seq > newest->seq)) newest = &e;
    });
    if (newest != nullptr && newest->seq > ps.known_complete &&
        gpu.query_event(newest->event) != event_state::pending)
      ps.known_complete = newest->seq;
    const std::uint64_t done = ps.known_complete;
    win.remove_if([&](slot_id s) {
      if (win[s].stream != p || win[s].seq > done) return false;
      drop_entry(s);
      return true;
    });
  }

  void fold_oldest() {
    const slot_id s = win.oldest();
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

  backend_status launch(const virtual_stream& s, const access_set& access, const void* kernel,
                        std::uint64_t group) {
    if (!start() || broken) return gpu.launch(kernel, s.handle);  // run in place, in order
    vstream_state& vs = vstream(s);
    apply_legacy_coupling(s, vs);
    if (vs.fork_dirty && refresh_fork(s, vs) != 0) return launch_in_place(s, vs, kernel);

    // The join event first: if acs cannot get one, the kernel still runs, in place.
    event_handle done = 0;
    if (events.acquire(&done) != 0) return launch_in_place(s, vs, kernel);
    collect_dependencies(s, vs, access, group);
    const unsigned p = choose_stream();
    if (wait_dependencies(p, vs) != 0) {
      events.release(done);
      return launch_in_place(s, vs, kernel);
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
    pool.mark_chosen(p);
    pool_stream& ps = pool[p];
    const std::uint64_t seq = ++ps.issued;
    vs.fork_waiters |= std::uint64_t{1} << p;
    ++stats.kernels;
    if (deps.empty()) ++stats.independent;

    // Eager join: the application stream waits for the kernel at once.
    if (gpu.record_event(done, ps.handle) != 0 || gpu.wait_event(s.handle, done) != 0) {
      // The stream may not contain the kernel, and nothing else can order later
      // work after it: wait for it on the host. acs's own calls are failing, so
      // from now on every kernel runs in place, in order.
      (void)gpu.synchronize(ps.handle);
      events.release(done);
      broken = true;
      ++stats.join_failures;
      return status;
    }
    // After the join: a sync that takes its point from here on covers the kernel.
    const std::uint64_t joined = joins.fetch_add(1, std::memory_order_seq_cst) + 1;
    if (observer != nullptr) {
      waited_ids.clear();
      for (slot_id d : dep_slots) waited_ids.push_back(win[d].launch_id);
    }
    if (win.full()) make_room();
    win.insert(s.key, group, access, p, seq, done, launch_id, joined);
    ps.in_window++;
    bump_epoch(s.kind);
    stats.occupancy_sum += win.size();
    if (observer != nullptr)
      observer->dispatched({launch_id, s.key, p, ps.handle, waited_ids.data(), waited_ids.size(), win.size()});
    return status;
  }

  // Fallback when acs's own bookkeeping failed: the kernel runs on the
  // application's stream, which keeps its order; later kernels fork after it.
  backend_status launch_in_place(const virtual_stream& s, vstream_state& vs, const void* kernel) {
    vs.fork_dirty = true;
    bump_epoch(s.kind);
    const backend_status st = gpu.launch(kernel, s.handle);
    if (st != 0) ++stats.launch_errors;
    return st;
  }
};

scheduler::scheduler(backend& gpu, scheduler_config config)
    : state_(std::make_unique<state>(gpu, config)) {}

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

void scheduler::barrier(const virtual_stream& stream) {
  std::lock_guard lock(mutex_);
  state& st = *state_;
  ++st.stats.barriers;
  st.bump_epoch(stream.kind);
  const auto it = st.vstreams.find(stream.key);
  if (it == st.vstreams.end()) return;  // first sight marks it dirty anyway
  it->second.fork_dirty = true;
  st.drop_stream_entries(stream.key, it->second);
}

std::uint64_t scheduler::sync_point() noexcept { return joins.load(std::memory_order_seq_cst); }

void scheduler::synchronized(std::uintptr_t stream_key, std::uint64_t point) {
  std::lock_guard lock(mutex_);
  state& st = *state_;
  const auto it = st.vstreams.find(stream_key);
  if (it != st.vstreams.end()) st.drop_stream_entries(stream_key, it->second, point);
}

void scheduler::device_synchronized(std::uint64_t point) {
  std::lock_guard lock(mutex_);
  state& st = *state_;
  for (auto& [key, vs] : st.vstreams) st.drop_stream_entries(key, vs, point);
}

void scheduler::forget(std::uintptr_t stream_key) {
  std::lock_guard lock(mutex_);
  state& st = *state_;
  const auto it = st.vstreams.find(stream_key);
  if (it == st.vstreams.end()) return;
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
  return state_->stats;
}

unsigned scheduler::in_flight() const {
  std::lock_guard lock(mutex_);
  return state_->win.size();
}

}  // namespace acs
