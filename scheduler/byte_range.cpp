#include "scheduler/byte_range.hpp"

namespace acs {
namespace {

bool inside_one(const byte_range& r, const std::vector<byte_range>& in) noexcept {
  for (const byte_range& c : in)
    if (c.first <= r.first && r.last <= c.last) return true;
  return false;
}

}  // namespace

bool shadows(const std::vector<byte_range>& earlier_reads, const std::vector<byte_range>& earlier_writes,
             const access_set& later) noexcept {
  for (const byte_range& w : earlier_writes)
    if (!inside_one(w, later.writes)) return false;
  for (const byte_range& r : earlier_reads)
    if (!inside_one(r, later.reads) && !inside_one(r, later.writes)) return false;
  return true;
}

bool merge_footprints(const std::vector<byte_range>& earlier_reads, const std::vector<byte_range>& earlier_writes,
                      const access_set& later, std::size_t max_ranges, access_set& out) {
  out.reads.clear();
  out.writes.clear();
  for (const auto* from : {&later.writes, &earlier_writes})
    for (const byte_range& w : *from)
      if (!inside_one(w, out.writes)) out.writes.push_back(w);
  for (const auto* from : {&later.reads, &earlier_reads})
    for (const byte_range& r : *from)
      if (!inside_one(r, out.writes) && !inside_one(r, out.reads)) out.reads.push_back(r);
  return out.reads.size() + out.writes.size() <= max_ranges;
}

bool conflicts(const std::vector<byte_range>& earlier_reads, const std::vector<byte_range>& earlier_writes,
               const access_set& later) noexcept {
  return conflicts(std::span<const byte_range>(earlier_reads), std::span<const byte_range>(earlier_writes),
                   later.reads, later.writes);
}

}  // namespace acs
