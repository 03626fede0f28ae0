#include "memory_effect.hpp"

#include <stdexcept>

namespace acs::sim {
namespace {

// splitmix64's finaliser: every input bit affects every output bit.
constexpr std::uint64_t mix(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

value initial_value(cell c) noexcept { return mix(0x5eed0000ULL + c); }

std::vector<value> outputs(const memory_effect& e, const std::vector<value>& read_values) {
  std::vector<value> out(e.writes.size());
  switch (e.how) {
    case memory_effect::rule::hash: {
      std::uint64_t h = mix(e.seed);
      for (value v : read_values) h = mix(h ^ v);
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = mix(h ^ (e.writes[i] + 1ULL));
      break;
    }
    case memory_effect::rule::copy:
      if (read_values.size() != out.size()) throw std::invalid_argument("copy: sizes differ");
      out = read_values;
      break;
    case memory_effect::rule::fill:
      for (value& v : out) v = e.seed;
      break;
  }
  return out;
}

serial_memory::serial_memory(std::uint32_t cells) : cells_(cells) {
  for (cell c = 0; c < cells; ++c) cells_[c] = initial_value(c);
}

void serial_memory::apply(const memory_effect& e) {
  std::vector<value> read_values;
  read_values.reserve(e.reads.size());
  for (cell c : e.reads) read_values.push_back(cells_.at(c));
  const std::vector<value> out = outputs(e, read_values);
  for (std::size_t i = 0; i < out.size(); ++i) cells_.at(e.writes[i]) = out[i];
}

}  // namespace acs::sim
