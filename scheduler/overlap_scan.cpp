#include "overlap_scan.hpp"

#include <algorithm>

namespace acs {
namespace {

// Up to four queries per pass, so each range is loaded once per four queries.
// Queries are copied to locals and pointers are restrict, so that nothing is
// reloaded inside the loop.
template <std::size_t Q>
inline std::uint64_t pass(const address* __restrict first, const address* __restrict last, std::size_t n,
                 const byte_range* q, std::uint64_t* __restrict hit) noexcept {
  address qf[Q];
  address ql[Q];
  std::uint64_t seen = 0;
  for (std::size_t k = 0; k < Q; ++k) {
    qf[k] = q[k].first;
    ql[k] = q[k].last;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const address f = first[i];
    const address l = last[i];
    std::uint64_t any = 0;
    for (std::size_t k = 0; k < Q; ++k) any |= std::uint64_t{0} - ((f <= ql[k]) & (qf[k] <= l));
    hit[i] |= any;
    seen |= any;
  }
  return seen;
}

}  // namespace

// One clone per instruction set; the loader picks the best the CPU has.
__attribute__((target_clones("avx512f", "avx2", "default"))) bool mark_overlaps(
    const address* first, const address* last, std::size_t n, const byte_range* queries,
    std::size_t query_count, std::uint64_t* hit) noexcept {
  std::fill(hit, hit + n, std::uint64_t{0});
  std::uint64_t seen = 0;
  while (query_count > 0) {
    switch (std::min<std::size_t>(query_count, 4)) {
      case 4: seen |= pass<4>(first, last, n, queries, hit); break;
      case 3: seen |= pass<3>(first, last, n, queries, hit); break;
      case 2: seen |= pass<2>(first, last, n, queries, hit); break;
      default: seen |= pass<1>(first, last, n, queries, hit); break;
    }
    const std::size_t done = std::min<std::size_t>(query_count, 4);
    queries += done;
    query_count -= done;
  }
  return seen != 0;
}

}  // namespace acs
