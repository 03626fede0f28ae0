#pragma once
// Declared footprints, as the runtime consumes them at each launch: the
// annotation API's side of the launch path (src/runtime/footprint.cpp).
//
// Precedence, first match wins (include/acs/acs.h documents it for users):
//   1. the thread's pending acs_next_launch declaration (consumed);
//   2. the thread's innermost open scope that declares something;
//   3. the rule registered for the launch's function handle;
//   4. nothing declared: take() returns false and the runtime infers the
//      footprint (ACS_INFER=alloc) or uses all memory (ACS_INFER=off).
// A declaration without ACS_EXACT gets, under ACS_INFER=alloc, every known
// allocation that a pointer argument points into (or right next to, as
// inference sees it) and that no declared range touches; arguments that point
// nowhere acs knows add nothing. With ACS_EXACT nothing is added.
//
// Whatever the source, a launch made inside a scope carries the group of the
// thread's outermost scope, so that the scope's launches on one stream keep
// their order; and a pending acs_barrier is reported once, with the next
// launch, whether anything was declared or not.
#include <cuda.h>

#include <cstdint>
#include <vector>

#include "annotations/inferred/inference.hpp"
#include "scheduler/byte_range.hpp"

namespace acs::declared {

struct launch_footprint {
  access_set access;            // when `declared`: the footprint to schedule with
  std::uint64_t group = 0;      // scheduler::launch's group: non-zero inside a scope
  bool declared = false;        // false: infer (or everything), as for any unannotated launch
  bool exact = false;           // the declaration had ACS_EXACT (nothing was added to it)
  bool barrier_before = false;  // order this launch after all earlier work of its stream
};

/// @brief What the launch about to be dispatched declares (see above). Consumes
/// the thread's pending declaration and barrier. `out` is reset first (its
/// vectors keep their capacity). Returns `out.declared`. Never throws: on an
/// internal failure the launch is reported as declared with all memory, or,
/// failing that, undeclared with barrier_before set.
bool take(CUfunction function, void** params, launch_footprint& out, void** extra = nullptr) noexcept;

/// @brief The launch about to happen passes straight through (capture, disabled,
/// foreign context, any reason): drops the thread's pending declaration and
/// barrier so they do not leak onto a later launch. Scopes stay open.
void discard_pending() noexcept;

// What the annotation layer asks the runtime. Every member may be null.
struct runtime_services {
  /// @brief Whether a stream capture is in progress anywhere in the process
  /// (annotations made meanwhile are ignored). Null: never.
  bool (*capture_in_progress)() noexcept = nullptr;
  /// @brief The kernel's name (cuFuncGetName), for ACS_CHECK's warnings; null
  /// or a null result: the handle is printed.
  const char* (*kernel_name)(CUfunction function) noexcept = nullptr;
  /// @brief The launch's arguments that are or may be device pointers, for ACS_CHECK
  /// (inference::pointer_arguments on the function's layout). Null or false: unknown.
  bool (*pointer_arguments)(CUfunction function, void* const* params, void* const* extra,
                            std::vector<inference::pointer_argument>& out) noexcept = nullptr;
  /// @brief Whether acs is active at all (acs_v1_active). Null: no.
  bool (*active)() noexcept = nullptr;
};

/// @brief Installs the runtime's services: the runtime calls it once at start-up (later calls
/// replace them). This is the only way the annotation layer reaches the runtime above it.
void connect(const runtime_services& services) noexcept;

}  // namespace acs::declared
