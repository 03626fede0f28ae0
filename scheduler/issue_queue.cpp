#include "issue_queue.hpp"

#include <algorithm>
#include <chrono>

namespace acs {

namespace {

// How long a thread spins before it sleeps: the next launch usually comes within a few µs,
// and waking a sleeping thread costs more than that.
constexpr auto spin_time = std::chrono::microseconds(50);

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Until `value` reaches `target`: spins a while, then sleeps (std::atomic::wait).
void spin_then_wait(const std::atomic<std::uint64_t>& value, std::uint64_t target) noexcept {
  const auto until = std::chrono::steady_clock::now() + spin_time;
  unsigned n = 0;
  for (std::uint64_t seen = value.load(std::memory_order_acquire); seen < target;
       seen = value.load(std::memory_order_acquire)) {
    if ((++n & 63u) != 0 || std::chrono::steady_clock::now() < until) {
      cpu_relax();
      continue;
    }
    value.wait(seen, std::memory_order_acquire);
  }
}

}  // namespace

issue_queue::issue_queue(backend& inner, unsigned capacity)
    : inner_(inner), ring_(std::max(capacity, 2u)), thread_([this] { run(); }) {}

issue_queue::~issue_queue() {
  enqueue({op::stop, 0, 0, nullptr});
  thread_.join();
}

bool issue_queue::is_pool(stream_handle s) const noexcept {
  return std::find(pool_streams_.begin(), pool_streams_.end(), s) != pool_streams_.end();
}

void issue_queue::enqueue(const command& c) {
  const std::uint64_t n = queued_.load(std::memory_order_relaxed);
  if (n - issued_.load(std::memory_order_acquire) >= ring_.size()) {
    ++waits_;
    wait_issued(n - ring_.size() + 1);
  }
  ring_[n % ring_.size()] = c;
  if (c.event != 0) event_last_use_[c.event] = n + 1;
  queued_.store(n + 1, std::memory_order_release);
  queued_.notify_all();  // a load when nobody sleeps
}

void issue_queue::wait_issued(std::uint64_t count) noexcept { spin_then_wait(issued_, count); }

void issue_queue::drain() noexcept { wait_issued(queued_.load(std::memory_order_acquire)); }

void issue_queue::wait_for_event(event_handle e) noexcept {
  const auto it = event_last_use_.find(e);
  if (it == event_last_use_.end()) return;
  if (issued_.load(std::memory_order_acquire) < it->second) {
    ++waits_;
    wait_issued(it->second);
  }
  event_last_use_.erase(it);
}

void issue_queue::run() noexcept {
  inner_.issuing_thread_started();
  for (std::uint64_t next = 0;;) {
    spin_then_wait(queued_, next + 1);
    const command c = ring_[next % ring_.size()];
    if (c.kind == op::stop) return;
    if (execute(c) != 0) {
      failures_.fetch_add(1, std::memory_order_relaxed);
      broken_.store(true, std::memory_order_release);
      stand_in_for(c);
    }
    issued_.store(++next, std::memory_order_release);
    issued_.notify_all();
  }
}

// What the failed call was for, done on the host before anything after it is issued.
void issue_queue::stand_in_for(const command& c) noexcept {
  switch (c.kind) {
    case op::wait:  // the work after it must follow the event: the host waits for it
      while (inner_.query_event(c.event) == event_state::pending) std::this_thread::yield();
      break;
    case op::record:  // a later wait binds to an older record: make what it misses complete
      (void)inner_.synchronize(c.stream);
      break;
    case op::launch:  // it did not run; its status was already given (scheduler.hpp)
    case op::stop: break;
  }
}

backend_status issue_queue::execute(const command& c) noexcept {
  switch (c.kind) {
    case op::record: return inner_.record_event(c.event, c.stream);
    case op::wait: return inner_.wait_event(c.stream, c.event);
    case op::launch:
      deferred_.fetch_add(1, std::memory_order_relaxed);
      return inner_.launch_detached(c.kernel, c.stream);
    case op::stop: break;
  }
  return 1;
}

backend_status issue_queue::create_stream(stream_handle* out) {
  drain();
  const backend_status st = inner_.create_stream(out);
  if (st == 0) pool_streams_.push_back(*out);
  return st;
}

backend_status issue_queue::create_event(event_handle* out) {
  drain();
  return inner_.create_event(out);
}

backend_status issue_queue::record_event(event_handle event, stream_handle stream) {
  if (is_pool(stream)) {
    enqueue({op::record, stream, event, nullptr});
    return 0;
  }
  wait_for_event(event);
  return inner_.record_event(event, stream);
}

backend_status issue_queue::wait_event(stream_handle stream, event_handle event) {
  if (is_pool(stream)) {
    enqueue({op::wait, stream, event, nullptr});
    return 0;
  }
  wait_for_event(event);
  return inner_.wait_event(stream, event);
}

event_state issue_queue::query_event(event_handle event) {
  wait_for_event(event);
  return inner_.query_event(event);
}

backend_status issue_queue::synchronize(stream_handle stream) {
  drain();
  return inner_.synchronize(stream);
}

backend_status issue_queue::launch(const void* kernel, stream_handle stream) {
  if (is_pool(stream) && !broken()) {
    if (const void* detached = inner_.detach(kernel)) {
      enqueue({op::launch, stream, 0, detached});
      return 0;
    }
  }
  // At once, after everything queued: the pool stream's earlier work, and the records its
  // waits name.
  ++inline_launches_;
  if (queued_.load(std::memory_order_relaxed) != issued_.load(std::memory_order_acquire)) ++waits_;
  drain();
  return inner_.launch(kernel, stream);
}

void issue_queue::destroy_stream(stream_handle stream) noexcept {
  drain();
  inner_.destroy_stream(stream);
}

void issue_queue::destroy_event(event_handle event) noexcept {
  drain();
  event_last_use_.erase(event);
  inner_.destroy_event(event);
}

issue_queue_stats issue_queue::stats() const noexcept {
  return {deferred_.load(std::memory_order_relaxed), inline_launches_, waits_,
          failures_.load(std::memory_order_relaxed)};
}

}  // namespace acs
