#include "annotations/declared/declared_set.hpp"

#include <cstdint>

#include "src/support/log.hpp"
#include "annotations/declared/warnings.hpp"

namespace acs::annotations {

unsigned declared_set::add(const acs_range* ranges, std::size_t count, bool write) {
  if (everything_ || count == 0) return 0;
  if (ranges == nullptr) {
    make_everything();
    return issue_null_array;
  }
  // Before reading the array: an absurd count may not even be readable.
  if (count > max_ranges - size()) {
    make_everything();
    return issue_too_many;
  }
  unsigned issues = 0;
  for (std::size_t i = 0; i < count && !everything_; ++i)
    issues |= add(ranges[i].ptr, ranges[i].bytes, write);
  return issues;
}

unsigned declared_set::add(const void* ptr, std::size_t bytes, bool write) {
  if (everything_ || bytes == 0) return 0;
  if (ptr == nullptr) {
    make_everything();
    return issue_null_range;
  }
  if (size() >= max_ranges) {
    make_everything();
    return issue_too_many;
  }
  const made_range m = make_range(reinterpret_cast<std::uintptr_t>(ptr), bytes);
  (write ? access_.writes : access_.reads).push_back(m.range);
  return m.issue == range_issue::wraps ? issue_wraps : 0u;
}

unsigned declared_set::merge(const declared_set& other) {
  if (everything_) return 0;
  if (other.everything_) {
    make_everything();
    return 0;
  }
  if (other.size() > max_ranges - size()) {
    make_everything();
    return issue_too_many;
  }
  access_.reads.insert(access_.reads.end(), other.access_.reads.begin(), other.access_.reads.end());
  access_.writes.insert(access_.writes.end(), other.access_.writes.begin(), other.access_.writes.end());
  return 0;
}

void declared_set::make_everything() noexcept {
  everything_ = true;
  access_.reads.clear();
  access_.writes.clear();
}

void declared_set::to_access(access_set& out) const {
  if (everything_) {
    out.reads.clear();
    out.writes.assign(1, whole_address_space);
    return;
  }
  out.reads = access_.reads;
  out.writes = access_.writes;
}

void report(unsigned issues, const char* where) noexcept {
  // Most problems make the launch touch all device memory: the safe reading of a broken declaration.
  static constexpr const char* all_memory = "; what it declares is treated as touching all device memory";
  struct message {
    input_issue issue;
    warning kind;
    const char* cause;
    const char* consequence;
  };
  static constexpr message messages[] = {
      {issue_null_array, warning::null_array, "a NULL range array with a non-zero count", all_memory},
      {issue_null_range, warning::null_range, "a range with a NULL pointer and a non-zero size", all_memory},
      {issue_wraps, warning::wraps, "a range runs past the end of the address space", "; it is clamped to the end"},
      {issue_too_many, warning::too_many, "more than 4096 ranges in one declaration", all_memory},
      {issue_unknown_flags, warning::unknown_flags, "unknown flag bits", "; ignored, and ACS_EXACT is not honoured"},
      {issue_too_deep, warning::too_deep, "scopes nested more than 256 deep (acs_scope_end missing?)",
       "; the deeper ones are treated as touching all device memory"},
      {issue_merged, warning::merged, "called again before any launch", ": the launch gets the union of both"},
      {issue_out_of_memory, warning::out_of_memory, "out of memory while recording a declaration", all_memory},
  };
  for (const message& m : messages)
    if ((issues & m.issue) != 0 && first_report(m.kind))
      log::warn("{}: {}{} (reported once)", where, m.cause, m.consequence);
}

}  // namespace acs::annotations
