#pragma once
// The footprint of one launch, as the scheduler needs it. First match wins:
//   1. what the application declared through the annotation API (declared::take:
//      the pending declaration, an open scope, a registered kernel rule);
//   2. inference from the arguments (ACS_INFER=alloc, inference.hpp);
//   3. everything (ACS_INFER=off, or inference failed).
// A launch inside an annotation scope carries the scope's group either way, and one
// touching pinned host memory the host-order token (ACS_HOST_MAPPED, inference.hpp).
#include "annotations/declared/declared.hpp"
#include "src/runtime/dispatch.hpp"

namespace acs {

/// @brief Fills `out` (reused: reset first) for `request`. `out.barrier_before`
/// asks for a barrier on the launch's stream before it is dispatched. With `may_wait` false
/// (a probe of a stream acs stepped aside from), a launch whose kernel's code is still being
/// analysed ahead does not wait for it (tens of milliseconds for a large module): its
/// footprint is then everything, and false is returned (provisional). A launch going to the
/// pool waits, once per module, so that its footprint is the real one.
bool plan_launch(const launch_request& request, declared::launch_footprint& out, bool may_wait);

/// @brief The launch passes straight through: a pending declaration or barrier
/// must not leak onto a later launch of this thread.
void launch_passed_through() noexcept;

}  // namespace acs
