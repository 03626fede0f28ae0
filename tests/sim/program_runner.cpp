#include "program_runner.hpp"

#include <memory>
#include <optional>
#include <sstream>

#include "footprint.hpp"

namespace acs::sim {
namespace {

using step_kind = program_step::kind;

constexpr backend_status own_call_error = 2;  // cudaErrorMemoryAllocation
constexpr backend_status rejected_launch = 9;  // cudaErrorInvalidConfiguration
constexpr backend_status context_error = 719;  // cudaErrorLaunchFailure: sticky

memory_effect effect_of(const kernel& k) { return {memory_effect::rule::hash, k.id, k.reads, k.writes}; }

class runner {
 public:
  // One scheduler per device, each given its device's backend (sim_device::on), as the runtime
  // has one per primary context (src/runtime/devices.hpp).
  runner(const program& p, execution how) : p_(p), how_(how), sim_(p.device), naive_(p.device.devices) {
    const unsigned devices = p.device.devices;
    if (how_ == execution::through_acs)
      for (unsigned d = 0; d < devices; ++d) acs_.push_back(std::make_unique<scheduler>(sim_.on(d), p.config));
    if (p.fault_kernel) sim_.fault_when_done(p.kernels[*p.fault_kernel].id, context_error);
    if (devices > 1) {
      for (unsigned d = 0; d < devices; ++d) {
        sim_.assign_cells(p.owned_from[d], p.owned_from[d + 1] - p.owned_from[d], d);
        for (unsigned to = 0; to < devices; ++to)
          if (p.peer_access && to != d) sim_.enable_peer_access(d, to);
      }
    }
    for (std::size_t i = 0; i < p.streams.size(); ++i) {
      const stream_kind kind = p.streams[i];
      const int priority = p.priorities[i];
      const unsigned d = device_of_stream(i);
      const stream_handle h =
          kind == stream_kind::legacy ? sim_device::legacy_stream_of(d) : sim_.create_app_stream(kind, priority, d);
      streams_.push_back({h + 1, h, kind, priority});
    }
    for (unsigned i = 0; i < p.events; ++i)
      check(sim_.create_event_on(p.event_devices.empty() ? 0 : p.event_devices[i], &events_.emplace_back()),
            "create_event");
    if (how_ == execution::naive_redirect) {
      for (unsigned d = 0; d < devices; ++d)
        for (unsigned i = 0; i < p.config.streams; ++i)
          check(sim_.on(d).create_stream(&naive_[d].emplace_back()), "create_stream");
    }
  }

  program_outcome run() {
    for (std::size_t i = 0; i < p_.steps.size(); ++i) {
      step_ = i;
      play(p_.steps[i]);
    }
    step_ = p_.steps.size();
    sync_devices(program_step::every_device, "final synchronize_device");
    for (const auto& acs : acs_) out_.stats += acs->stats();
    for (const std::string& m : sim_.misuses()) out_.failures.push_back("per-device scheduler: " + m);
    out_.context_failed = sim_.faulted();
    out_.graphs = sim_.graph_counts();
    // The faulting kernel's launch was accepted, so it must have run (and the failure come back).
    if (fault_launched_ && !out_.context_failed) out_.failures.push_back("the faulting kernel was accepted but never ran");
    if (sim_.deadlocked()) out_.failures.push_back("deadlock: " + sim_.deadlock_report());
    for (const race& r : sim_.races()) out_.races.push_back(sim_.explain(r));
    if (!acs_.empty()) check_streams_apart();
    out_.memory = sim_.memory();
    return std::move(out_);
  }

 private:
  unsigned device_of_stream(std::size_t v) const { return p_.stream_devices.empty() ? 0 : p_.stream_devices[v]; }
  scheduler* acs_of(unsigned v) const { return acs_.empty() ? nullptr : acs_[device_of_stream(v)].get(); }

  // cudaDeviceSynchronize of one device (or of each): acs issues what it queued there first.
  void sync_devices(unsigned device, const char* what) {
    const std::uint64_t point = scheduler::sync_point();
    for (unsigned d = 0; d < acs_.size(); ++d)
      if (device == program_step::every_device || device == d) acs_[d]->drain();
    const backend_status st =
        device == program_step::every_device ? sim_.synchronize_device() : sim_.synchronize_device(device);
    check(st, what);
    if (st != 0) return;
    for (unsigned d = 0; d < acs_.size(); ++d)
      if (device == program_step::every_device || device == d) acs_[d]->device_synchronized(point);
  }

  void check(backend_status status, const char* what) {
    if (p_.fault_kernel) return check_under_fault(status, what);
    if (status != 0)
      out_.failures.push_back("step " + std::to_string(step_) + ": " + what + " returned " +
                              std::to_string(status));
  }

