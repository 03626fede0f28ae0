#pragma once
// Randomly generated application programs for the property test: several
// virtual streams (the legacy stream among them) of different priorities,
// kernels with random and loosely declared footprints, annotation scopes,
// kernels that spin until a kernel of another stream has run, barriers of
// every kind and host syncs. Every program is race-free as an application: whenever an
// operation would conflict with unordered work of another stream, the
// generator first orders them the way an application would (an event, a
// stream or event sync, a device sync). So any race or difference from serial
// execution under acs is acs's fault.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/byte_range.hpp"
#include "footprint.hpp"
#include "scheduler/scheduler.hpp"
#include "sim_device.hpp"

namespace acs::sim {

// One of acs's own calls failing during a launch (never the launch itself,
// whose status the application sees): acs must fall back, not lose order.
struct own_call_failure {
  api_call which = api_call::record_event;
  unsigned after = 0;  // successful calls of that kind first
  unsigned count = 1;
};

struct program_step {
  enum class kind : std::uint8_t {
    launch,        // through acs
    library_call,  // the rest is issued on the stream directly, then a barrier
    host_function,
    copy,
    fill,
    marker,
    record,
    wait,
    sync_stream,  // host syncs, then the scheduler is told
    sync_event,
    sync_device,
    query_stream,  // the scheduler is told only if the stream was idle
    host_read,
    unload,  // code unloaded (cuModuleUnload): every device's scheduler is told (code_unloading); nothing runs
  };
  kind what = kind::marker;
  unsigned stream = 0;      // index into program::streams
  std::size_t kernel = 0;   // launch, library_call, host_function: index into program::kernels
  access_set declared{};    // launch: what acs is told
  std::uint64_t group = 0;  // launch: annotation scope, 0 if none
  std::optional<own_call_failure> failure{};  // launch: injected while acs dispatches it
  bool rejected = false;  // launch: the launch itself fails (a bad configuration): nothing runs
  bool in_order = false;  // launch: as a launch of a stream acs stepped aside from (launch_in_order)
  bool relayed = false;   // launch: the same under ACS_RELAY (scheduler::relay); wins over in_order
  unsigned event = 0;                         // record, wait, sync_event: index of the application's event
  cell dst = 0;                               // copy, fill; host_read: the cell read
  cell src = 0;                               // copy
  std::uint32_t count = 0;                    // copy, fill
  value fill_value = 0;
  nanos duration = 0;  // copy, fill
  unsigned device = every_device;  // sync_device: that device only, or every device
  static constexpr unsigned every_device = ~0u;
};

struct program {
  std::uint64_t seed = 0;
  device_config device;
  scheduler_config config;
  address_layout layout;  // where the cells are, in what acs is told
  std::vector<stream_kind> streams;
  std::vector<int> priorities;  // per stream: CUDA's stream priority (0 for the legacy stream)
  std::vector<unsigned> stream_devices;  // per stream: its device (device.devices of them)
  unsigned events = 0;
  std::vector<unsigned> event_devices;  // per event: the device it is created (and recorded) on
  // Several devices: cells [owned_from[d], owned_from[d + 1]) belong to device d (the rest to
  // none); without peer access a kernel touches only its own device's cells and those.
  std::vector<cell> owned_from;
  bool peer_access = true;
  std::vector<kernel> kernels;
  std::vector<program_step> steps;
  // A context failure (sim_device::fault_when_done): once this kernel has run, every call fails,
  // as after a kernel fault. Index into kernels; none by default.
  std::optional<std::size_t> fault_kernel{};
};

program generate_program(std::uint64_t seed);
program generate_multigpu_program(std::uint64_t seed);

// The same program with one of its launched kernels made to fault (chosen from the seed); the
// program itself unchanged. False when it launches nothing.
bool add_fault(program& p);

// A listing of the program, for replaying a failure by hand.
std::string describe(const program& p);

}  // namespace acs::sim
