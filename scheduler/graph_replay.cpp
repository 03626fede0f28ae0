#include "scheduler/graph_replay.hpp"

#include <algorithm>
#include <iterator>

#include "scheduler/thread_name.hpp"

namespace acs {

namespace {

// What a wait on an event whose record failed returns: acs's own failure, never the program's.
constexpr backend_status status_failed_record = 1;

// The union of two sorted sets of node ids, into `into`.
void merge_into(std::vector<std::uint32_t>& into, const std::vector<std::uint32_t>& from) {
  std::vector<std::uint32_t> out;
  out.reserve(into.size() + from.size());
  std::set_union(into.begin(), into.end(), from.begin(), from.end(), std::back_inserter(out));
  into.swap(out);
}

template <class T>
std::size_t index_in(std::vector<T>& v, const T& x) {
  const auto it = std::find(v.begin(), v.end(), x);
  if (it != v.end()) return static_cast<std::size_t>(it - v.begin());
  v.push_back(x);
  return v.size() - 1;
}

}  // namespace

std::size_t graph_replay::key_hash::operator()(const std::vector<std::uint64_t>& k) const noexcept {
  std::uint64_t h = 0x9e3779b97f4a7c15ull;
  for (std::uint64_t w : k) h = (h ^ w) * 0xff51afd7ed558ccdull + (h >> 29);
  return static_cast<std::size_t>(h);
}

graph_replay::graph_replay(backend& inner, graph_replay_config config) : inner_(inner), config_(config) {
  config_.after = std::max(config_.after, 1u);
  config_.cache = std::max(config_.cache, 1u);
  config_.max_segment = std::max(config_.max_segment, 1u);
  if (config_.idle.count() > 0)
    idle_thread_ = std::thread([this] {
      name_this_thread("acs-graph-idle");
      idle_loop();
    });
}

graph_replay::~graph_replay() {
  {
    std::lock_guard lock(mutex_);
    flush_locked(flush_cause::explicit_call);
    stopping_ = true;
  }
  idle_wakeup_.notify_all();
  if (idle_thread_.joinable()) idle_thread_.join();
  for (const cached& c : lru_) inner_.graph_destroy(c.exec);
  if (scratch_ != 0) inner_.destroy_event(scratch_);
}

bool graph_replay::is_pool(stream_handle s) const noexcept {
  return std::find(pool_streams_.begin(), pool_streams_.end(), s) != pool_streams_.end();
}

void graph_replay::append(pending p) {
  if (segment_.empty() && idle_thread_.joinable()) idle_wakeup_.notify_one();
  if (p.kind == op::record && std::find(segment_records_.begin(), segment_records_.end(), p.event) == segment_records_.end())
    segment_records_.push_back(p.event);
  segment_.push_back(p);
  ++calls_;
  if (p.kind == op::launch) ++segment_kernels_;
  if (segment_.size() >= config_.max_segment || (config_.max_kernels != 0 && segment_kernels_ >= config_.max_kernels))
    flush_locked(flush_cause::limit);
}

// ---- the backend calls ---------------------------------------------------------

backend_status graph_replay::create_stream(stream_handle* out) { return create_stream_with_priority(out, 0); }

backend_status graph_replay::create_stream_with_priority(stream_handle* out, int priority) {
  std::lock_guard lock(mutex_);
  flush_locked(flush_cause::create_destroy);
  const backend_status st = inner_.create_stream_with_priority(out, priority);
  if (st == 0) pool_streams_.push_back(*out);
  return st;
}

backend_status graph_replay::create_event(event_handle* out) {
  std::lock_guard lock(mutex_);
  flush_locked(flush_cause::create_destroy);
  return inner_.create_event(out);
}

// A record or wait on a pool stream joins the segment; on any other stream it is made now,
// after the segment.
backend_status graph_replay::event_call(op kind, event_handle event, stream_handle stream) {
  std::lock_guard lock(mutex_);
  if (!broken_ && is_pool(stream)) {
    append({kind, stream, event, nullptr});
    return 0;
  }
  flush_locked(flush_cause::other_stream);
  settle_lagging(stream);
  // A wait on an event whose record failed fails too: the caller orders its work another way
  // (the scheduler joins on the host, later, at the stream's next work in place).
  if (kind == op::wait) return failed_record(event) ? status_failed_record : inner_.wait_event(stream, event);
  const backend_status st = inner_.record_event(event, stream);
  note_record(event, stream, st);
  return st;
}

backend_status graph_replay::record_event(event_handle event, stream_handle stream) {
  return event_call(op::record, event, stream);
}

backend_status graph_replay::wait_event(stream_handle stream, event_handle event) {
  return event_call(op::wait, event, stream);
}

// An event the segment records is pending: its record is not issued yet (the truth, and what
// the scheduler's probes need: nothing is retired early). Any other event is unaffected.
event_state graph_replay::query_event(event_handle event) {
  std::lock_guard lock(mutex_);
  if (std::find(segment_records_.begin(), segment_records_.end(), event) != segment_records_.end())
    return event_state::pending;
  if (failed_record(event)) return event_state::pending;  // its older state is not the truth
  return inner_.query_event(event);
}

backend_status graph_replay::synchronize(stream_handle stream) {
  std::lock_guard lock(mutex_);
  flush_locked(flush_cause::sync);
  settle_lagging(stream);
  return inner_.synchronize(stream);
}

backend_status graph_replay::launch(const void* kernel, stream_handle stream) {
  std::lock_guard lock(mutex_);
  const bool pool = is_pool(stream);
  if (!broken_ && pool) {
    if (const void* detached = inner_.detach(kernel)) {
      append({op::launch, stream, 0, detached});
      return 0;
    }
  }
  // At once, after the segment; its status is the application's.
  flush_locked(pool ? flush_cause::undetachable : flush_cause::other_stream);
  settle_lagging(stream);
  return inner_.launch(kernel, stream);
}

void graph_replay::destroy_stream(stream_handle stream) noexcept {
  std::lock_guard lock(mutex_);
  flush_locked(flush_cause::create_destroy);
  settle_lagging(stream);
  std::erase(pool_streams_, stream);
  inner_.destroy_stream(stream);
}

void graph_replay::destroy_event(event_handle event) noexcept {
  std::lock_guard lock(mutex_);
  flush_locked(flush_cause::create_destroy);
  forget_failed_record(event);
  inner_.destroy_event(event);
}

void graph_replay::note_owner(std::uintptr_t key) noexcept {
  if (key == owner_.load(std::memory_order_relaxed)) return;  // the common case: no lock
  std::lock_guard lock(mutex_);
  flush_locked(flush_cause::other_stream);
  owner_.store(key, std::memory_order_relaxed);
}

void graph_replay::flush(flush_cause cause) noexcept {
  std::lock_guard lock(mutex_);
  flush_locked(cause);
}

void graph_replay::forget_executables(void (*between)(void* context) noexcept, void* context) noexcept {
  std::lock_guard lock(mutex_);
  flush_locked(flush_cause::explicit_call);
  between(context);
  for (const cached& c : lru_) inner_.graph_destroy(c.exec);
  cache_.clear();
  lru_.clear();
}

bool graph_replay::broken() const noexcept { return broken_.load(std::memory_order_acquire); }

graph_replay_stats graph_replay::stats() const noexcept {
  std::lock_guard lock(mutex_);
  return stats_;
}

// Sleeps while nothing is buffered; otherwise until `idle` after the last call, then flushes
// if no call came meanwhile.
void graph_replay::idle_loop() noexcept {
  inner_.issuing_thread_started();
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (segment_.empty()) {
      idle_wakeup_.wait(lock);
      continue;
    }
    // A whole idle interval without a new call, then flush (a wake-up before its end, or a call
    // during it, starts another interval).
    const std::uint64_t seen = calls_;
    if (idle_wakeup_.wait_for(lock, config_.idle) == std::cv_status::timeout && !stopping_ && calls_ == seen)
      flush_locked(flush_cause::idle);
  }
}

