#pragma once
// What decides whether a launch of a kind that succeeded before succeeds again, process-wide: the
// state the CUDA backend consults before it defers a launch to the issuing threads (docs/design.md
// rule 6, cuda_backend.hpp).
//
// A launch is deferred only when its status is known in advance: success. Two things can make a
// launch of a known kind fail:
//  * a change of the conditions (a function's attributes, the context's limits, code unloaded):
//    the hooks bracket such calls with change_begins / change_ends. While one runs nothing is
//    deferred; after it, the generation has moved on and no earlier success counts;
//  * a failed context (a sticky error: a kernel fault, a lost device), which every later call
//    reports. Once acs has seen one (a call of its issuing threads failed, or any hooked call
//    returned such an error), nothing is deferred any more.
#include <cstdint>

namespace acs::launch_conditions {

/// @brief Changes with every change of the conditions; successes are remembered per generation.
std::uint64_t generation() noexcept;

/// @brief Whether a launch may be deferred now: no change under way, no context failure seen.
bool deferral_allowed() noexcept;

/// @brief Before a call that may change the conditions: stops deferral, and returns once every
/// launch deferred so far was issued (on every device).
void change_begins() noexcept;

/// @brief After it: a new generation; deferral allowed again once no other change runs.
void change_ends() noexcept;

/// @brief Whether `status` (CUresult or cudaError_t: the values agree) means the context failed
/// for good: CUDA documents that every later call returns the same error.
bool is_context_failure(int status) noexcept;

/// @brief A call failed with `status`; a context failure stops deferral for good. Returns
/// whether it was one.
bool call_failed(int status) noexcept;

/// @brief A deferred launch failed for another reason: stops deferral for good all the same.
void stop_deferral(int status) noexcept;

/// @brief Tests only: forgets a context failure seen before.
void reset_for_testing() noexcept;

}  // namespace acs::launch_conditions
