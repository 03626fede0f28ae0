#pragma once
// The runtime's services as installed by declared::connect.
#include "annotations/declared/declared.hpp"

namespace acs::annotations {

/// @brief The installed services (all null before connect).
const declared::runtime_services& services() noexcept;

/// @brief Whether a stream capture is in progress (false when the runtime cannot tell).
bool capture_in_progress() noexcept;

}  // namespace acs::annotations
