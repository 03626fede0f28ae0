#pragma once
// The inner loop of the dependency check: which of many ranges, stored as
// separate arrays of first and last bytes, overlap any of a few query ranges.
// Kept branch-free over contiguous arrays so that it vectorises.
#include <cstddef>
#include <cstdint>

#include "byte_range.hpp"

namespace acs {

// hit[i] = all ones if range i overlaps any of queries[0..query_count), else 0,
// for i in [0, n). Full-width masks avoid packing compare results into bytes.
// Returns whether anything overlapped.
bool mark_overlaps(const address* first, const address* last, std::size_t n, const byte_range* queries,
                   std::size_t query_count, std::uint64_t* hit) noexcept;

}  // namespace acs
