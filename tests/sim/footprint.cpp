#include "footprint.hpp"

#include <algorithm>

namespace acs::sim {

std::vector<cell> cells(cell first, std::uint32_t count) {
  std::vector<cell> out(count);
  for (std::uint32_t i = 0; i < count; ++i) out[i] = first + i;
  return out;
}

std::vector<byte_range> ranges_of(std::vector<cell> cs, const address_layout& layout) {
  std::sort(cs.begin(), cs.end());
  cs.erase(std::unique(cs.begin(), cs.end()), cs.end());
  std::vector<byte_range> out;
  for (cell c : cs) {
    if (!out.empty() && out.back().last + 1 == layout.of(c)) {
      out.back().last = layout.last_byte(c);
    } else {
      out.push_back({layout.of(c), layout.last_byte(c)});
    }
  }
  return out;
}

access_set footprint_of(const kernel& k, const address_layout& layout) {
  return {ranges_of(k.reads, layout), ranges_of(k.writes, layout)};
}

}  // namespace acs::sim
