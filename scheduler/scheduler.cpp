// Dispatching a launch (scheduler_state.hpp lists where the rest of the state's work lives):
// its dependencies in the window and the summaries, the pool stream it goes to, the waits it
// needs there, the launch and its window entry. And the scheduler's public calls.
#include "scheduler/scheduler.hpp"

#include <algorithm>
#include <atomic>

#include "scheduler/backend_check.hpp"
#include "scheduler/scheduler_state.hpp"
#include "scheduler/segment_replay.hpp"
#include "scheduler/thread_name.hpp"

namespace acs {

namespace {

// Counts dispatched kernels across the process: a sync point is a value of it.
std::atomic<std::uint64_t> issue_stamps{0};

}  // namespace

scheduler::state::state(backend& g, graph_replay* r, issue_queue* q, scheduler_config c)
    : gpu(g),
      replay(r),
      queue(q),
      config(c),
      pool(g),
      events(g),
      win(std::clamp(c.window, 1u, scheduler_config::max_window)),
      merger(c.merge) {
  config.streams = std::clamp(c.streams, 1u, scheduler_config::max_streams);
}

ACS_STEP void scheduler::state::collect_dependencies(const virtual_stream& s, vstream_state& vs, const access_set& access,
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
ACS_STEP void scheduler::state::add_dependency(const dependency& d) {
  for (dependency& known : deps) {
    if (known.stream != d.stream) continue;
    if (d.seq > known.seq) known = d;
    return;
  }
  deps.push_back(d);
}

// A kernel goes behind its producer when that producer is its stream's tail:
// stream order then replaces an event. Otherwise the least loaded stream that
// no other application stream holds (rule 12), else one reclaimed; stream_pool::none
// when there is none.
ACS_STEP unsigned scheduler::state::choose_stream(const virtual_stream& s, const vstream_state& vs) {
  const dependency* tail = nullptr;
  for (const dependency& d : deps) {
    const pool_stream& ps = pool[d.stream];
    // The producer is last there. Still s's: another stream's launch that failed there may
    // have left waits behind it (pool_stream::held). Of its priority, unless the key was reused.
    if (d.seq == ps.issued && ps.owner == s.key && ps.set == vs.pool_set && (tail == nullptr || d.seq > tail->seq))
      tail = &d;
  }
  if (tail != nullptr) {
    ++stats.same_stream;
    return tail->stream;
  }
  const unsigned p = pool.pick_least_loaded(s.key, vs.pool_set);
  return p != stream_pool::none ? p : reclaim(vs);
}

// Before anything more is issued on pool stream `p`: its unrecorded tail is
// shadowed or merged by the new kernel (chain_merging.hpp), or gets its event
// now. Should the new kernel's launch fail, a shadowed tail stays the
// unrecorded tail; waits issued meanwhile on `p` can then only make its event
// later than needed, never earlier.
ACS_STEP backend_status scheduler::state::settle_tail(unsigned p, const virtual_stream& s, const access_set& access,
                                             std::uint64_t group, slot_id& shadowed,
                                             const access_set*& entry_access) {
  shadowed = no_slot;
  entry_access = &access;
  const slot_id t = unrecorded_tail[p];
  if (t == no_slot) return 0;
  switch (merger.settle(win[t], t, s.key, access, group, dep_slots)) {
    case tail_fate::shadowed: shadowed = t; return 0;
    case tail_fate::merged:
      shadowed = t;
      entry_access = &merger.merged_access();
      return 0;
    case tail_fate::record: break;
  }
  return record_entry(t);
}

ACS_STEP backend_status scheduler::state::wait_dependencies(unsigned p, const vstream_state& vs) {
  for (const dependency& d : deps) {
    merger.note_wait_for(d.stream, d.seq, pool[d.stream].issued, p);
    if (!pool.note_wait(p, d.stream, d.seq)) continue;
    if (d.slot != no_slot) ACS_BACKEND_CHECK(record_entry(d.slot));
    ACS_BACKEND_CHECK(gpu.wait_event(pool[p].handle, d.event));
    ++stats.dependency_waits;
  }
  // A kernel with a dependency follows the fork through it (everything in the
  // window and summary was issued after the fork). Otherwise wait on the fork.
  const std::uint64_t bit = std::uint64_t{1} << p;
  if (deps.empty() && vs.fork_event != 0 && (vs.fork_waiters & bit) == 0) {
    ACS_BACKEND_CHECK(gpu.wait_event(pool[p].handle, vs.fork_event));
    ++stats.fork_waits;
  }
  return 0;
}

// The pool streams of the stream's priority, made at that priority's first launch: as many
// as the settings ask for, within max_streams in all. None (a failure, or no room left): the
// stream's kernels run in place, in order and at their priority.
void scheduler::state::bind_pool(vstream_state& vs) {
  vs.pool_bound = true;
  unsigned k = pool.set_of(vs.priority);
  if (k == stream_pool::none) {  // the first launch at this priority
    const unsigned room = scheduler_config::max_streams - pool.size();
    (void)pool.create(std::min(config.streams, room), vs.priority);
    unrecorded_tail.resize(pool.size(), no_slot);
    k = pool.set_of(vs.priority);
  }
  vs.pool_set = pool.set(k).begin != pool.set(k).end ? k : stream_pool::none;
}

// Every pool stream of s's priority is held by another application stream, whose work there
// may not have finished (rule 12). The one whose last work is oldest is asked, through an
// event recorded there now, behind everything issued there (waits included): if that work
// finished, the stream is free. Only when starved: one record and one query.
unsigned scheduler::state::reclaim(const vstream_state& vs) {
  unsigned oldest = stream_pool::none;
  const priority_set& k = pool.set(vs.pool_set);
  for (unsigned p = k.begin; p < k.end; ++p)
    if (oldest == stream_pool::none || pool[p].last_stamp < pool[oldest].last_stamp) oldest = p;
  event_handle e = 0;
  if (oldest == stream_pool::none || events.acquire(&e) != 0) return stream_pool::none;
  const bool finished = gpu.record_event(e, pool[oldest].handle) == 0 && gpu.query_event(e) != event_state::pending;
  events.release(e);
  if (!finished) return stream_pool::none;
  pool.note_drained(oldest);
  return oldest;
}

backend_status scheduler::state::launch(const virtual_stream& s, const access_set& access, const void* kernel,
                                        std::uint64_t group) {
  if ((queue != nullptr && queue->broken()) || (replay != nullptr && replay->broken())) fail();
  if (broken) return launch_in_place(s, kernel);  // in order, after the stream's pool work
  if (replay != nullptr) replay->note_owner(s.key);  // before any call for this launch
  vstream_state& vs = vstream(s);
  if (!vs.pool_bound) bind_pool(vs);
  if (vs.pool_set == stream_pool::none) return launch_in_place(s, kernel);
  const bool coupled = apply_legacy_coupling(s, vs);
  if (vs.fork_dirty && refresh_fork(s, vs, coupled) != 0) return launch_in_place(s, kernel);

  // The kernel's event first: if acs cannot get one, the kernel still runs, in place.
  event_handle done = 0;
  if (events.acquire(&done) != 0) return launch_in_place(s, kernel);
  collect_dependencies(s, vs, access, group);
  merger.note_merged_dependencies(win, dep_slots, access);
  if (observer != nullptr) {
    waited_ids.clear();
    for (slot_id d : dep_slots) waited_ids.push_back(win[d].launch_id);
  }
  const unsigned p = choose_stream(s, vs);
  if (p == stream_pool::none) {  // every pool stream is held by other streams' work (rule 12)
    events.release(done);
    ++stats.starved;
    return launch_in_place(s, kernel);
  }
  slot_id shadowed = no_slot;
  const access_set* entry_access = &access;
  merger.next_launch();
  if (settle_tail(p, s, access, group, shadowed, entry_access) != 0 || wait_dependencies(p, vs) != 0) {
    events.release(done);
    fail();
    return launch_in_place(s, kernel);
  }

  const std::uint64_t launch_id = ++next_launch_id;
  if (observer != nullptr) observer->before_launch(launch_id);
  const backend_status status = issue(kernel, pool[p].handle);
  if (observer != nullptr) observer->after_launch(launch_id, status);
  if (status != 0) {
    launch_failed(s, p, done);
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
  pool.claim(p, s.key);
  vs.fork_waiters |= std::uint64_t{1} << p;
  ++stats.kernels;
  if (deps.empty()) ++stats.independent;
  const std::uint64_t stamp = issue_stamps.fetch_add(1, std::memory_order_seq_cst) + 1;
  vs.unjoined |= std::uint64_t{1} << p;
  vs.unjoined_seq[p] = seq;
  vs.unjoined_stamp = stamp;
  ps.last_stamp = stamp;

  if (win.full()) make_room();
  unrecorded_tail[p] = win.insert(s.key, group, *entry_access, p, seq, done, launch_id, stamp);
  if (entry_access != &access) {
    window_entry& e = win[unrecorded_tail[p]];
    e.merged = true;
    e.own.reads.assign(access.reads.begin(), access.reads.end());
    e.own.writes.assign(access.writes.begin(), access.writes.end());
  }
  ps.in_window++;
  // Eager join: the kernel's event recorded, the stream waits on it now. Should that fail, the
  // join is left to the stream's next work in place: the host must not wait for this kernel now,
  // which may spin until a kernel the program has yet to launch has run.
  if (config.eager_join && vs.unjoined != 0) {
    if (join_into(vs.handle, vs) == 0) {
      vs.unjoined = 0;
    } else {
      fail();
    }
  }
  bump_epoch(s.kind);
  stats.occupancy_sum += win.size();
  if (observer != nullptr)
    observer->dispatched({launch_id, s.key, p, ps.handle, waited_ids.data(), waited_ids.size(), win.size()});
  return status;
}

// The launch on pool stream `p` failed (its status is the application's). The waits issued
// for it stay queued there, behind no kernel: p stays s's until a host sync or an event
// recorded behind them shows them done (pool_stream::held).
void scheduler::state::launch_failed(const virtual_stream& s, unsigned p, event_handle done) {
  events.release(done);
  ++stats.launch_errors;
  pool.claim(p, s.key);
  pool[p].held = true;
  pool[p].last_stamp = std::max(pool[p].last_stamp, sync_point());
}

// The kernel runs on the application's stream, which keeps its order: after
// the stream's pool work, and later kernels fork after it.
backend_status scheduler::state::launch_in_place(const virtual_stream& s, const void* kernel) {
  before_direct_work(s);
  const backend_status st = issue(kernel, s.handle);
  after_direct_work(s);
  if (st != 0) ++stats.launch_errors;
  return st;
}

// ---- the public calls: each takes the lock ----------------------------------

namespace {

segment_replay_config segments_config(const scheduler_config& c) {
  segment_replay_config r;
  r.after = std::clamp(c.graph_after, 1u, scheduler_config::max_graph_after);
  r.cache = std::clamp(c.graph_cache, 1u, scheduler_config::max_graph_cache);
  r.kernels = std::clamp(c.graph_kernels == 0 ? scheduler_config::default_segment_kernels : c.graph_kernels, 2u,
                         scheduler_config::max_graph_kernels);
  r.width = std::clamp(c.graph_width, 1u, scheduler_config::max_graph_width);
  r.sample_after = std::min(c.graph_sample_after, scheduler_config::max_graph_sample_after);
  return r;
}

graph_replay_config replay_config(const scheduler_config& c) {
  graph_replay_config r;
  r.after = std::clamp(c.graph_after, 1u, scheduler_config::max_graph_after);
  r.cache = std::clamp(c.graph_cache, 1u, scheduler_config::max_graph_cache);
  r.idle = std::chrono::microseconds(std::min(c.graph_idle_us, scheduler_config::max_graph_idle_us));
  r.max_kernels = std::min(c.graph_kernels, scheduler_config::max_graph_kernels);
  return r;
}

}  // namespace

// What segment_replay hands back: the stream path (the state's dispatch, for a detached copy
// too) and a graph, launched as work issued directly on the stream.
struct scheduler::segment_sink final : segment_replay::sink {
  explicit segment_sink(state& s) : st(s) {}
  backend_status dispatch(const virtual_stream& s, const access_set& access, const void* kernel, std::uint64_t group,
                          bool detached) override {
    st.issuing_detached = detached;
    const backend_status status = st.launch(s, access, kernel, group);
    st.issuing_detached = false;
    return status;
  }
  backend_status run_in_place(const virtual_stream& s, const void* kernel, bool detached) override {
    st.issuing_detached = detached;
    const backend_status status = st.launch_in_place(s, kernel);
    st.issuing_detached = false;
    return status;
  }
  backend_status launch_graph(const virtual_stream& s, graph_handle exec, const graph_description& graph,
                              bool may_relay) override {
    // A relayed update that failed may have left an executable short of arguments that graph_changes
    // took as set: once the queue broke, no graph is launched (issue_queue::replay_graph).
    if (st.queue != nullptr && st.queue->broken()) st.fail();
    if (st.broken) return 1;
    st.before_direct_work(s);
    if (st.broken) return 1;
    const backend_status status = update_and_launch(s, exec, graph, may_relay);
    if (status == 0) st.after_direct_work(s);
    return status;
  }
  // By issuing thread 0 where graphs are relayed and the program goes on launching; else here
  // (the queue's graph calls drain it). The changed nodes are found here, on the application's
  // thread, which has just written the kernels' copies: thread 0 then reads only those it sets
  // (a replay with the same arguments left the copies' cache lines to the thread reusing them).
  backend_status update_and_launch(const virtual_stream& s, graph_handle exec, const graph_description& graph,
                                   bool may_relay) {
    try {
      if (changed.size() < graph.node_count) changed.resize(graph.node_count);
    } catch (...) {  // no room for the list: compared by the update, made here
      return update_and_launch_graph(st.gpu, exec, graph, s.handle);
    }
    graph_description listed = graph;
    listed.listed = true;
    listed.changed = changed.data();
    listed.changed_count = st.gpu.graph_changes(exec, graph, changed.data());
    if (may_relay && st.queue != nullptr && st.config.graph_relay) {
      try {
        return st.queue->relay_graph(exec, listed, s.handle);
      } catch (...) {  // no room for its kernels' list: made here
      }
    }
    return update_and_launch_graph(st.gpu, exec, listed, s.handle);
  }
  state& st;
  std::vector<std::uint32_t> changed;  // update_and_launch's list, reused
};

scheduler::scheduler(backend& gpu, scheduler_config config)
    : queue_(config.issue_threads != 0 ? std::make_unique<issue_queue>(gpu, config.issue_threads) : nullptr),
      replay_(config.graphs && !config.graph_segments
                  ? std::make_unique<graph_replay>(queue_ ? static_cast<backend&>(*queue_) : gpu, replay_config(config))
                  : nullptr),
      state_(std::make_unique<state>(replay_ ? static_cast<backend&>(*replay_)
                                             : queue_ ? static_cast<backend&>(*queue_) : gpu,
                                     replay_.get(), queue_.get(), config)) {
  if (!config.graph_segments) return;
  sink_ = std::make_unique<segment_sink>(*state_);
  segments_ = std::make_unique<segment_replay>(state_->gpu, *sink_, segments_config(config));
  if (config.graph_idle_us != 0)
    idle_thread_ = std::thread([this] {
      name_this_thread("acs-idle-flush");
      idle_loop();
    });
}

// The idle flush (segment_replay.hpp): a held segment is issued once a whole interval passed
// without a launch, so a program spinning on mapped memory for a held kernel never hangs.
//
// The launch path must not pay for it: waking a sleeping thread at every segment (a futex call,
// and the woken thread then contending for mutex_) cost about 250 ns per launch of a replayed
// chain on the fake driver. So the thread reads the launch count and the holding flag without
// mutex_, which it takes only to flush; while launches come it keeps waking at every interval,
// and only after `quiet_intervals` of them with nothing held does it sleep until a launch that
// starts holding wakes it (the only notify, rare: Dekker's handshake on idle_asleep_ and
// holding_, both sequentially consistent).
namespace {
constexpr unsigned quiet_intervals = 200;
}

void scheduler::idle_loop() {
  state_->gpu.issuing_thread_started();
  const auto interval = std::chrono::microseconds(std::min(state_->config.graph_idle_us, scheduler_config::max_graph_idle_us));
  std::unique_lock idle(idle_mutex_);
  unsigned quiet = 0;
  while (!stopping_.load()) {
    if (quiet >= quiet_intervals) {
      idle_asleep_.store(true);
      idle_wakeup_.wait(idle, [&] { return stopping_.load() || holding_.load(); });
      idle_asleep_.store(false);
      quiet = 0;
      continue;
    }
    const std::uint64_t seen = launches_.load(std::memory_order_relaxed);
    idle_wakeup_.wait_for(idle, interval);
    if (stopping_.load()) break;
    if (launches_.load(std::memory_order_relaxed) != seen) {
      quiet = 0;
      continue;
    }
    if (!holding_.load()) {
      ++quiet;
      continue;
    }
    idle.unlock();
    {
      std::lock_guard lock(mutex_);
      if (segments_->launches() == seen && segments_->holding()) {
        flush_segments(false);
        ++state_->stats.graph_flush_idle;
      }
    }
    idle.lock();
  }
}

// After every call that may hold or issue a segment, under mutex_: what the idle thread reads.
// A launch that starts holding wakes it if it sleeps.
void scheduler::segments_moved() noexcept {
  launches_.store(segments_->launches(), std::memory_order_relaxed);
  const bool holding = segments_->holding();
  if (holding_.load(std::memory_order_relaxed) == holding) return;
  holding_.store(holding);
  if (holding && idle_asleep_.load() && idle_thread_.joinable()) {
    std::lock_guard idle(idle_mutex_);
    idle_wakeup_.notify_one();
  }
}

// Outside a launch the calling thread may be capturing, or another thread may be (capture.hpp):
// then the held kernels run in place, with no query.
void scheduler::flush_segments(bool observation) noexcept {
  if (!segments_->holding()) {
    if (observation) segments_->flush();  // no call is made: only the count restarts
    return;
  }
  const bool allowed = guard_ == nullptr || guard_->enter();
  try {
    segments_->flush(!allowed);
  } catch (...) {
    state_->fail();
  }
  if (guard_ != nullptr) guard_->leave();
  segments_moved();
}

void scheduler::drain() noexcept {
  if (segments_) {
    std::lock_guard lock(mutex_);
    flush_segments(false);
  }
  if (replay_) replay_->flush();
  if (queue_) queue_->drain();
}

void scheduler::code_unloading() noexcept {
  if (segments_) {
    std::lock_guard lock(mutex_);
    flush_segments(false);
    if (queue_) queue_->drain();  // a relayed graph's launch, queued, still names its executable
    segments_->forget_executables();
  }
  if (replay_)
    replay_->forget_executables([](void* q) noexcept { if (q != nullptr) static_cast<issue_queue*>(q)->drain(); },
                                queue_.get());
}

scheduler::~scheduler() {
  if (segments_) {
    {
      std::lock_guard lock(mutex_);
      flush_segments(false);
    }
    stopping_.store(true);
    {
      std::lock_guard idle(idle_mutex_);
      idle_wakeup_.notify_all();
    }
    if (idle_thread_.joinable()) idle_thread_.join();
    segments_.reset();
  }
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
  if (!segments_) return state_->launch(stream, access, kernel, group);
  if (state_->broken) {
    segments_->flush();  // within the launch's own unsafe section
    segments_moved();
    return state_->launch(stream, access, kernel, group);
  }
  const backend_status status = segments_->launch(stream, access, kernel, group);
  segments_moved();
  return status;
}

backend_status scheduler::launch_in_order(const virtual_stream& stream, const void* kernel) {
  std::lock_guard lock(mutex_);
  if (!segments_ || state_->broken) {
    if (segments_) {
      segments_->flush();  // within the launch's own unsafe section
      segments_moved();
    }
    return state_->launch_in_place(stream, kernel);
  }
  const backend_status status = segments_->launch_in_order(stream, kernel);
  segments_moved();
  return status;
}

backend_status scheduler::relay(const virtual_stream& stream, const void* kernel) {
  std::lock_guard lock(mutex_);
  // What is held goes first: a relayed launch is work issued directly on its stream.
  if (segments_) flush_segments(true);
  if (replay_) replay_->flush(flush_cause::barrier);
  state& st = *state_;
  const void* detached = queue_ && !st.broken && !stream.thread_relative ? queue_->detach(kernel) : nullptr;
  if (detached == nullptr) {
    ++st.stats.relay_in_place;
    return st.launch_in_place(stream, kernel);  // after the relayed launches (issue_queue::launch drains)
  }
  st.before_direct_work(stream);
  const backend_status status = queue_->relay(detached, stream.handle);
  st.after_direct_work(stream);
  if (status != 0) ++st.stats.launch_errors;
  return status;
}

void scheduler::before_barrier(const virtual_stream& stream) {
  std::lock_guard lock(mutex_);
  if (segments_) flush_segments(true);
  if (replay_) replay_->flush(flush_cause::barrier);
  state_->before_direct_work(stream);
  // The application's own call follows on its stream: after every relayed launch (any stream's:
  // the legacy stream's implicit synchronisation, events recorded on one stream and waited on
  // another).
  if (queue_) queue_->settle_relayed();
}

void scheduler::barrier(const virtual_stream& stream) {
  std::lock_guard lock(mutex_);
  ++state_->stats.barriers;
  state_->after_direct_work(stream);
}

std::uint64_t scheduler::join(const virtual_stream& stream) {
  std::lock_guard lock(mutex_);
  if (segments_) flush_segments(true);
  if (replay_) replay_->flush(flush_cause::barrier);
  state_->join_own(state_->vstream(stream));
  if (queue_) queue_->settle_relayed();  // what is synchronised, queried or captured contains them
  return sync_point();
}

std::uint64_t scheduler::sync_point() noexcept { return issue_stamps.load(std::memory_order_seq_cst); }

void scheduler::synchronized(std::uintptr_t stream_key, std::uint64_t point) {
  std::lock_guard lock(mutex_);
  state& st = *state_;
  const auto it = st.vstreams.find(stream_key);
  if (it != st.vstreams.end()) st.drop_stream_entries(stream_key, it->second, point);
  st.pools_synchronized(stream_key, point);
}

void scheduler::device_synchronized(std::uint64_t point) {
  std::lock_guard lock(mutex_);
  state& st = *state_;
  for (auto& [key, vs] : st.vstreams) {
    st.drop_stream_entries(key, vs, point);
    if (vs.unjoined_stamp <= point) vs.unjoined = 0;  // complete: nothing left to wait for
  }
  st.pools_synchronized(no_owner, point);
}

void scheduler::forget(std::uintptr_t stream_key) {
  std::lock_guard lock(mutex_);
  if (segments_) flush_segments(true);
  if (queue_) queue_->settle_relayed();  // the stream is destroyed next: its launches first
  state& st = *state_;
  auto it = st.vstreams.find(stream_key);
  if (it == st.vstreams.end()) return;
  st.orphan_unjoined(it->second);
  st.pool.disown(stream_key, state::orphans_key);  // its work there still runs: no other stream's may queue behind it
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
    s.relayed = q.relayed;
    s.relay_in_place += q.relayed_here;
    s.relay_waits = q.relay_waits;
    s.issue_waits = q.waits;
    s.deferred_failures = q.failures;
    s.graph_relayed = q.relayed_graphs;
  }
  if (segments_) {
    const segment_replay_stats g = segments_->stats();
    s.graphs_built = g.built;
    s.graph_replays = g.replays;
    s.graph_updates = g.updates;
    s.graph_evictions = g.evictions;
    s.graph_call_by_call = g.released;
    s.graph_failures = g.failures;
    s.graph_kernels = g.kernels;
    s.graph_skimmed = g.skimmed;
    s.kernels += g.kernels;
    s.independent += g.independent;
  }
  if (replay_) {
    const graph_replay_stats g = replay_->stats();
    s.graphs_built = g.built;
    s.graph_replays = g.replays;
    s.graph_updates = g.updates;
    s.graph_evictions = g.evictions;
    s.graph_call_by_call = g.call_by_call;
    s.graph_failures = g.failures;
    std::uint64_t* const by_cause[] = {&s.graph_flush_sync,  &s.graph_flush_create,   &s.graph_flush_other,
                                       &s.graph_flush_undetachable, &s.graph_flush_explicit, &s.graph_flush_limit,
                                       &s.graph_flush_idle, &s.graph_flush_barrier};
    for (unsigned i = 0; i < flush_cause_count; ++i) *by_cause[i] = g.flushes[i];
    std::uint64_t* const by_plain[] = {&s.graph_plain_small, &s.graph_plain_undescribed, &s.graph_plain_bare_stream,
                                       &s.graph_plain_new_shape, &s.graph_plain_failed};
    for (unsigned i = 0; i < plain_cause_count; ++i) *by_plain[i] = g.plain[i];
  }
  return s;
}

unsigned scheduler::in_flight() const {
  std::lock_guard lock(mutex_);
  return state_->win.size();
}

}  // namespace acs