// ---- flushing -------------------------------------------------------------------

void graph_replay::flush_locked(flush_cause cause) noexcept {
  if (segment_.empty()) return;
  ++stats_.flushes[static_cast<unsigned>(cause)];
  plan p;
  if (broken_) {
    replay_call_by_call();
  } else if (std::optional<plain_cause> why = make_plan(p); why || (why = replay_as_graph(p))) {
    ++stats_.plain[static_cast<unsigned>(*why)];
    replay_call_by_call();
  }
  segment_.clear();
  segment_records_.clear();
  segment_kernels_ = 0;
}

// The segment's DAG and shape key; the cause when it is no graph (fewer than two kernels, a
// kernel the inner backend cannot describe, a stream without kernels). Per used stream, the nodes its next kernel must
// follow; a record snapshots its stream's set, a wait on an event recorded in the segment
// adds that snapshot, a wait on an older event is external (made before the graph's launch).
std::optional<plain_cause> graph_replay::make_plan(plan& out) {
  std::vector<std::vector<std::uint32_t>> front;
  std::vector<std::pair<event_handle, std::vector<std::uint32_t>>> event_front;
  std::vector<kernel_identity> ids;
  try {
    for (const pending& o : segment_) {
      const std::size_t s = index_in(out.streams, o.stream);
      if (front.size() <= s) front.resize(s + 1);
      const auto ev = std::find_if(event_front.begin(), event_front.end(), [&](const auto& f) { return f.first == o.event; });
      switch (o.kind) {
        case op::record:
          if (ev != event_front.end()) {
            ev->second = front[s];
          } else {
            event_front.emplace_back(o.event, front[s]);
            out.recorded.push_back(o.event);
          }
          break;
        case op::wait:
          if (ev != event_front.end()) {
            merge_into(front[s], ev->second);
          } else {
            out.external_waits.push_back(o.event);
          }
          break;
        case op::launch: {
          kernel_identity id;
          if (!inner_.describe(o.kernel, &id)) return plain_cause::undescribed;
          const auto n = static_cast<std::uint32_t>(out.nodes.size());
          for (std::uint32_t d : front[s]) out.edges.push_back({d, n});
          front[s].assign(1, n);
          out.nodes.push_back(o.kernel);
          ids.push_back(id);
          break;
        }
      }
    }
    if (out.nodes.size() < 2) return plain_cause::small;
    // Every used stream must carry a kernel: one that only carries a record or a wait may be
    // another application stream's (a fold, a probe), which the graph must not be joined to.
    for (std::size_t s = 0; s < front.size(); ++s)
      if (!std::any_of(segment_.begin(), segment_.end(),
                       [&](const pending& o) { return o.kind == op::launch && o.stream == out.streams[s]; }))
        return plain_cause::bare_stream;
    // The launch stream first: the stream of the first kernel.
    const auto first = std::find_if(segment_.begin(), segment_.end(), [](const pending& o) { return o.kind == op::launch; });
    std::iter_swap(out.streams.begin(), std::find(out.streams.begin(), out.streams.end(), first->stream));
    out.key.reserve(2 + ids.size() * 4 + out.edges.size());
    out.key.push_back(ids.size());
    for (const kernel_identity& id : ids) out.key.insert(out.key.end(), std::begin(id.words), std::end(id.words));
    out.key.push_back(out.edges.size());
    for (const graph_edge& e : out.edges) out.key.push_back(std::uint64_t{e.from} << 32 | e.to);
  } catch (...) {  // out of memory: the plain path needs none
    return plain_cause::failed;
  }
  return std::nullopt;
}

