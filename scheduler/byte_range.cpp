#include "byte_range.hpp"

namespace acs {
namespace {

bool any_overlap(const std::vector<byte_range>& a, const std::vector<byte_range>& b) noexcept {
  for (const byte_range& x : a)
    for (const byte_range& y : b)
      if (overlaps(x, y)) return true;
  return false;
}

}  // namespace

bool conflicts(const std::vector<byte_range>& earlier_reads, const std::vector<byte_range>& earlier_writes,
               const access_set& later) noexcept {
  return any_overlap(earlier_writes, later.reads)      // read after write
         || any_overlap(earlier_reads, later.writes)   // write after read
         || any_overlap(earlier_writes, later.writes); // write after write
}

}  // namespace acs
