#pragma once
// What the annotation layer adds to a declaration, and what ACS_CHECK reports
// about it, both from the launch's pointer arguments.
#include <cuda.h>

#include <vector>

#include "scheduler/byte_range.hpp"
#include "annotations/inferred/inference.hpp"
#include "annotations/declared/launch_view.hpp"

namespace acs::annotations {

/// @brief Non-exact declarations (ACS_INFER=alloc): adds to `access` (the
/// declared ranges) every known allocation that an argument points into, or
/// next to, when neither the argument nor any range of `access` touches it (an uncharted unit,
/// suballocations.hpp, is added unless a range contains the argument itself).
/// Returns how many allocations were added.
std::size_t complete(const std::vector<inference::pointer_argument>& args, access_set& access);

/// @brief ACS_CHECK: warns once per kernel (and kind) when an argument that
/// points into device memory lies outside every range of `final_access`, or a
/// range of `declared` lies outside every known allocation.
void check(CUfunction function, const std::vector<inference::pointer_argument>& args,
           const access_set& declared, const access_set& final_access, launch_view& view) noexcept;

/// @brief Whether some range of `a` contains `v`.
bool contains(const access_set& a, address v) noexcept;

/// @brief Whether some range of `a` overlaps `r`.
bool touches(const access_set& a, const byte_range& r) noexcept;

}  // namespace acs::annotations
