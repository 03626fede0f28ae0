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

/// @brief A set of one attribute of one function (`function`: its CUfunction) to `value`: `set`
/// makes the real call and returns its status (0: success). Libraries set a kernel's dynamic shared
/// memory limit before each of its launches (CUTLASS-style code does, from 48 KB), and as a change
/// each such call drains the issuing threads and leaves every launch kind unproven. So a set of
/// the value that the last successful set of that attribute of that function gave it, with no
/// forget_attribute_values since, changes nothing and runs unbracketed; any other runs between
/// change_begins and change_ends and is remembered if it succeeds. Remembered for the
/// attributes a program may set, numbered alike in both APIs: the dynamic shared memory limit, the
/// shared memory carveout and the cluster attributes (8 to 15); any other attribute is always a change.
/// `device` < 0: `function` is a CUfunction (cuFuncSetAttribute; cudaFuncSetAttribute, by its host
/// stub's function in the current context); else it is a CUkernel and `device` the device its value
/// is set for (cuKernelSetAttribute). A change through either name forgets every value remembered
/// through the other (a function's own set overrides its kernel's). Sound while distinct
/// CUfunctions, and distinct (CUkernel, device) pairs, hold distinct state (an assumption from
/// CUDA's documentation: a CUkernel's or a host stub's function in a context is that context's one
/// CUfunction); the calls that reach a function by another name (a cache or limit setting) forget
/// every value (docs/design.md §3, "Which launches are deferred").
int set_function_attribute(const void* function, int attribute, int value, int (*set)(void* context),
                           void* context, int device = -1) noexcept;

/// @brief Forgets every remembered attribute value: after a change acs cannot attribute to one
/// function and attribute, a context torn down.
void forget_attribute_values() noexcept;

/// @brief How a remembered handle's code is found (the driver's cuKernelGetLibrary and
/// cuFuncGetModule; tests pass others): each returns false when it cannot tell.
struct code_owners {
  bool (*library_of_kernel)(const void* kernel, const void** library) noexcept;
  bool (*module_of_function)(const void* function, const void** module) noexcept;
};

/// @brief Code is unloaded: `unload(context)` makes the real cuModuleUnload (`library` false) or
/// cuLibraryUnload of `handle` and returns its status. Its handles may name other code afterwards,
/// so the values remembered for what it may hold are forgotten first, and the table's lock is held
/// across the real call (no set of its code can be remembered in between): a CUkernel's whose
/// library is `handle`, or cannot be told; a CUfunction's whose module is `handle`, or cannot be
/// told, and at a library's unload every CUfunction's (a library has a module in each context it
/// was loaded into, which no call lists). Values of other code stay: a PyTorch training step unloads a
/// library about twice, and with every value forgotten there 180 kernel sets per 25 steps were
/// still changes (docs/design.md §3).
int unload_code(const void* handle, bool library, int (*unload)(void* context), void* context,
                const code_owners& owners) noexcept;

/// @brief Tests only: forgets a context failure seen before.
void reset_for_testing() noexcept;

}  // namespace acs::launch_conditions
