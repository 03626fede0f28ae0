#include "sim_device.hpp"

#include <algorithm>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace acs::sim {

const char* name(stream_kind k) noexcept {
  switch (k) {
    case stream_kind::legacy: return "legacy";
    case stream_kind::blocking: return "blocking";
    case stream_kind::non_blocking: return "non_blocking";
  }
  return "?";
}

const char* name(api_call c) noexcept {
  switch (c) {
    case api_call::create_stream: return "create_stream";
    case api_call::create_event: return "create_event";
    case api_call::record_event: return "record_event";
    case api_call::wait_event: return "wait_event";
    case api_call::launch: return "launch";
  }
  return "?";
}

sim_device::sim_device(device_config config)
    : config_(config),
      memory_(config.cells),
      checker_(config.cells),
      busy_slots_(config.devices, 0),
      peak_slots_(config.devices, 0),
      owner_(config.cells, no_device) {
  if (config_.concurrency == 0) throw std::invalid_argument("sim_device: concurrency must be >= 1");
  if (config_.devices == 0) throw std::invalid_argument("sim_device: devices must be >= 1");
  for (cell c = 0; c < config_.cells; ++c) memory_[c] = initial_value(c);
  for (unsigned d = 0; d < config_.devices; ++d) add_stream(stream_kind::legacy, stream_origin::legacy, 0, d);
  views_.resize(config_.devices);
}

sim_device::~sim_device() = default;

stream_handle sim_device::add_stream(stream_kind kind, stream_origin origin, int priority, unsigned device) {
  streams_.push_back({kind, origin, priority, device, false, std::nullopt, 0});
  return streams_.size() - 1;
}

bool sim_device::valid_stream(stream_handle s) const noexcept {
  return s < streams_.size() && !streams_[s].destroyed;
}

bool sim_device::valid_event(event_handle e) const noexcept {
  return e >= 1 && e <= events_.size() && !events_[e - 1].destroyed;
}

bool sim_device::valid_cells(const std::vector<cell>& cells) const noexcept {
  return std::all_of(cells.begin(), cells.end(), [&](cell c) { return c < config_.cells; });
}

bool sim_device::accessible(const kernel& k, stream_handle stream) const noexcept {
  const unsigned d = streams_[stream].device;
  const auto own = [&](cell c) {
    const unsigned o = owner_[c];
    return o == no_device || o == d || peer_access_.contains({d, o});
  };
  return std::all_of(k.reads.begin(), k.reads.end(), own) && std::all_of(k.writes.begin(), k.writes.end(), own);
}

// ---- backend -------------------------------------------------------------

std::optional<backend_status> sim_device::injected(api_call which) {
  injected_failure& f = failures_[static_cast<std::size_t>(which)];
  if (f.count == 0) return std::nullopt;
  if (f.after > 0) {
    --f.after;
    return std::nullopt;
  }
  --f.count;
  return f.status;
}

std::optional<backend_status> sim_device::context_failed(nanos cost) {
  run_until(now_);
  if (!fault_) return std::nullopt;
  now_ += cost;
  return fault_;
}

backend_status sim_device::seen(backend_status status) {
  if (status != 0) failure_seen_ = true;
  return status;
}

backend_status sim_device::create_stream(stream_handle* out) { return create_stream_with_priority(out, 0); }

backend_status sim_device::create_stream_with_priority(stream_handle* out, int priority) {
  return new_pool_stream(out, priority, 0);
}

backend_status sim_device::new_pool_stream(stream_handle* out, int priority, unsigned device) {
  std::lock_guard lock(mutex_);
  if (const auto failure = context_failed(config_.api_cost)) return *failure;
  now_ += config_.api_cost;
  if (const auto failure = injected(api_call::create_stream)) return *failure;
  *out = add_stream(stream_kind::non_blocking, stream_origin::pool, priority, device);
  return 0;
}

backend_status sim_device::create_event(event_handle* out) { return new_event(out, 0); }

backend_status sim_device::create_event_on(unsigned device, event_handle* out) {
  if (device >= config_.devices) return status_invalid_value;
  return new_event(out, device);
}

