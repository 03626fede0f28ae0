#pragma once
// A footprint as the user declared it, validated. Bad input never fails: it is
// made conservative (clamped, or "all memory") and its kind is reported once
// per process. "All memory" is a flag, not a range, so that it can be set
// without allocating, even when memory runs out.
#include <cstddef>

#include "acs/acs.h"
#include "scheduler/byte_range.hpp"

namespace acs::annotations {

inline constexpr std::size_t max_ranges = ACS_MAX_RANGES;

// What was wrong with some input (bit flags).
enum input_issue : unsigned {
  issue_null_array = 1u << 0,     // a NULL array with a non-zero count: all memory
  issue_null_range = 1u << 1,     // a NULL pointer with a non-zero size: all memory
  issue_wraps = 1u << 2,          // past the end of the address space: clamped
  issue_too_many = 1u << 3,       // more than max_ranges ranges: all memory
  issue_unknown_flags = 1u << 4,  // ignored, and ACS_EXACT is not honoured
  issue_out_of_memory = 1u << 5,  // all memory
  issue_too_deep = 1u << 6,       // scopes nested past max_scope_depth: the deeper ones are all memory
  issue_merged = 1u << 7,         // a second acs_next_launch before a launch: merged (union)
};

class declared_set {
 public:
  /// @brief Adds `count` ranges as reads or writes; returns the issues found.
  unsigned add(const acs_range* ranges, std::size_t count, bool write);
  /// @brief Adds one range; returns the issues found.
  unsigned add(const void* ptr, std::size_t bytes, bool write);
  /// @brief The union with `other`; returns the issues found (too many ranges).
  unsigned merge(const declared_set& other);

  /// @brief From now on, the set is all memory.
  void make_everything() noexcept;
  bool everything() const noexcept { return everything_; }
  std::size_t size() const noexcept { return access_.reads.size() + access_.writes.size(); }
  /// @brief The declared ranges; empty when everything().
  const access_set& ranges() const noexcept { return access_; }

  /// @brief Copies into `out` (replacing it); all memory as access_set::everything().
  void to_access(access_set& out) const;

 private:
  access_set access_;
  bool everything_ = false;
};

/// @brief Logs each issue in `issues` once per process, naming `where` (the call).
void report(unsigned issues, const char* where) noexcept;

/// @brief The flags acs knows; others are an issue.
inline constexpr unsigned known_flags = ACS_EXACT;

}  // namespace acs::annotations
