#pragma once
// What the tracer collects, in CUDA-free form: GPU activity (from CUPTI's
// activity records) and acs's own dispatch decisions (from the scheduler's
// dispatch_observer). Everything here is plain data, so that joining,
// measuring and JSON writing are tested on the CPU with synthetic records.
//
// Launch ids. Each scheduler numbers its launches from 1; a scheduler is
// created per device and may be created again after a device reset. The tracer
// therefore tags every launch id with the observer that saw it:
//   external id = observer tag << launch_id_bits | launch id
// and that external id is what CUPTI's external correlation carries.
#include <cstdint>
#include <string>
#include <vector>

namespace acs::trace {

using name_id = std::uint32_t;

inline constexpr unsigned launch_id_bits = 40;
inline constexpr std::uint64_t launch_id_mask = (std::uint64_t{1} << launch_id_bits) - 1;

/// @brief The external correlation id of launch `launch_id` seen by observer `tag`.
constexpr std::uint64_t external_id(std::uint64_t tag, std::uint64_t launch_id) noexcept {
  return tag << launch_id_bits | (launch_id & launch_id_mask);
}
/// @brief The scheduler's own launch id inside an external id.
constexpr std::uint64_t launch_of(std::uint64_t external) noexcept { return external & launch_id_mask; }

// One kernel execution. Times are CUPTI timestamps (ns, CPU-synchronised clock).
struct kernel_record {
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::uint32_t device = 0;       // CUPTI device id (the CUDA device ordinal)
  std::uint32_t stream = 0;       // CUPTI stream id: one per CUstream, pool or application
  std::uint32_t correlation = 0;  // CUPTI correlation id of the launching API call
  name_id name = 0;               // mangled kernel name, in the names table
};

enum class copy_kind : std::uint8_t { memcpy, memset };

// One memcpy or memset.
struct copy_record {
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::uint64_t bytes = 0;
  std::uint32_t device = 0;
  std::uint32_t stream = 0;
  std::uint32_t correlation = 0;
  name_id name = 0;  // "memcpy HtoD", "memset"...
  copy_kind kind = copy_kind::memcpy;
};

// CUPTI's external correlation: API call `correlation` ran while acs had pushed `external`.
struct correlation_record {
  std::uint32_t correlation = 0;
  std::uint64_t external = 0;
};

// One kernel acs dispatched to its stream pool (a dispatch_record, flattened).
struct dispatch_entry {
  std::uint64_t external = 0;       // tagged launch id
  std::uint64_t host_ns = 0;        // when it was dispatched, on CUPTI's clock (0: unknown)
  std::uintptr_t vstream = 0;       // the application stream's key
  std::uint32_t device = 0;         // the device of the scheduler
  std::uint32_t pool_stream = 0;    // index in the pool
  std::uint32_t window_size = 0;    // window entries in flight after it entered
  std::uint32_t waited_offset = 0;  // its dependencies: waited[waited_offset ...]
  std::uint32_t waited_count = 0;
  std::uint32_t stream_id = 0xffffffffu;  // CUPTI's id of the pool stream, if known
};

// Everything collected so far, in one consistent copy.
struct snapshot {
  std::vector<std::string> names;  // indexed by name_id
  std::vector<kernel_record> kernels;
  std::vector<copy_record> copies;
  std::vector<correlation_record> correlations;
  std::vector<dispatch_entry> dispatches;
  std::vector<std::uint64_t> waited;  // external ids of dependencies, see dispatch_entry
  std::uint64_t dropped = 0;          // records lost: over acs's caps, or dropped by CUPTI
  std::uint64_t incomplete = 0;       // activity without valid timestamps (still running at a flush)
};

}  // namespace acs::trace