  // The context fails at some point: every call from then on fails in CUDA. The program must get
  // that failure as it would from CUDA: any call may be the first to return it, but once one has,
  // every later call returns it too (a launch acs would defer included).
  void check_under_fault(backend_status status, const char* what) {
    const std::string where = "step " + std::to_string(step_) + ": " + what;
    if (status == context_error) {
      sim_.failure_observed();  // as acs's hooks report every call that failed
      if (!error_step_) error_step_ = step_;
    } else if (status != 0 && status != rejected_launch) {
      out_.failures.push_back(where + " returned " + std::to_string(status));
    } else if (status == 0 && error_step_) {
      out_.failures.push_back(where + " succeeded after step " + std::to_string(*error_step_) +
                              " had returned the context failure");
    }
  }

  // Rule 12: no kernel was queued on a pool stream behind unfinished work of another stream,
  // and every kernel ran on a pool stream of its stream's priority, or in place on its stream.
  void check_streams_apart() {
    std::vector<int> stream_of(p_.kernels.size() + 1, -1);  // by kernel id
    for (const program_step& s : p_.steps)
      if (s.what == step_kind::launch || s.what == step_kind::library_call || s.what == step_kind::host_function)
        stream_of[p_.kernels[s.kernel].id] = static_cast<int>(s.stream);
    for (const sim_device::queued_pair& q : sim_.queued_behind())
      if (stream_of[q.earlier] != stream_of[q.later])
        out_.apart.push_back("kernel " + std::to_string(q.later) + " (s" + std::to_string(stream_of[q.later]) +
                             ") was queued behind kernel " + std::to_string(q.earlier) + " (s" +
                             std::to_string(stream_of[q.earlier]) + ") on a pool stream");
    for (const program_step& s : p_.steps) {
      if (s.what != step_kind::launch || s.rejected) continue;
      const kernel& k = p_.kernels[s.kernel];
      const std::optional<stream_handle> ran_on = sim_.kernel_stream(k.id);
      if (!ran_on) continue;  // its launch failed: reported as such
      const virtual_stream& vs = streams_[s.stream];
      if (sim_.device_of(*ran_on) != device_of_stream(s.stream))
        out_.apart.push_back("kernel " + std::to_string(k.id) + " of s" + std::to_string(s.stream) + " (device " +
                             std::to_string(device_of_stream(s.stream)) + ") ran on stream " +
                             std::to_string(*ran_on) + " of device " + std::to_string(sim_.device_of(*ran_on)));
      if (sim_.is_pool_stream(*ran_on) ? sim_.priority(*ran_on) != vs.priority : *ran_on != vs.handle)
        out_.apart.push_back("kernel " + std::to_string(k.id) + " of s" + std::to_string(s.stream) + " (priority " +
                             std::to_string(vs.priority) + ") ran on stream " + std::to_string(*ran_on) +
                             " of priority " + std::to_string(sim_.priority(*ran_on)));
    }
  }

