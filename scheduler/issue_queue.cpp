#include "scheduler/issue_queue.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iterator>
#include <thread>

#include "scheduler/thread_name.hpp"

namespace acs {

namespace {

// What a wait on an event whose record failed returns to the caller: acs's own failure, never the
// program's.
constexpr backend_status status_failed_record = 1;

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

// Spins a while (the awaited call usually comes within a few µs), then sleeps on the
// condition variable, and spins again after any wake-up. std::atomic::wait is not used: for
// 64-bit values libstdc++ waits through a proxy and woke up after ~1 ms on average here.
void issue_queue::parking::wait_until(const std::atomic<std::uint64_t>& value, std::uint64_t target) noexcept {
  for (;;) {
    const auto until = std::chrono::steady_clock::now() + spin_time_;
    for (unsigned n = 1; value.load(std::memory_order_seq_cst) < target; ++n) {
      cpu_relax();
      if ((n & 63u) != 0) continue;
      if (std::chrono::steady_clock::now() > until) break;
      // A thread woken on the waker's CPU must not hold that CPU while the waker is ready.
      std::this_thread::yield();
    }
    if (value.load(std::memory_order_seq_cst) >= target) return;
    std::unique_lock lock(mutex_);
    // seq_cst against wake(): either the waker sees this sleeper, or this load sees its value.
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    if (value.load(std::memory_order_seq_cst) < target) wakeup_.wait(lock);
    sleepers_.fetch_sub(1, std::memory_order_seq_cst);
  }
}

void issue_queue::parking::wake() noexcept {
  if (sleepers_.load(std::memory_order_seq_cst) == 0) return;
  std::lock_guard lock(mutex_);
  wakeup_.notify_all();
}

issue_queue::issue_queue(backend& inner, unsigned threads, unsigned capacity, bool issue_when_asleep)
    : inner_(inner), issue_when_asleep_(issue_when_asleep) {
  const unsigned n = std::clamp(threads, 1u, max_threads);
  for (unsigned i = 0; i < n; ++i) lanes_.push_back(std::make_unique<lane>(std::max(capacity, 2u)));
  for (unsigned i = 0; i < lanes_.size(); ++i)
    lanes_[i]->thread = std::thread([this, p = lanes_[i].get(), i] {
      char name[16];
      std::snprintf(name, sizeof name, "acs-issue%u", i);
      name_this_thread(name);
      run(*p);
    });
}

issue_queue::~issue_queue() {
  for (unsigned i = 0; i < lanes_.size(); ++i) enqueue(i, {op::stop});
  for (auto& l : lanes_) l->thread.join();
}

unsigned issue_queue::lane_of(stream_handle s) const noexcept {
  const auto it = std::find(pool_streams_.begin(), pool_streams_.end(), s);
  if (it == pool_streams_.end()) return no_lane;
  return static_cast<unsigned>(it - pool_streams_.begin()) % static_cast<unsigned>(lanes_.size());
}

std::uint64_t issue_queue::room(lane& l) {
  const std::uint64_t n = l.queued.load(std::memory_order_relaxed);
  if (n - l.issued_seen >= l.ring.size()) {
    l.issued_seen = l.issued.load(std::memory_order_acquire);
    if (n - l.issued_seen >= l.ring.size()) {
      waits_.fetch_add(1, std::memory_order_relaxed);
      wait_issued(l, n - l.ring.size() + 1);
      l.issued_seen = l.issued.load(std::memory_order_acquire);
    }
  }
  return n;
}

void issue_queue::enqueue(unsigned li, command c) {
  lane& l = *lanes_[li];
  const std::uint64_t n = room(l);
  if (c.event != 0) {
    const auto [it, first] = event_last_use_.try_emplace(c.event, last_use{li, n + 1});
    if (!first) {
      if (it->second.lane != li) {
        c.after_lane = it->second.lane;
        c.after_count = it->second.count;
      }
      it->second = {li, n + 1};
    }
  }
  l.ring[n % l.ring.size()] = c;
  l.queued.store(n + 1, std::memory_order_seq_cst);
  l.worker.wake();
}

void issue_queue::wait_issued(const lane& l, std::uint64_t count) noexcept {
  issued_parking_.wait_until(l.issued, count);
}

void issue_queue::drain() noexcept {
  if (relayed_pending_until() != 0) relay_waits_.fetch_add(1, std::memory_order_relaxed);
  for (const auto& l : lanes_) wait_issued(*l, l->queued.load(std::memory_order_acquire));
}

void issue_queue::wait_for_event(event_handle e) noexcept {
  const auto it = event_last_use_.find(e);
  if (it == event_last_use_.end()) return;
  const lane& l = *lanes_[it->second.lane];
  if (l.issued.load(std::memory_order_acquire) < it->second.count) {
    waits_.fetch_add(1, std::memory_order_relaxed);
    wait_issued(l, it->second.count);
  }
  event_last_use_.erase(it);
}

void issue_queue::run(lane& l) noexcept {
  inner_.issuing_thread_started();
  for (std::uint64_t next = 0;;) {
    l.worker.wait_until(l.queued, next + 1);
    const command c = l.ring[next % l.ring.size()];
    if (c.kind == op::stop) return;
    if (c.after_lane != no_lane) wait_issued(*lanes_[c.after_lane], c.after_count);
    settle_lags(c.stream);
    const backend_status status =
        c.kind == op::graph ? replay_graph(c, l.graph_slots[next % l.ring.size()]) : execute(c, true);
    if (status != 0) {
      failures_.fetch_add(1, std::memory_order_relaxed);
      broken_.store(true, std::memory_order_release);
      stand_in_for(c);
    }
    l.issued.store(++next, std::memory_order_seq_cst);
    issued_parking_.wake();
  }
}

// What the failed call was for, done on the host before anything after it on its stream is
// issued, and no sooner: the lane's other streams go on (one of them may hold the kernel that
// the awaited work spins for, docs/design.md rule 12).
void issue_queue::stand_in_for(const command& c) noexcept {
  switch (c.kind) {
    case op::wait:  // the stream's next work must follow the event: the host waits for it then
      add_lag({c.stream, c.event, 0});
      break;
    case op::record:  // stood in for when its event is waited for (execute)
      break;
    case op::launch:  // it did not run; its status was already given (scheduler.hpp)
    case op::graph:   // replay_graph launched its kernels one by one
    case op::stop: break;
  }
}

backend_status issue_queue::execute(const command& c, bool on_lane) noexcept {
  switch (c.kind) {
    case op::record: {
      // A failed wait's stand-in waits for this event's record of before (stand_in_for): recorded
      // again first, the event would name the new record, and the lagging stream's next work could
      // start before the old one ended (a race the random programs found: seed 9027124 with two
      // lanes). So the host waits for the old record here, holding up this call's lane too.
      settle_lags(0, c.event);
      const backend_status status = inner_.record_event(c.event, c.stream);
      note_record(c.event, c.stream, status);
      return status;
    }
    case op::wait:
      if (any_failed_record_.load(std::memory_order_acquire)) {
        // Its record failed: a lane has the host wait for the record's stream (its work up to
        // then, and maybe later work: later than needed, never earlier); the caller's wait fails.
        if (!on_lane) {
          if (failed_record(c.event)) return status_failed_record;
        } else if (const std::optional<stream_handle> s = failed_record_stream(c.event)) {
          add_lag({c.stream, 0, *s});
          return 0;
        }
      }
      return inner_.wait_event(c.stream, c.event);
    case op::launch:
      deferred_.fetch_add(1, std::memory_order_relaxed);
      return inner_.launch_detached(c.kernel, c.stream);
    case op::graph:
    case op::stop: break;
  }
  return 1;
}

// A relayed graph (relay_graph): updated and launched; if either fails, nothing of it was
// launched, and its kernels are launched one by one in their order, which the graph's edges only
// relaxed. Its status: the update's or the launch's. Once the queue is broken no graph is
// launched: a failed update may have left an executable's nodes short of the arguments that the
// application's thread, comparing ahead (graph_changes), took as set, so only the kernels
// themselves are sure to run with theirs.
backend_status issue_queue::replay_graph(const command& c, const graph_slot& slot) noexcept {
  const std::vector<const void*>& kernels = slot.kernels;
  graph_description graph{kernels.data(), kernels.size(), slot.edges, slot.edge_count};
  graph.listed = slot.listed;
  graph.changed = slot.changed.data();
  graph.changed_count = slot.changed.size();
  const bool broken_before = broken();  // then no failure of its own
  const backend_status status = broken_before ? 0 : update_and_launch_graph(inner_, c.graph, graph, c.stream);
  if (status == 0 && !broken_before) return 0;
  for (const void* k : kernels) {
    deferred_.fetch_add(1, std::memory_order_relaxed);
    (void)inner_.launch_detached(k, c.stream);
  }
  return status;
}

backend_status issue_queue::create_stream(stream_handle* out) { return create_stream_with_priority(out, 0); }

backend_status issue_queue::create_stream_with_priority(stream_handle* out, int priority) {
  drain();
  const backend_status st = inner_.create_stream_with_priority(out, priority);
  if (st == 0) pool_streams_.push_back(*out);
  return st;
}

backend_status issue_queue::create_event(event_handle* out) {
  drain();
  return inner_.create_event(out);
}

// Nothing queued for the lane and its thread asleep: waking it would cost more than the call
// (tens of µs on a VM), so the caller makes the call itself, and wakes the thread for the
// calls that may follow.
bool issue_queue::issue_here(unsigned li) noexcept {
  lane& l = *lanes_[li];
  // Asleep first: its line is written only when the thread sleeps or wakes, `issued` after every call.
  if (!issue_when_asleep_ || !l.worker.asleep() ||
      l.queued.load(std::memory_order_seq_cst) != l.issued.load(std::memory_order_seq_cst))
    return false;
  l.worker.wake();
  return true;
}

// A record or wait: queued for the lane of a pool stream; otherwise made now, after the
// queued calls naming its event.
backend_status issue_queue::event_call(op kind, stream_handle stream, event_handle event) {
  const unsigned l = lane_of(stream);
  if (l != no_lane && !issue_here(l)) {
    enqueue(l, {kind, stream, event});
    return 0;
  }
  if (l == no_lane) settle_relayed();  // an application stream: behind its relayed launches
  wait_for_event(event);
  settle_lags(stream);
  return execute({kind, stream, event}, false);
}

// A record's outcome: a failed one is remembered with its stream; one that succeeded replaces it.
void issue_queue::note_record(event_handle event, stream_handle stream, backend_status status) noexcept {
  if (status == 0 && !any_failed_record_.load(std::memory_order_acquire)) return;
  std::lock_guard lock(failed_mutex_);
  std::erase_if(failed_records_, [&](const auto& f) { return f.first == event; });
  if (status != 0) {
    try {
      failed_records_.emplace_back(event, stream);
    } catch (...) {  // no room to remember it: the old rule, the host waits for the stream now
      (void)inner_.synchronize(stream);
    }
  }
  any_failed_record_.store(!failed_records_.empty(), std::memory_order_release);
}

bool issue_queue::failed_record(event_handle event) noexcept {
  if (!any_failed_record_.load(std::memory_order_acquire)) return false;
  std::lock_guard lock(failed_mutex_);
  return std::any_of(failed_records_.begin(), failed_records_.end(), [&](const auto& f) { return f.first == event; });
}

// A stream that must wait on the host before its next work (stand_in_for): its lane's other
// streams are not held up meanwhile.
void issue_queue::add_lag(const lag& w) noexcept {
  std::lock_guard lock(lag_mutex_);
  try {
    lags_.push_back(w);
    lags_.back().id = ++lags_added_;
  } catch (...) {  // no room to remember it: the host waits now
    wait_on_host(w);
    return;
  }
  any_lag_.store(true, std::memory_order_release);
}

void issue_queue::wait_on_host(const lag& w) noexcept {
  if (w.event != 0) {
    while (inner_.query_event(w.event) == event_state::pending) std::this_thread::yield();
  } else {
    (void)inner_.synchronize(w.after_stream);
  }
}

// Before work on `stream` (or, with an event: before it is recorded again or destroyed): what it
// lags behind, on the host. A lag is taken off the list only once it was waited for: a thread that
// finds none may go on, so a lag still being waited for by one thread (the lagging stream's lane)
// must hold up another (a record of its event on another lane) until the old record is done.
// Two threads may then wait for one lag: later than needed for one of them, never earlier.
void issue_queue::settle_lags(stream_handle stream, event_handle event) noexcept {
  if (!any_lag_.load(std::memory_order_acquire)) return;
  const auto named = [&](const lag& w) { return event != 0 ? w.event == event : w.stream == stream; };
  lag due[8];
  for (;;) {
    std::size_t n = 0;
    {
      std::lock_guard lock(lag_mutex_);
      for (const lag& w : lags_)
        if (named(w) && n < std::size(due)) due[n++] = w;
    }
    if (n == 0) return;
    for (std::size_t i = 0; i < n; ++i) wait_on_host(due[i]);
    std::lock_guard lock(lag_mutex_);
    std::erase_if(lags_, [&](const lag& w) {
      return std::any_of(due, due + n, [&](const lag& d) { return d.id == w.id; });
    });
    any_lag_.store(!lags_.empty(), std::memory_order_release);
  }
}

// Kept until the event is recorded again: every later wait on it needs the stand-in.
std::optional<stream_handle> issue_queue::failed_record_stream(event_handle event) noexcept {
  std::lock_guard lock(failed_mutex_);
  for (const auto& f : failed_records_)
    if (f.first == event) return f.second;
  return std::nullopt;
}

backend_status issue_queue::record_event(event_handle event, stream_handle stream) {
  return event_call(op::record, stream, event);
}

backend_status issue_queue::wait_event(stream_handle stream, event_handle event) {
  return event_call(op::wait, stream, event);
}

event_state issue_queue::query_event(event_handle event) {
  wait_for_event(event);
  if (failed_record(event)) return event_state::pending;  // its older state is not the truth
  return inner_.query_event(event);
}

backend_status issue_queue::synchronize(stream_handle stream) {
  drain();
  settle_lags(stream);
  return inner_.synchronize(stream);
}

backend_status issue_queue::launch(const void* kernel, stream_handle stream) {
  if (const unsigned l = lane_of(stream); l != no_lane && !broken() && !issue_here(l)) {
    if (const void* detached = inner_.detach(kernel)) {
      enqueue(l, {op::launch, stream, 0, detached});
      return 0;
    }
  }
  // At once, after everything queued: the pool stream's earlier work, and the records its
  // waits name. Its status is the application's.
  inline_launches_.fetch_add(1, std::memory_order_relaxed);
  drain();
  settle_lags(stream);
  return inner_.launch(kernel, stream);
}

backend_status issue_queue::launch_detached(const void* kernel, stream_handle stream) {
  if (const unsigned l = lane_of(stream); l != no_lane && !broken() && !issue_here(l)) {
    enqueue(l, {op::launch, stream, 0, kernel});
    return 0;
  }
  drain();
  settle_lags(stream);
  return inner_.launch_detached(kernel, stream);
}

backend_status issue_queue::graph_instantiate(const graph_description& graph, graph_handle* out) {
  drain();
  return inner_.graph_instantiate(graph, out);
}

backend_status issue_queue::graph_update(graph_handle exec, const graph_description& graph) {
  drain();
  return inner_.graph_update(exec, graph);
}

backend_status issue_queue::graph_launch(graph_handle exec, stream_handle stream) {
  drain();
  settle_lags(stream);
  return inner_.graph_launch(exec, stream);
}

void issue_queue::graph_destroy(graph_handle exec) noexcept {
  drain();
  inner_.graph_destroy(exec);
}

void issue_queue::destroy_stream(stream_handle stream) noexcept {
  drain();
  settle_lags(stream);
  inner_.destroy_stream(stream);
}

void issue_queue::destroy_event(event_handle event) noexcept {
  drain();
  event_last_use_.erase(event);
  settle_lags(0, event);  // a stream lagging behind it waits while it still exists
  if (failed_record(event)) note_record(event, 0, 0);
  inner_.destroy_event(event);
}

backend_status issue_queue::relay(const void* detached, stream_handle stream) {
  if (broken() || issue_here(0)) {
    settle_relayed();
    relayed_here_.fetch_add(1, std::memory_order_relaxed);
    return inner_.launch_detached(detached, stream);
  }
  enqueue(0, {op::launch, stream, 0, detached});
  relayed_until_.store(lanes_[0]->queued.load(std::memory_order_relaxed), std::memory_order_release);
  relayed_.fetch_add(1, std::memory_order_relaxed);
  return 0;
}

backend_status issue_queue::relay_graph(graph_handle exec, const graph_description& graph, stream_handle stream) {
  if (broken()) {  // no graph once broken (replay_graph): the caller's kernels go on without it
    settle_relayed();
    return 1;
  }
  if (issue_here(0)) {
    settle_relayed();
    return update_and_launch_graph(inner_, exec, graph, stream);
  }
  lane& l = *lanes_[0];
  if (l.graph_slots.empty()) l.graph_slots.resize(l.ring.size());  // may throw: nothing queued yet
  graph_slot& slot = l.graph_slots[room(l) % l.ring.size()];  // lane 0 is done with it
  slot.kernels.assign(graph.kernels, graph.kernels + graph.node_count);  // may throw too
  slot.listed = graph.listed;
  slot.changed.assign(graph.changed, graph.changed + (graph.listed ? graph.changed_count : 0));
  slot.edges = graph.edges;
  slot.edge_count = graph.edge_count;
  command c{op::graph, stream};
  c.graph = exec;
  enqueue(0, c);
  relayed_until_.store(l.queued.load(std::memory_order_relaxed), std::memory_order_release);
  relayed_graphs_.fetch_add(1, std::memory_order_relaxed);
  return 0;
}

std::uint64_t issue_queue::relayed_pending_until() const noexcept {
  const std::uint64_t until = relayed_until_.load(std::memory_order_acquire);
  return until != 0 && lanes_[0]->issued.load(std::memory_order_acquire) < until ? until : 0;
}

void issue_queue::settle_relayed() noexcept {
  const std::uint64_t until = relayed_pending_until();
  if (until == 0) return;
  waits_.fetch_add(1, std::memory_order_relaxed);
  relay_waits_.fetch_add(1, std::memory_order_relaxed);
  wait_issued(*lanes_[0], until);
}

issue_queue_stats issue_queue::stats() const noexcept {
  return {deferred_.load(std::memory_order_relaxed), relayed_.load(std::memory_order_relaxed),
          relayed_here_.load(std::memory_order_relaxed),
          inline_launches_.load(std::memory_order_relaxed),
          waits_.load(std::memory_order_relaxed),
          relay_waits_.load(std::memory_order_relaxed),
          failures_.load(std::memory_order_relaxed),
          relayed_graphs_.load(std::memory_order_relaxed)};
}

}  // namespace acs
