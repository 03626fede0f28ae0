#pragma once
// What a PTX opcode says: its state space, the bytes it moves, and how it moves taint
// (op_class), for the write analysis (ptx_writes.cpp). Opcodes are full names with their
// modifiers, as in the text: "ld.global.nc.v4.f32".
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace acs::inference::ptx {

// Size in bytes of a PTX fundamental type name without its dot ("u64"), 0 if not one.
std::uint32_t type_bytes(std::string_view t) noexcept;

// The dot-separated components of an opcode after its base: "ld.global.nc.u32" -> global, nc, u32.
template <class F>
void for_each_modifier(std::string_view op, F&& f) {
  std::size_t dot = op.find('.');
  while (dot != std::string_view::npos) {
    const std::size_t next = op.find('.', dot + 1);
    f(op.substr(dot + 1, next == std::string_view::npos ? std::string_view::npos : next - dot - 1));
    dot = next;
  }
}

bool has_modifier(std::string_view op, std::string_view m);

enum class space : std::uint8_t { none, global, shared, local, param, constant };

// The first state space named by an opcode (the destination's, for copies).
space first_space(std::string_view op);

// The second state space named by an opcode (a copy's source); space::none when it names one or none.
space second_space(std::string_view op);

inline bool private_space(space s) noexcept { return s == space::shared || s == space::local; }

// Bytes moved by one ld/st: vector count times the last fundamental type; 0 when unknown.
std::uint32_t access_bytes(std::string_view op);

// Bytes of the last fundamental type an opcode names (one element of a vector); 0 when none.
std::uint32_t element_bytes(std::string_view op);

// Whether an instruction's result may be 64 bits or wider: a type of 8 bytes or more, .wide, or
// no type named.
bool may_be_wide(std::string_view op);

// How each opcode (its base, before the first dot) moves taint.
enum class op_class : std::uint8_t {
  data,     // registers only: destinations get the union of the sources
  control,  // no data effect
  load,     // reads memory into its destinations
  store,    // writes memory at its bracketed operands
  copy,     // cp.*: memory to memory
  call,
  unknown,  // anything else: treated as writing through every operand, from anywhere
};

op_class classify(std::string_view op);

// Texture and surface instructions that read or write memory (tex, tld4, suld, sust, sured): the
// memory is named by an object handle, created by the host, that no argument shows.
bool texture_access(std::string_view op);

// Loads that move no memory contents into registers: prefetches, and the texture and surface
// queries (txq, suq), which read an object's attributes.
bool reads_no_data(std::string_view op);

}  // namespace acs::inference::ptx