  void play(const program_step& s) {
    const virtual_stream& vs = streams_[s.stream];
    scheduler* const acs = acs_of(s.stream);
    const auto before_barrier = [&](const virtual_stream& v) {
      if (acs != nullptr) acs->before_barrier(v);
    };
    switch (s.what) {
      case step_kind::launch: {
        const kernel& k = p_.kernels[s.kernel];
        const auto through_acs = [&] {
          if (s.relayed) return acs->relay(vs, &k);
          return s.in_order ? acs->launch_in_order(vs, &k) : acs->launch(vs, s.declared, &k, s.group);
        };
        if (s.rejected) {
          sim_.fail_calls(api_call::launch, 1, rejected_launch);
          const backend_status st = acs != nullptr ? through_acs() : sim_.launch(&k, vs.handle);
          sim_.fail_calls(api_call::launch, 0, 0);
          if (st != rejected_launch) check(st == 0 ? own_call_error : st, "rejected launch (not its own error)");
          return;
        }
        if (acs != nullptr) {
          if (s.failure)
            sim_.fail_calls(s.failure->which, s.failure->count, own_call_error, s.failure->after);
          const backend_status st = through_acs();
          check(st, "launch");
          if (st == 0 && p_.fault_kernel && s.kernel == *p_.fault_kernel) fault_launched_ = true;
          if (s.failure) sim_.fail_calls(s.failure->which, 0, 0);
        } else if (how_ == execution::naive_redirect) {
          const std::vector<stream_handle>& pool = naive_[device_of_stream(s.stream)];
          check(sim_.launch(&k, pool[next_naive_++ % pool.size()]), "launch");
        } else {
          check(sim_.library_call(vs.handle, k), "launch");
        }
        return;
      }
      case step_kind::library_call:
        before_barrier(vs);  // anything issued on the stream directly is bracketed
        check(sim_.library_call(vs.handle, p_.kernels[s.kernel]), "library_call");
        break;
      case step_kind::host_function:
        before_barrier(vs);
        check(sim_.host_function(vs.handle, p_.kernels[s.kernel]), "host_function");
        break;
      case step_kind::copy: before_barrier(vs); check(sim_.copy(vs.handle, s.dst, s.src, s.count, s.duration), "copy"); break;
      case step_kind::fill:
        before_barrier(vs);
        check(sim_.fill(vs.handle, s.dst, s.count, s.fill_value, s.duration), "fill");
        break;
      case step_kind::marker: before_barrier(vs); check(sim_.marker(vs.handle), "marker"); break;
      case step_kind::record: before_barrier(vs); check(sim_.record_event(events_[s.event], vs.handle), "record_event"); break;
      case step_kind::wait: before_barrier(vs); check(sim_.wait_event(vs.handle, events_[s.event]), "wait_event"); break;
      case step_kind::sync_stream: {
        const std::uint64_t point = acs != nullptr ? acs->join(vs) : 0;
        const backend_status st = sim_.synchronize(vs.handle);
        check(st, "synchronize");
        if (acs != nullptr && st == 0) acs->synchronized(vs.key, point);
        return;
      }
      case step_kind::sync_event: check(sim_.synchronize_event(events_[s.event]), "synchronize_event"); return;
      case step_kind::sync_device: sync_devices(s.device, "synchronize_device"); return;
      case step_kind::query_stream: {
        const std::uint64_t point = acs != nullptr ? acs->join(vs) : 0;
        backend_status st = 0;
        const bool idle = sim_.query_stream(vs.handle, &st);
        check(st, "query_stream");
        if (idle && acs != nullptr) acs->synchronized(vs.key, point);
        return;
      }
      case step_kind::unload:
        for (const auto& device : acs_)
          if (device) device->code_unloading();
        return;
      case step_kind::host_read:
        // After a context failure the program could not have synchronised: it reads nothing.
        if (!sim_.faulted()) out_.host_reads.push_back(sim_.host_read(s.dst));
        return;
    }
    if (acs != nullptr) acs->barrier(vs);
  }

  const program& p_;
  execution how_;
  sim_device sim_;
  std::vector<std::unique_ptr<scheduler>> acs_;  // per device; destroyed before the device they use
  std::vector<virtual_stream> streams_;
  std::vector<event_handle> events_;
  std::vector<std::vector<stream_handle>> naive_;  // per device
  std::size_t next_naive_ = 0;
  std::size_t step_ = 0;
  std::optional<std::size_t> error_step_;  // the first step that returned the context failure
  bool fault_launched_ = false;
  program_outcome out_;
};

}  // namespace

program_outcome run_program(const program& p, execution how) { return runner(p, how).run(); }

serial_outcome run_serial(const program& p) {
  serial_memory memory(p.device.cells);
  serial_outcome out;
  for (const program_step& s : p.steps) {
    switch (s.what) {
      case step_kind::launch:
        if (!s.rejected) memory.apply(effect_of(p.kernels[s.kernel]));
        break;
      case step_kind::library_call:
      case step_kind::host_function: memory.apply(effect_of(p.kernels[s.kernel])); break;
      case step_kind::copy:
        memory.apply({memory_effect::rule::copy, 0, cells(s.src, s.count), cells(s.dst, s.count)});
        break;
      case step_kind::fill:
        memory.apply({memory_effect::rule::fill, s.fill_value, {}, cells(s.dst, s.count)});
        break;
      case step_kind::host_read: out.host_reads.push_back(memory[s.dst]); break;
      default: break;
    }
  }
  out.memory = memory.cells();
  return out;
}

std::string compare(const serial_outcome& expected, const program_outcome& got) {
  std::ostringstream out;
  for (const std::string& f : got.failures) out << f << '\n';
  for (std::size_t i = 0; i < got.apart.size() && i < 5; ++i) out << "rule 12: " << got.apart[i] << '\n';
  const std::size_t shown = got.races.size() < 5 ? got.races.size() : 5;
  for (std::size_t i = 0; i < shown; ++i) out << got.races[i] << '\n';
  if (got.races.size() > shown) out << "... " << got.races.size() - shown << " more race(s)\n";
  if (got.context_failed) return out.str();  // serial execution does not model the failure
  std::ostringstream cells_differ;
  for (std::size_t c = 0; c < expected.memory.size() && c < got.memory.size(); ++c)
    if (expected.memory[c] != got.memory[c]) cells_differ << ' ' << c;
  if (!cells_differ.str().empty()) out << "cells differ from serial execution:" << cells_differ.str() << '\n';
  for (std::size_t i = 0; i < expected.host_reads.size() && i < got.host_reads.size(); ++i)
    if (expected.host_reads[i] != got.host_reads[i])
      out << "host read #" << i << " differs from serial execution\n";
  return out.str();
}

}  // namespace acs::sim