backend_status sim_device::new_event(event_handle* out, unsigned device) {
  std::lock_guard lock(mutex_);
  if (const auto failure = context_failed(config_.api_cost)) return *failure;
  now_ += config_.api_cost;
  if (const auto failure = injected(api_call::create_event)) return *failure;
  events_.push_back({std::nullopt, false, device});
  *out = events_.size();  // handles start at 1, so a zero handle is caught
  return 0;
}

// CUDA: cudaEventRecord fails when the event and the stream belong to different devices.
backend_status sim_device::record_event(event_handle event, stream_handle stream) {
  std::lock_guard lock(mutex_);
  if (!valid_event(event) || !valid_stream(stream)) return status_invalid_handle;
  if (events_[event - 1].device != streams_[stream].device) return status_invalid_handle;
  ++calls_.record;
  if (const auto failure = context_failed(config_.api_cost)) return seen(*failure);
  if (const auto failure = injected(api_call::record_event)) {
    now_ += config_.api_cost;
    return *failure;
  }
  run_until(now_);
  op o;
  o.kind = op_kind::record;
  events_[event - 1].record = enqueue(std::move(o), stream, std::nullopt);
  now_ += config_.api_cost;
  return 0;
}

backend_status sim_device::wait_event(stream_handle stream, event_handle event) {
  std::lock_guard lock(mutex_);
  if (!valid_event(event) || !valid_stream(stream)) return status_invalid_handle;
  ++calls_.wait;
  if (const auto failure = context_failed(config_.api_cost)) return seen(*failure);
  if (const auto failure = injected(api_call::wait_event)) {
    now_ += config_.api_cost;
    return *failure;
  }
  run_until(now_);
  // CUDA: a wait binds to the latest record now, of any device; a never-recorded event is a no-op.
  if (const auto record = events_[event - 1].record) {
    op o;
    o.kind = op_kind::wait;
    o.bound_to = record;
    enqueue(std::move(o), stream, record);
  }
  now_ += config_.api_cost;
  return 0;
}

event_state sim_device::query_event(event_handle event) {
  std::lock_guard lock(mutex_);
  if (!valid_event(event)) return event_state::error;
  ++calls_.query;
  if (context_failed(config_.api_cost)) return event_state::error;
  now_ += config_.api_cost;
  const auto record = events_[event - 1].record;
  if (!record) return event_state::complete;
  if (ops_[*record].at != phase::done) return event_state::pending;
  observe(*record);
  return event_state::complete;
}

backend_status sim_device::launch(const void* kernel_ptr, stream_handle stream) {
  return launch_checked(kernel_ptr, stream, true);
}

backend_status sim_device::launch_checked(const void* kernel_ptr, stream_handle stream, bool may_fail) {
  std::lock_guard lock(mutex_);
  if (kernel_ptr == nullptr) return status_invalid_value;
  if (!valid_stream(stream)) return status_invalid_handle;
  const auto& k = *static_cast<const kernel*>(kernel_ptr);
  if (!valid_cells(k.reads) || !valid_cells(k.writes) || !accessible(k, stream)) return status_invalid_value;
  if (const auto failure = context_failed(config_.launch_cost)) return seen(*failure);
  if (const auto failure = may_fail ? injected(api_call::launch) : std::nullopt) {
    now_ += config_.launch_cost;
    return *failure;
  }
  run_until(now_);
  return enqueue_effect(op_kind::kernel, stream, k, config_.launch_cost);
}

const void* sim_device::detach(const void* kernel_ptr) { return detach_on(kernel_ptr, 0); }

const void* sim_device::detach_on(const void* kernel_ptr, unsigned device) {
  std::lock_guard lock(mutex_);
  if (kernel_ptr == nullptr || failures_[static_cast<std::size_t>(api_call::launch)].count != 0 || failure_seen_)
    return nullptr;
  const auto& k = *static_cast<const kernel*>(kernel_ptr);
  // Would fail: issued at once.
  if (!valid_cells(k.reads) || !valid_cells(k.writes) || !accessible(k, legacy_stream_of(device))) return nullptr;
  ++graph_counts_.live_detached;
  ++graph_counts_.detached;
  return new kernel(k);
}

