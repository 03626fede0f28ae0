#include "annotations/declared/footprint_check.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "src/support/log.hpp"

namespace acs::annotations {

namespace {

bool any_contains(const std::vector<byte_range>& rs, address v) noexcept {
  return std::any_of(rs.begin(), rs.end(), [v](const byte_range& r) { return r.first <= v && v <= r.last; });
}

bool any_overlaps(const std::vector<byte_range>& rs, const byte_range& x) noexcept {
  return std::any_of(rs.begin(), rs.end(), [&x](const byte_range& r) { return overlaps(r, x); });
}

std::string key(const char* kind, CUfunction function) {
  return fmt::format("check:{}:{}", kind, static_cast<const void*>(function));
}

}  // namespace

bool contains(const access_set& a, address v) noexcept {
  return any_contains(a.reads, v) || any_contains(a.writes, v);
}

bool touches(const access_set& a, const byte_range& r) noexcept {
  return any_overlaps(a.reads, r) || any_overlaps(a.writes, r);
}

std::size_t complete(const std::vector<inference::pointer_argument>& args, access_set& access) {
  // Allocations are whole: once one is added, later arguments into it touch it.
  std::size_t added = 0;
  for (const inference::pointer_argument& a : args) {
    if (!a.allocation) continue;
    // An uncharted unit (suballocations.hpp) may hold anything: touching it proves nothing.
    if (contains(access, a.word.value) || (!a.uncharted && touches(access, *a.allocation))) continue;
    access.reads.push_back(*a.allocation);
    access.writes.push_back(*a.allocation);
    ++added;
  }
  return added;
}

void check(CUfunction function, const std::vector<inference::pointer_argument>& args,
           const access_set& declared, const access_set& final_access, launch_view& view) noexcept {
  try {
    for (const inference::pointer_argument& a : args) {
      // Near-misses (one past the end...) are not dereferenced pointers as far as we know.
      if (!(a.inside || a.unseen) || contains(final_access, a.word.value)) continue;
      if (!log::first_time(key("argument", function))) break;
      log::warn(
          "ACS_CHECK: {}: argument {} (0x{:x}) points into {} but lies outside every range "
          "declared for the launch; declare it, or ignore this if the kernel never dereferences "
          "it (reported once per kernel)",
          view.kernel_name(function), a.word.param, a.word.value,
          a.unseen ? "device memory acs did not see allocated"
                   : fmt::format("the allocation [0x{:x}, 0x{:x}]", a.allocation->first, a.allocation->last));
      break;
    }
    for (const auto* ranges : {&declared.reads, &declared.writes}) {
      for (const byte_range& r : *ranges) {
        if (view.allocated(r)) continue;
        if (log::first_time(key("range", function)))
          log::warn(
              "ACS_CHECK: {}: the declared range [0x{:x}, 0x{:x}] lies outside every allocation "
              "acs knows (a wrong pointer or size?) (reported once per kernel)",
              view.kernel_name(function), r.first, r.last);
        return;
      }
    }
  } catch (...) {
    // A check must never disturb the launch.
  }
}

}  // namespace acs::annotations
