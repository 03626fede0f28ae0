#include "scenario.hpp"

#include <sstream>

namespace acs::sim {
namespace {

// The scheduler's key for a stream: any unique value will do.
std::uintptr_t key_of(stream_handle h) noexcept { return h + 1; }

memory_effect effect_of(const kernel& k) { return {memory_effect::rule::hash, k.id, k.reads, k.writes}; }

}  // namespace

scenario::scenario(device_config device, scheduler_config config, address_layout at)
    : sim(device), acs(sim, config), layout(at) {}

virtual_stream scenario::legacy() const {
  return {key_of(sim_device::legacy_stream), sim_device::legacy_stream, stream_kind::legacy};
}

virtual_stream scenario::stream(stream_kind kind, int priority) {
  if (kind == stream_kind::legacy) return legacy();
  const stream_handle h = sim.create_app_stream(kind, priority);
  return {key_of(h), h, kind, priority};
}

const kernel& scenario::make_kernel(nanos duration, std::vector<cell> reads, std::vector<cell> writes) {
  return kernels_.emplace_back(kernel{next_kernel_id_++, duration, std::move(reads), std::move(writes)});
}

const kernel& scenario::make_spinner(const kernel& setter, nanos duration, std::vector<cell> reads,
                                     std::vector<cell> writes) {
  kernel& k = kernels_.emplace_back(kernel{next_kernel_id_++, duration, std::move(reads), std::move(writes)});
  k.waits_for = setter.id;
  return k;
}

backend_status scenario::launch(const virtual_stream& s, const kernel& k) {
  return launch(s, k, footprint_of(k, layout));
}

backend_status scenario::launch(const virtual_stream& s, const kernel& k, const access_set& declared,
                                std::uint64_t group) {
  const backend_status status = acs.launch(s, declared, &k, group);
  if (status == 0) program_.push_back(effect_of(k));
  return status;
}

backend_status scenario::launch_in_order(const virtual_stream& s, const kernel& k) {
  const backend_status status = acs.launch_in_order(s, &k);
  if (status == 0) program_.push_back(effect_of(k));
  return status;
}

void scenario::copy(const virtual_stream& s, cell dst, cell src, std::uint32_t count, nanos duration) {
  acs.before_barrier(s);
  EXPECT_EQ(sim.copy(s.handle, dst, src, count, duration), 0);
  program_.push_back({memory_effect::rule::copy, 0, cells(src, count), cells(dst, count)});
  acs.barrier(s);
}

void scenario::fill(const virtual_stream& s, cell first, std::uint32_t count, value v, nanos duration) {
  acs.before_barrier(s);
  EXPECT_EQ(sim.fill(s.handle, first, count, v, duration), 0);
  program_.push_back({memory_effect::rule::fill, v, {}, cells(first, count)});
  acs.barrier(s);
}

void scenario::host_function(const virtual_stream& s, const kernel& k) {
  acs.before_barrier(s);
  EXPECT_EQ(sim.host_function(s.handle, k), 0);
  program_.push_back(effect_of(k));
  acs.barrier(s);
}

void scenario::library_call(const virtual_stream& s, const kernel& k) {
  acs.before_barrier(s);
  EXPECT_EQ(sim.library_call(s.handle, k), 0);
  program_.push_back(effect_of(k));
  acs.barrier(s);
}

void scenario::marker(const virtual_stream& s) {
  acs.before_barrier(s);
  EXPECT_EQ(sim.marker(s.handle), 0);
  acs.barrier(s);
}

event_handle scenario::record(const virtual_stream& s) {
  acs.before_barrier(s);
  event_handle e = 0;
  EXPECT_EQ(sim.create_event(&e), 0);
  EXPECT_EQ(sim.record_event(e, s.handle), 0);
  acs.barrier(s);
  return e;
}

void scenario::wait(const virtual_stream& s, event_handle e) {
  acs.before_barrier(s);
  EXPECT_EQ(sim.wait_event(s.handle, e), 0);
  acs.barrier(s);
}

void scenario::sync_stream(const virtual_stream& s) {
  const std::uint64_t point = acs.join(s);
  EXPECT_EQ(sim.synchronize(s.handle), 0);
  acs.synchronized(s.key, point);
}

void scenario::sync_device() {
  const std::uint64_t point = scheduler::sync_point();
  acs.drain();
  sim.synchronize_device();
  acs.device_synchronized(point);
}

::testing::AssertionResult scenario::host_reads_serial_value(cell c) {
  serial_memory expected(static_cast<std::uint32_t>(sim.memory().size()));
  for (const memory_effect& e : program_) expected.apply(e);
  const std::size_t races_before = sim.races().size();
  const value got = sim.host_read(c);
  if (sim.races().size() != races_before)
    return ::testing::AssertionFailure() << "the host read of cell " << c << " races:\n"
                                         << sim.explain_races();
  if (got != expected[c])
    return ::testing::AssertionFailure()
           << "the host read cell " << c << " = " << got << ", serial execution has " << expected[c];
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult scenario::matches_serial() {
  sync_device();
  if (sim.deadlocked()) return ::testing::AssertionFailure() << "deadlock: " << sim.deadlock_report();
  if (!sim.races().empty())
    return ::testing::AssertionFailure() << sim.races().size() << " race(s):\n" << sim.explain_races();
  const std::vector<value> got = sim.memory();
  serial_memory expected(static_cast<std::uint32_t>(got.size()));
  for (const memory_effect& e : program_) expected.apply(e);
  std::ostringstream diff;
  for (cell c = 0; c < got.size(); ++c)
    if (got[c] != expected[c]) diff << " " << c;
  if (!diff.str().empty())
    return ::testing::AssertionFailure() << "cells differ from serial execution:" << diff.str();
  return ::testing::AssertionSuccess();
}

op_span scenario::span(const kernel& k) const {
  const auto s = sim.kernel_span(k.id);
  EXPECT_TRUE(s.has_value()) << "kernel " << k.id << " never ran";
  return s.value_or(op_span{});
}

bool overlap(const op_span& a, const op_span& b) noexcept { return a.start < b.end && b.start < a.end; }

std::string kind_name(const ::testing::TestParamInfo<stream_kind>& info) { return name(info.param); }

}  // namespace acs::sim