// The graph path: the cause (nothing issued that matters) when the segment must go call by call.
std::optional<plain_cause> graph_replay::replay_as_graph(const plan& p) noexcept {
  const graph_description d{p.nodes.data(), p.nodes.size(), p.edges.data(), p.edges.size()};
  bool recurring = false;
  const graph_handle exec = executable_for(p, d, recurring);
  if (exec == 0) return recurring ? plain_cause::failed : plain_cause::new_shape;
  if (!launch_graph(p, exec)) return plain_cause::failed;
  for (const void* k : p.nodes) inner_.release_detached(k);
  return std::nullopt;
}

// The cached executable of p's shape, updated with its arguments; or a new one once the shape
// recurred `after` times; 0 for the call-by-call path.
graph_handle graph_replay::executable_for(const plan& p, const graph_description& d, bool& recurring) noexcept {
  recurring = true;
  try {
    if (const auto hit = cache_.find(p.key); hit != cache_.end()) {
      lru_.splice(lru_.begin(), lru_, hit->second);
      if (inner_.graph_update(hit->second->exec, d) == 0) {
        ++stats_.updates;
        return hit->second->exec;
      }
      inner_.graph_destroy(hit->second->exec);  // rebuilt below
      lru_.erase(hit->second);
      cache_.erase(hit);
    } else {
      if (seen_.size() >= 4 * static_cast<std::size_t>(config_.cache)) seen_.clear();
      if (++seen_[p.key] < config_.after) {
        recurring = false;
        return 0;
      }
      seen_.erase(p.key);
    }
    graph_handle exec = 0;
    if (inner_.graph_instantiate(d, &exec) != 0 || exec == 0) return 0;
    ++stats_.built;
    if (lru_.size() >= config_.cache) {
      inner_.graph_destroy(lru_.back().exec);
      cache_.erase(lru_.back().key);
      lru_.pop_back();
      ++stats_.evictions;
    }
    lru_.push_front({p.key, exec});
    cache_.emplace(p.key, lru_.begin());
    return exec;
  } catch (...) {
    return 0;
  }
}

