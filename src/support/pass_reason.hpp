#pragma once
// Why a launch (or every launch) passes straight through: named by the hooks and the runtime,
// counted in the statistics. Apart from both so that neither depends on the other for it.
#include <cstdint>

namespace acs {

enum class pass_reason : std::uint8_t {
  disabled,           // ACS_DISABLE=1, CUDA_LAUNCH_BLOCKING=1, or acs could not start
  capturing,          // this stream, or a global-mode capture elsewhere
  cooperative,        // cooperative launch
  ordering_attribute, // programmatic dependent launch and other attributes acs must not reorder
  foreign_context,    // a context or device acs does not manage
  unknown_function,   // the hooks could not identify the kernel: still passed through safely
  internal_error,     // acs's own bookkeeping failed: degrade to pass-through
  no_parallelism,     // the stream's kernels depend on each other: acs stepped aside (stream_mode.hpp)
  count_
};

/// @brief The key of a reason in the stats ("capturing" ...).
constexpr const char* reason_name(pass_reason why) noexcept {
  switch (why) {
    case pass_reason::disabled: return "disabled";
    case pass_reason::capturing: return "capturing";
    case pass_reason::cooperative: return "cooperative";
    case pass_reason::ordering_attribute: return "ordering_attribute";
    case pass_reason::foreign_context: return "foreign_context";
    case pass_reason::unknown_function: return "unknown_function";
    case pass_reason::internal_error: return "internal_error";
    case pass_reason::no_parallelism: return "no_parallelism";
    case pass_reason::count_: break;
  }
  return "unknown";
}

}  // namespace acs
