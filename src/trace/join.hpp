#pragma once
// Joins GPU activity to acs's dispatch decisions.
//
//   kernel record --correlationId--> external correlation record --externalId-->
//   dispatch entry (tagged launch id)
//
// A kernel with no external id was not dispatched by acs (passed through,
// launched while acs was disabled, a graph node, a foreign context): it still
// appears, without launch information. When CUPTI delivered no correlation
// records at all (launches from a statically linked runtime), kernels on each
// pool stream are matched to its dispatches in order instead. Pure code, no CUDA.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/trace/records.hpp"

namespace acs::trace {

inline constexpr std::uint32_t no_index = 0xffffffffu;

struct trace_view {
  const snapshot* data = nullptr;
  std::vector<std::string> display_names;      // demangled, by name_id
  std::vector<std::uint64_t> kernel_external;  // per kernel: its external id, 0 if none
  std::vector<std::uint32_t> kernel_dispatch;  // per kernel: index in data->dispatches, or no_index
  std::unordered_map<std::uint64_t, std::uint32_t> kernel_of_external;  // external id -> kernel index
  std::uint64_t base_ns = 0;                                            // earliest timestamp of any record
  std::uint64_t dispatched_without_kernel = 0;  // dispatch entries whose kernel record is missing
};

/// @brief Builds the joined view of `data`, which must outlive it.
trace_view join(const snapshot& data);

/// @brief `name` demangled if it is a mangled C++ name, else unchanged.
std::string demangle(const std::string& name);

}  // namespace acs::trace