backend_status sim_device::launch_detached(const void* kernel_ptr, stream_handle stream) {
  // A launch failure armed by the test is meant for the launch it precedes, which detach
  // left to be issued at once: this one was accepted before.
  const std::unique_ptr<const kernel> owned(static_cast<const kernel*>(kernel_ptr));
  {
    std::lock_guard lock(mutex_);
    --graph_counts_.live_detached;
  }
  return launch_checked(owned.get(), stream, false);
}

void sim_device::destroy_stream(stream_handle stream) noexcept {
  std::lock_guard lock(mutex_);
  // Its work still runs, as with cudaStreamDestroy.
  if (valid_stream(stream) && streams_[stream].origin != stream_origin::legacy) streams_[stream].destroyed = true;
}

void sim_device::destroy_event(event_handle event) noexcept {
  std::lock_guard lock(mutex_);
  if (valid_event(event)) events_[event - 1].destroyed = true;
}

// ---- the application's own work ---------------------------------------------

stream_handle sim_device::create_app_stream(stream_kind kind, int priority, unsigned device) {
  if (kind == stream_kind::legacy)
    throw std::invalid_argument("the legacy stream is sim_device::legacy_stream_of(device)");
  if (device >= config_.devices) throw std::invalid_argument("create_app_stream: no such device");
  std::lock_guard lock(mutex_);
  now_ += config_.api_cost;
  return add_stream(kind, stream_origin::app, priority, device);
}

backend_status sim_device::library_call(stream_handle stream, const kernel& k) {
  std::lock_guard lock(mutex_);
  if (!valid_stream(stream)) return status_invalid_handle;
  if (!valid_cells(k.reads) || !valid_cells(k.writes) || !accessible(k, stream)) return status_invalid_value;
  if (const auto failure = context_failed(config_.launch_cost)) return *failure;
  return enqueue_effect(op_kind::library_call, stream, k, config_.launch_cost);
}

backend_status sim_device::host_function(stream_handle stream, const kernel& k) {
  std::lock_guard lock(mutex_);
  if (!valid_stream(stream)) return status_invalid_handle;
  if (!valid_cells(k.reads) || !valid_cells(k.writes)) return status_invalid_value;
  if (const auto failure = context_failed(config_.api_cost)) return *failure;
  return enqueue_effect(op_kind::host_function, stream, k, config_.api_cost);
}

backend_status sim_device::copy(stream_handle stream, cell dst, cell src, std::uint32_t count,
                                nanos duration) {
  std::lock_guard lock(mutex_);
  if (!valid_stream(stream)) return status_invalid_handle;
  memory_effect e{memory_effect::rule::copy, 0, {}, {}};
  for (std::uint32_t i = 0; i < count; ++i) {
    e.reads.push_back(src + i);
    e.writes.push_back(dst + i);
  }
  if (!valid_cells(e.reads) || !valid_cells(e.writes)) return status_invalid_value;
  if (const auto failure = context_failed(config_.api_cost)) return *failure;
  return enqueue_effect(op_kind::copy, stream, 0, std::move(e), duration, config_.api_cost);
}

backend_status sim_device::fill(stream_handle stream, cell first, std::uint32_t count, value v,
                                nanos duration) {
  std::lock_guard lock(mutex_);
  if (!valid_stream(stream)) return status_invalid_handle;
  memory_effect e{memory_effect::rule::fill, v, {}, {}};
  for (std::uint32_t i = 0; i < count; ++i) e.writes.push_back(first + i);
  if (!valid_cells(e.writes)) return status_invalid_value;
  if (const auto failure = context_failed(config_.api_cost)) return *failure;
  return enqueue_effect(op_kind::fill, stream, 0, std::move(e), duration, config_.api_cost);
}

backend_status sim_device::marker(stream_handle stream) {
  std::lock_guard lock(mutex_);
  if (!valid_stream(stream)) return status_invalid_handle;
  if (const auto failure = context_failed(config_.api_cost)) return *failure;
  enqueue({}, stream, std::nullopt);
  now_ += config_.api_cost;
  return 0;
}

