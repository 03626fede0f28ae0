#include "byte_range.hpp"

namespace acs {
namespace {

bool any_overlap(const std::vector<byte_range>& a, const std::vector<byte_range>& b) noexcept {
  for (const byte_range& x : a)
    for (const byte_range& y : b)
      if (overlaps(x, y)) return true;
  return false;
}

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

bool conflicts(const std::vector<byte_range>& earlier_reads, const std::vector<byte_range>& earlier_writes,
               const access_set& later) noexcept {
  return any_overlap(earlier_writes, later.reads)      // read after write
         || any_overlap(earlier_reads, later.writes)   // write after read
         || any_overlap(earlier_writes, later.writes); // write after write
}

}  // namespace acs
