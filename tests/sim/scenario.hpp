#pragma once
// One hand-written program for a rule test: a simulated device, a scheduler on
// it, and the application's side (its streams, its direct work followed by
// barriers, its syncs). Everything issued through a scenario is also kept in
// issue order, so that the final state can be compared with serial execution.
// Single-threaded use only.
#include <deque>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "footprint.hpp"
#include "scheduler/scheduler.hpp"
#include "sim_device.hpp"

namespace acs::sim {

class scenario {
 public:
  explicit scenario(device_config device = {}, scheduler_config config = {},
                    address_layout layout = default_layout);

  sim_device sim;
  scheduler acs;
  address_layout layout;  // where the cells are, in what acs is told

  virtual_stream legacy() const;
  // A new application stream of `kind` and `priority`; the legacy stream for stream_kind::legacy.
  virtual_stream stream(stream_kind kind, int priority = 0);

  // A kernel the scenario owns (stable address), with a fresh id.
  const kernel& make_kernel(nanos duration, std::vector<cell> reads, std::vector<cell> writes);
  // A kernel that cannot finish before `setter` has (kernel::waits_for): it spins on a flag
  // that `setter` sets.
  const kernel& make_spinner(const kernel& setter, nanos duration, std::vector<cell> reads, std::vector<cell> writes);

  // Through acs, declared exactly (in `layout`) / as given.
  backend_status launch(const virtual_stream& s, const kernel& k);
  backend_status launch(const virtual_stream& s, const kernel& k, const access_set& declared,
                        std::uint64_t group = 0);
  // Through acs, as a launch of a stream acs stepped aside from (scheduler::launch_in_order).
  backend_status launch_in_order(const virtual_stream& s, const kernel& k);

  // Work the application issues on `s` directly, each followed by acs's barrier.
  void copy(const virtual_stream& s, cell dst, cell src, std::uint32_t count, nanos duration);
  void fill(const virtual_stream& s, cell first, std::uint32_t count, value v, nanos duration);
  void host_function(const virtual_stream& s, const kernel& k);
  void library_call(const virtual_stream& s, const kernel& k);
  void marker(const virtual_stream& s);
  event_handle record(const virtual_stream& s);  // a new event recorded on s
  void wait(const virtual_stream& s, event_handle e);

  // Host syncs as the interposer brackets them: a sync point, the sync, the report.
  void sync_stream(const virtual_stream& s);
  void sync_device();

  // Checked reads of one cell by the host; the expected value is the serial one.
  ::testing::AssertionResult host_reads_serial_value(cell c);

  // Synchronises the device, then: no deadlock, no race, and memory equal to serial execution.
  ::testing::AssertionResult matches_serial();

  // The kernel's span; fails the test if it never ran.
  op_span span(const kernel& k) const;

 private:
  std::deque<kernel> kernels_;
  std::uint64_t next_kernel_id_ = 1;
  std::vector<memory_effect> program_;
};

// Whether two spans of simulated time overlap.
bool overlap(const op_span& a, const op_span& b) noexcept;

inline constexpr nanos long_kernel = 100'000;
inline constexpr nanos short_kernel = 1'000;

// Room for concurrency: a window and pool wider than any rule test needs.
inline constexpr scheduler_config roomy{.window = 32, .streams = 4};

std::string kind_name(const ::testing::TestParamInfo<stream_kind>& info);

}  // namespace acs::sim