backend_status sim_device::enqueue_effect(op_kind kind, stream_handle stream, const kernel& k, nanos cost) {
  return enqueue_effect(kind, stream, k.id, {memory_effect::rule::hash, k.id, k.reads, k.writes}, k.duration, cost,
                        kind == op_kind::host_function ? 0 : k.waits_for);
}

backend_status sim_device::enqueue_effect(op_kind kind, stream_handle stream, std::uint64_t kernel_id,
                                          memory_effect effect, nanos duration, nanos cost, std::uint64_t waits_for) {
  op o;
  o.kind = kind;
  o.waits_for = waits_for;
  o.kernel_id = kernel_id;
  o.effect = std::move(effect);
  o.duration = duration;
  o.uses_slot = kind == op_kind::kernel || kind == op_kind::library_call;
  const std::uint64_t id = enqueue(std::move(o), stream, std::nullopt);
  effect_ops_.push_back(id);
  if (kind == op_kind::kernel || kind == op_kind::library_call) {
    latest_run_[kernel_id] = id;
    ++launch_counts_[kernel_id];
  }
  now_ += cost;
  return 0;
}

// ---- host synchronisation -------------------------------------------------

void sim_device::observe(std::uint64_t id) { host_clock_.join(ops_[id].clock); }

// A wait for work during which the context fails returns the failure, like any later call
// (the host then knows nothing of that work: nothing is observed).
backend_status sim_device::synchronize(stream_handle stream) {
  std::lock_guard lock(mutex_);
  if (!valid_stream(stream)) return status_invalid_handle;
  if (const auto failure = context_failed(config_.api_cost)) return seen(*failure);
  if (const auto tail = streams_[stream].tail) {
    const bool done = run_until_done(*tail);  // false: a deadlock, reported
    if (fault_) return seen(*fault_);
    if (done) observe(*tail);
  }
  now_ += config_.api_cost;
  return 0;
}

backend_status sim_device::synchronize_event(event_handle event) {
  std::lock_guard lock(mutex_);
  if (!valid_event(event)) return status_invalid_handle;
  if (const auto failure = context_failed(config_.api_cost)) return *failure;
  if (const auto record = events_[event - 1].record) {
    const bool done = run_until_done(*record);
    if (fault_) return *fault_;
    if (done) observe(*record);
  }
  now_ += config_.api_cost;
  return 0;
}

backend_status sim_device::synchronize_device() {
  std::lock_guard lock(mutex_);
  run_until(now_);
  for (std::uint64_t id = 0; id < ops_.size(); ++id) {
    if (!run_until_done(id)) break;
    if (!fault_) observe(id);
  }
  now_ += config_.api_cost;
  return fault_.value_or(0);
}

// cudaDeviceSynchronize: the work of the device's streams, pool streams included; what it
// waited for across devices (event waits) is known through its clocks.
backend_status sim_device::synchronize_device(unsigned device) {
  std::lock_guard lock(mutex_);
  if (device >= config_.devices) return status_invalid_value;
  run_until(now_);
  for (std::uint64_t id = 0; id < ops_.size(); ++id) {
    if (op_device(id) != device) continue;
    if (!run_until_done(id)) break;
    if (!fault_) observe(id);
  }
  now_ += config_.api_cost;
  return fault_.value_or(0);
}

bool sim_device::query_stream(stream_handle stream, backend_status* status) {
  std::lock_guard lock(mutex_);
  if (status != nullptr) *status = 0;
  if (!valid_stream(stream)) return false;
  if (const auto failure = context_failed(config_.api_cost)) {
    if (status != nullptr) *status = *failure;
    return false;
  }
  now_ += config_.api_cost;
  const auto tail = streams_[stream].tail;
  if (tail && ops_[*tail].at != phase::done) return false;
  if (tail) observe(*tail);
  return true;
}

value sim_device::host_read(cell c) {
  std::lock_guard lock(mutex_);
  if (c >= config_.cells) throw std::out_of_range("host_read: no such cell");
  run_until(now_);
  host_clock_.set(0, ++host_ticks_);
  checker_.read(c, {host_op, 0, host_ticks_}, host_clock_);
  return memory_[c];
}

void sim_device::fail_calls(api_call which, unsigned count, backend_status status, unsigned after) {
  std::lock_guard lock(mutex_);
  failures_[static_cast<std::size_t>(which)] = {after, count, status};
}

