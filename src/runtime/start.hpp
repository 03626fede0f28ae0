#pragma once
// What the runtime sets up on acs's first CUDA call (any dispatch.hpp entry but
// active(), which hooks may call from inside dlsym): tracing starts if ACS_TRACE or ACS_STATS ask for it (also
// under ACS_DISABLE: the trace then shows the program as it runs without acs). The
// annotation layer gets the runtime's services (declared::connect) when libacs loads.

namespace acs {

/// @brief Starts what has not started yet; one atomic load afterwards. Never throws.
void runtime_started() noexcept;

}  // namespace acs
