#pragma once
// One warning per kind of misuse, for the life of the process: the API is
// called at every launch, and a mistake in a loop must not flood stderr.
// (Per-kernel warnings, ACS_CHECK's, use log::first_time with the handle.)
#include <cstdint>

namespace acs::annotations {

enum class warning : std::uint8_t {
  null_array,
  null_range,
  wraps,
  too_many,
  unknown_flags,
  out_of_memory,
  too_deep,
  merged,
  capture,
  unbalanced,
  exit_pending,
  exit_scope,
  footprint_outside_rule,
  null_function,
  null_suballocation,
  internal,
  count_
};

/// @brief True the first time `w` is reported in this process.
bool first_report(warning w) noexcept;

/// @brief Makes every kind reportable again: for tests, between cases.
void forget_reports() noexcept;

}  // namespace acs::annotations
