#pragma once
// Where the simulated cells live in the address space the scheduler sees, and
// the byte ranges a test declares for a kernel.
#include <cstdint>
#include <vector>

#include "scheduler/byte_range.hpp"
#include "sim_device.hpp"

namespace acs::sim {

// Cell c occupies `width` bytes from base + c * stride (width <= stride; a
// smaller width leaves gaps). Strides other than 1 spread cells over the
// scheduler's address buckets, across their edges and around their wrap-around.
struct address_layout {
  address base = 0x7f3a'0000'1000ULL;  // high enough that mistakes near zero show
  std::uint64_t stride = 1;
  std::uint64_t width = 1;

  constexpr address of(cell c) const noexcept { return base + c * stride; }
  constexpr address last_byte(cell c) const noexcept { return of(c) + (width - 1); }
};

inline constexpr address_layout default_layout{};

constexpr address address_of(cell c) noexcept { return default_layout.of(c); }

// Cells [first, first + count).
std::vector<cell> cells(cell first, std::uint32_t count);

// The ranges covering `cs` exactly, consecutive cells merged.
std::vector<byte_range> ranges_of(std::vector<cell> cs, const address_layout& layout = default_layout);

// What `k` really touches, declared exactly.
access_set footprint_of(const kernel& k, const address_layout& layout = default_layout);

}  // namespace acs::sim
