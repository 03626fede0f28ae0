#pragma once
// What the annotation layer needs to know about a launch beyond what was
// declared for it: its pointer arguments and the known allocations (for
// completing non-exact declarations and for ACS_CHECK), and the kernel's name.
// The process's view reads them through inference (driver_inference.hpp) and
// the runtime's services; tests substitute their own.
#include <cuda.h>

#include <string>
#include <vector>

#include "scheduler/byte_range.hpp"
#include "annotations/inferred/inference.hpp"

namespace acs::annotations {

class launch_view {
 public:
  virtual ~launch_view() = default;
  /// @brief The arguments that are, or may be, device pointers; false when they cannot be read.
  virtual bool pointer_arguments(CUfunction function, void* const* params, void* const* extra,
                                 std::vector<inference::pointer_argument>& out) noexcept = 0;
  /// @brief Whether `r` lies within one known allocation.
  virtual bool allocated(const byte_range& r) noexcept = 0;
  /// @brief A name for log lines.
  virtual std::string kernel_name(CUfunction function) noexcept = 0;
};

/// @brief The running process's view. Never destroyed.
launch_view& process_view() noexcept;

/// @brief "kernel <name>" from `name`, or "kernel at 0x..." without one.
std::string describe_kernel(CUfunction function, const char* name);

}  // namespace acs::annotations

namespace acs::declared {
struct launch_footprint;
}

namespace acs::annotations {

/// @brief declared::take with an explicit view (tests use their own).
bool take(CUfunction function, void* const* params, void* const* extra, declared::launch_footprint& out,
          launch_view& view) noexcept;

}  // namespace acs::annotations