void sim_device::fault_when_done(std::uint64_t kernel_id, backend_status status) {
  std::lock_guard lock(mutex_);
  faulting_kernel_ = kernel_id;
  fault_status_ = status;
}

bool sim_device::faulted() const {
  std::lock_guard lock(mutex_);
  return fault_.has_value();
}

void sim_device::failure_observed() {
  std::lock_guard lock(mutex_);
  failure_seen_ = true;
}

// ---- the device -------------------------------------------------------------

std::uint64_t sim_device::enqueue(op o, stream_handle stream, std::optional<std::uint64_t> extra) {
  return extra ? enqueue_after(std::move(o), stream, std::span(&*extra, 1)) : enqueue_after(std::move(o), stream, {});
}

std::uint64_t sim_device::enqueue_after(op o, stream_handle stream, std::span<const std::uint64_t> extra) {
  const std::uint64_t id = ops_.size();
  stream_state& s = streams_[stream];
  std::vector<std::uint64_t> deps(extra.begin(), extra.end());
  if (s.tail) deps.push_back(*s.tail);
  // Legacy-stream implicit synchronisation, within one device. Destroyed streams count
  // too: their work still runs.
  if (s.kind == stream_kind::legacy) {
    for (const stream_state& b : streams_)
      if (b.kind == stream_kind::blocking && b.device == s.device && b.tail) deps.push_back(*b.tail);
  } else if (s.kind == stream_kind::blocking && streams_[legacy_stream_of(s.device)].tail) {
    deps.push_back(*streams_[legacy_stream_of(s.device)].tail);
  }

  o.stream = stream;
  o.clock = host_clock_;
  for (std::uint64_t d : deps) {
    // Happens-before holds whether or not the dependency has completed yet.
    o.clock.join(ops_[d].clock);
    if (ops_[d].at != phase::done) {
      ++o.pending;
      ops_[d].dependents.push_back(id);
    }
  }
  o.tick = ++s.ticks;
  o.clock.set(timeline(stream), o.tick);
  o.previous = s.tail;
  s.tail = id;
  const bool ready = o.pending == 0;
  ops_.push_back(std::move(o));
  note_queued_behind(id);
  if (ready) ready_.push_back(id);
  dispatch();
  return id;
}

// Starts everything that can start at the current device time.
void sim_device::dispatch() {
  for (;;) {
    if (!ready_.empty()) {
      const std::uint64_t id = ready_.front();
      ready_.pop_front();
      if (ops_[id].uses_slot) {
        slot_queue_.push_back(id);
      } else {
        start(id);
      }
    } else {
      // Of the devices with a free slot, the first of the most urgent streams' (FIFO among
      // equals: all of them without priorities). Devices do not compete for slots.
      auto next = slot_queue_.end();
      for (auto it = slot_queue_.begin(); it != slot_queue_.end(); ++it) {
        if (busy_slots_[op_device(*it)] >= config_.concurrency) continue;
        if (next == slot_queue_.end() || streams_[ops_[*it].stream].priority < streams_[ops_[*next].stream].priority)
          next = it;
      }
      if (next == slot_queue_.end()) return;
      const std::uint64_t id = *next;
      const unsigned d = op_device(id);
      slot_queue_.erase(next);
      ++busy_slots_[d];
      peak_slots_[d] = std::max(peak_slots_[d], busy_slots_[d]);
      start(id);
    }
  }
}

void sim_device::start(std::uint64_t id) {
  op& o = ops_[id];
  o.at = phase::running;
  o.start = device_now_;
  const access_tag tag{id, timeline(o.stream), o.tick};
  for (cell c : o.effect.reads) {
    checker_.read(c, tag, o.clock);
    o.read_values.push_back(memory_[c]);
  }
  if (o.waits_for != 0 && !finished_kernels_.contains(o.waits_for)) {
    // It runs until that kernel finished, but lends its slot meanwhile: the device models
    // deadlocks of order (a kernel queued behind one that waits for it), not a GPU that
    // spinning blocks fill, which CUDA does not promise to avoid either.
    spinning_[o.waits_for].push_back(id);
    if (o.uses_slot) {
      --busy_slots_[op_device(id)];
      o.slot_lent = true;
    }
  } else if (o.duration == 0) {
    finish(id);
  } else {
    running_.push({device_now_ + o.duration, id});
  }
}

