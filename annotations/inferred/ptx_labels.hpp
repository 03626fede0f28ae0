#pragma once
// The taint labels of the write analysis (ptx_writes.cpp) and their sets. Each label is one
// 32-bit value, its kind in the top bits so that sorted sets keep a kind together.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace acs::inference::ptx {

namespace lbl {
constexpr unsigned kind_shift = 28;
enum kind : std::uint32_t {
  word = 0,           // (param, word): the value of one 8-byte parameter word
  all_words = 1,      // every word of a parameter (a collapsed set, or an unknown offset)
  param_address = 2,  // the address of a parameter in the param space
  global = 3,         // the address of a module .global variable (payload: its index)
  own_memory = 4,     // the address of a .shared/.local variable: this kernel's own memory
  loaded = 5,         // a value read from memory: may be any pointer
  constant = 6,       // the address of a .const variable or a function: never written
  // A value read from memory in elements of at most 4 bytes, and not combined with another such
  // value into 64 bits: an index or an offset, never a whole pointer (no allocation lies below 4 GiB).
  loaded_index = 7,
};
constexpr std::uint32_t max_payload = (1u << kind_shift) - 1;
constexpr std::uint32_t word_bits = 14;  // param index and word index: 14 bits each
constexpr std::uint32_t make(kind k, std::uint32_t payload) noexcept {
  return (std::uint32_t{k} << kind_shift) | payload;
}
constexpr std::uint32_t make_word(std::uint32_t p, std::uint32_t w) noexcept {
  return make(word, (p << word_bits) | w);
}
constexpr kind kind_of(std::uint32_t l) noexcept { return static_cast<kind>(l >> kind_shift); }
constexpr bool read_from_memory(std::uint32_t l) noexcept { return kind_of(l) == loaded || kind_of(l) == loaded_index; }
constexpr std::uint32_t payload(std::uint32_t l) noexcept { return l & max_payload; }
constexpr std::uint32_t word_param(std::uint32_t l) noexcept { return payload(l) >> word_bits; }
constexpr std::uint32_t word_index(std::uint32_t l) noexcept { return payload(l) & ((1u << word_bits) - 1); }
constexpr std::uint32_t loaded_label = make(loaded, 0);
constexpr std::uint32_t loaded_index_label = make(loaded_index, 0);
constexpr std::uint32_t own_label = make(own_memory, 0);
constexpr std::uint32_t constant_label = make(constant, 0);
}  // namespace lbl

using label_set = std::vector<std::uint32_t>;  // sorted, unique

// Past this many labels, a set's words collapse to "all words" of their parameters: sound, and
// keeps each set bounded by a few labels per parameter.
constexpr std::size_t collapse_at = 256;

/// @brief Collapses a set past collapse_at labels, and drops words covered by "all words".
void normalise(label_set& s);

/// @brief dst |= src; whether dst changed. `scratch` is working space.
bool merge(label_set& dst, const label_set& src, label_set& scratch);

void add_label(label_set& s, std::uint32_t l);

}  // namespace acs::inference::ptx