// The launch, with the joins that keep the segment's order (the header comment). A failure
// before the graph's launch leaves only extra waits behind: the caller replays call by call.
bool graph_replay::launch_graph(const plan& p, graph_handle exec) noexcept {
  const stream_handle l = p.streams.front();
  if (p.streams.size() > 1 && scratch_ == 0 && inner_.create_event(&scratch_) != 0) {
    scratch_ = 0;
    return false;
  }
  for (std::size_t i = 1; i < p.streams.size(); ++i)
    if (inner_.record_event(scratch_, p.streams[i]) != 0 || inner_.wait_event(l, scratch_) != 0) return false;
  for (event_handle e : p.external_waits)
    if (inner_.wait_event(l, e) != 0) return false;
  if (inner_.graph_launch(exec, l) != 0) return false;
  ++stats_.replays;
  // After it: a failed call is stood in for by waiting for the graph on the host, not now (it may
  // hold a kernel spinning until one the program launches later has run, docs/design.md rule
  // 12), but where that order is needed: a wait on a failed record (stood_in_for_wait), the next
  // call on a stream that did not come to wait for the graph (settle_lagging).
  bool failed = false;
  for (event_handle e : p.recorded) {
    const backend_status st = inner_.record_event(e, l);
    note_record(e, l, st);
    failed |= st != 0;
  }
  if (p.streams.size() > 1) {
    const bool recorded = inner_.record_event(scratch_, l) == 0;
    for (std::size_t i = 1; i < p.streams.size(); ++i)
      if (!recorded || inner_.wait_event(p.streams[i], scratch_) != 0) {
        failed = true;
        try {
          lagging_.emplace_back(p.streams[i], l);
        } catch (...) {  // no room to remember it: the host waits for the graph now
          (void)inner_.synchronize(l);
        }
      }
  }
  if (failed) {
    ++stats_.failures;
    broken_ = true;
  }
  return true;
}

// Before the next call on `stream`: the graph it failed to wait for (launch_graph), on the host.
void graph_replay::settle_lagging(stream_handle stream) noexcept {
  if (lagging_.empty()) return;
  std::erase_if(lagging_, [&](const std::pair<stream_handle, stream_handle>& w) {
    if (w.first != stream) return false;
    (void)inner_.synchronize(w.second);
    return true;
  });
}

void graph_replay::note_record(event_handle event, stream_handle stream, backend_status status) noexcept {
  forget_failed_record(event);
  if (status == 0) return;
  try {
    failed_records_.emplace_back(event, stream);
  } catch (...) {  // no room to remember it: the host waits for the stream now
    (void)inner_.synchronize(stream);
  }
}

void graph_replay::replay_call_by_call() noexcept {
  ++stats_.call_by_call;
  for (const pending& o : segment_) {
    backend_status st = 0;
    settle_lagging(o.stream);
    switch (o.kind) {
      case op::record:
        st = inner_.record_event(o.event, o.stream);
        note_record(o.event, o.stream, st);  // a failed one is stood in for later (stand_in)
        break;
      case op::wait:
        if (!stood_in_for_wait(o.event)) st = inner_.wait_event(o.stream, o.event);
        break;
      case op::launch: st = inner_.launch_detached(o.kernel, o.stream); break;
    }
    if (st != 0) {
      ++stats_.failures;
      broken_ = true;
      stand_in(o);
    }
  }
}

// What the failed call was for, on the host. A failed wait: the host waits for the event before
// anything after it is issued. A failed record: nothing yet. The stream's work may spin until a
// kernel later in the segment has run, which a host wait now would never let start; the host
// waits for the stream only when the event is waited for (stood_in_for_wait), and until then the
// event reads pending.
void graph_replay::stand_in(const pending& o) noexcept {
  switch (o.kind) {
    case op::wait:
      while (inner_.query_event(o.event) == event_state::pending) std::this_thread::yield();
      break;
    case op::record: break;  // remembered (note_record): stood in for once its event is waited for
    case op::launch: break;  // its status was given: success (a fault is reported by later calls)
  }
}

// A wait of the segment on an event whose last record failed: the host waits for the stream it
// was for (its work up to then, and possibly later work: later than needed, never earlier). True
// when it did.
bool graph_replay::stood_in_for_wait(event_handle event) noexcept {
  const auto it = std::find_if(failed_records_.begin(), failed_records_.end(),
                               [&](const auto& f) { return f.first == event; });
  if (it == failed_records_.end()) return false;
  (void)inner_.synchronize(it->second);  // kept: a later wait on the event needs it too
  return true;
}

bool graph_replay::failed_record(event_handle event) const noexcept {
  return std::any_of(failed_records_.begin(), failed_records_.end(), [&](const auto& f) { return f.first == event; });
}

void graph_replay::forget_failed_record(event_handle event) noexcept {
  std::erase_if(failed_records_, [&](const auto& f) { return f.first == event; });
}

}  // namespace acs