void sim_device::finish(std::uint64_t id) {
  op& o = ops_[id];
  const access_tag tag{id, timeline(o.stream), o.tick};
  const std::vector<value> out = outputs(o.effect, o.read_values);
  for (std::size_t i = 0; i < out.size(); ++i) {
    checker_.write(o.effect.writes[i], tag, o.clock);
    memory_[o.effect.writes[i]] = out[i];
  }
  o.at = phase::done;
  o.end = device_now_;
  if (faulting_kernel_ && (o.kind == op_kind::kernel || o.kind == op_kind::library_call) &&
      o.kernel_id == *faulting_kernel_ && !fault_)
    fault_ = fault_status_;
  last_completion_ = std::max(last_completion_, device_now_);
  if (o.uses_slot && !o.slot_lent) --busy_slots_[op_device(id)];
  if (o.kind == op_kind::kernel || o.kind == op_kind::library_call) {
    finished_kernels_.insert(o.kernel_id);
    if (const auto it = spinning_.find(o.kernel_id); it != spinning_.end()) {
      for (std::uint64_t spinner : it->second)
        running_.push({std::max(device_now_, ops_[spinner].start + ops_[spinner].duration), spinner});
      spinning_.erase(it);
    }
  }
  for (std::uint64_t d : o.dependents)
    if (--ops_[d].pending == 0) ready_.push_back(d);
}

void sim_device::run_until(nanos t) {
  dispatch();
  while (!running_.empty() && running_.top().first <= t) {
    const auto [end, id] = running_.top();
    running_.pop();
    device_now_ = end;
    finish(id);
    dispatch();
  }
  device_now_ = std::max(device_now_, t);
}

bool sim_device::run_until_done(std::uint64_t id) {
  dispatch();
  while (ops_[id].at != phase::done) {
    // Dependencies point only to earlier operations, so work is always running, unless
    // kernels spin for kernels that cannot start: a deadlock, which a real GPU never ends.
    if (running_.empty()) {
      if (spinning_.empty()) throw std::logic_error("sim_device: no progress (simulator bug)");
      if (deadlock_.empty()) {
        std::ostringstream out;
        out << "the host waits for " << describe_op(id) << ", which can never finish:";
        for (const auto& [awaited, spinners] : spinning_)
          for (std::uint64_t sp : spinners) out << ' ' << describe_op(sp) << " spins for kernel " << awaited << ';';
        deadlock_ = out.str();
      }
      return false;
    }
    const auto [end, next] = running_.top();
    running_.pop();
    device_now_ = end;
    finish(next);
    dispatch();
  }
  now_ = std::max(now_, device_now_);
  return true;
}

// Rule 12's record: what a kernel enqueued on a pool stream waits behind there, unfinished:
// the kernels before it, and the kernels that the waits before it are for (one step back
// from the record a wait binds to). Stream order: once an op is done, so is all before it.
void sim_device::note_queued_behind(std::uint64_t id) {
  const op& o = ops_[id];
  if (o.kind != op_kind::kernel || streams_[o.stream].origin != stream_origin::pool) return;
  note_queued_behind_from(o.kernel_id, o.previous);
}

void sim_device::note_queued_behind_from(std::uint64_t kernel_id, std::optional<std::uint64_t> at) {
  for (; at && ops_[*at].at != phase::done; at = ops_[*at].previous) {
    const op& before = ops_[*at];
    if (before.kind == op_kind::kernel) queued_behind_.push_back({before.kernel_id, kernel_id});
    if (before.kind != op_kind::wait || !before.bound_to) continue;
    const op& record = ops_[*before.bound_to];
    if (!record.previous) continue;
    const op& awaited = ops_[*record.previous];
    if (awaited.at != phase::done && (awaited.kind == op_kind::kernel || awaited.kind == op_kind::library_call))
      queued_behind_.push_back({awaited.kernel_id, kernel_id});
  }
}

}  // namespace acs::sim
