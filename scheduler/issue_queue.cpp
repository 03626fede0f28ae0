#include "issue_queue.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

namespace acs {

namespace {

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

issue_queue::issue_queue(backend& inner, unsigned capacity, bool issue_when_asleep)
    : inner_(inner), issue_when_asleep_(issue_when_asleep), ring_(std::max(capacity, 2u)), thread_([this] { run(); }) {}

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
  queued_.store(n + 1, std::memory_order_seq_cst);
  worker_parking_.wake();
}

void issue_queue::wait_issued(std::uint64_t count) noexcept { caller_parking_.wait_until(issued_, count); }

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
    worker_parking_.wait_until(queued_, next + 1);
    const command c = ring_[next % ring_.size()];
    if (c.kind == op::stop) return;
    if (execute(c) != 0) {
      failures_.fetch_add(1, std::memory_order_relaxed);
      broken_.store(true, std::memory_order_release);
      stand_in_for(c);
    }
    issued_.store(++next, std::memory_order_seq_cst);
    caller_parking_.wake();
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

// Nothing queued and the issuing thread asleep: waking it would cost more than the call
// (tens of µs on a VM), so the caller makes the call itself, and wakes the thread for the
// calls that may follow.
bool issue_queue::issue_here() noexcept {
  if (!issue_when_asleep_ || queued_.load(std::memory_order_seq_cst) != issued_.load(std::memory_order_seq_cst) ||
      !worker_parking_.asleep())
    return false;
  worker_parking_.wake();
  return true;
}

// A record or wait: queued on a pool stream; otherwise made now, after the queued calls
// naming its event.
backend_status issue_queue::event_call(op kind, stream_handle stream, event_handle event) {
  if (is_pool(stream) && !issue_here()) {
    enqueue({kind, stream, event, nullptr});
    return 0;
  }
  wait_for_event(event);
  return execute({kind, stream, event, nullptr});
}

backend_status issue_queue::record_event(event_handle event, stream_handle stream) {
  return event_call(op::record, stream, event);
}

backend_status issue_queue::wait_event(stream_handle stream, event_handle event) {
  return event_call(op::wait, stream, event);
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
  if (is_pool(stream) && !broken() && !issue_here()) {
    if (const void* detached = inner_.detach(kernel)) {
      enqueue({op::launch, stream, 0, detached});
      return 0;
    }
  }
  // At once, after everything queued: the pool stream's earlier work, and the records its
  // waits name. Its status is the application's.
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
