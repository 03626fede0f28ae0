#pragma once
// The parts of the acs.torch extension, as torch_integration.cpp (the Python module) joins them.
#include <cstdint>
#include <string>

#include "op_footprint.hpp"

namespace acs_torch {

// ---- record_callbacks.cpp: one acs scope per operator (at the outermost level that can declare)

/// @brief Installs the global RecordFunction callback (operators, with their inputs), once.
/// False when it cannot (an exception from PyTorch); nothing is then installed.
bool install_callbacks(const options& o);
/// @brief Removes it. Operators already running still close the scopes they opened.
void remove_callbacks();
bool callbacks_installed() noexcept;
/// @brief Operators currently open on the calling thread (0 between operators: every start was
/// paired with its end).
std::size_t open_operators() noexcept;

struct op_counters {
  std::uint64_t operators = 0;    // operators seen (every level)
  std::uint64_t declared = 0;     // scopes opened with the operator's tensors
  std::uint64_t everything = 0;   // scopes opened with all memory (unsafe or unaccountable inputs)
  std::uint64_t ranges = 0;       // ranges declared in those scopes
};
op_counters counters() noexcept;

// ---- allocator_tracker.cpp: the CUDA caching allocator's blocks as acs sub-allocations

/// @brief Attaches the trace tracker once (the allocator must be initialised: CUDA's lazy init).
/// Returns "attached", "already attached", "not initialized", "no CUDA in this build" or
/// "unavailable: <why>".
std::string attach_allocator_tracker();

struct block_counters {
  std::uint64_t allocated = 0;  // ALLOC events registered
  std::uint64_t freed = 0;      // FREE_REQUESTED / FREE_COMPLETED
  std::uint64_t segments_released = 0;
};
block_counters tracker_counters() noexcept;

}  // namespace acs_torch
