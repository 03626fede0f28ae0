#pragma once
// Log levels and their one parser, kept apart from log.hpp so that config.hpp need not pull in fmt.
#include <cstdint>
#include <optional>
#include <string_view>

namespace acs {

enum class log_level : std::uint8_t { trace, debug, info, warn, error, critical, off };

/// @brief The name ACS_LOG_LEVEL uses for `level` ("trace" ... "off").
std::string_view to_string(log_level level) noexcept;

/// @brief Parses a level name, case-insensitively; accepts "warning" and "err" as aliases.
/// Allocates nothing: the hooks call it before anything else of libacs has run.
std::optional<log_level> parse_log_level(std::string_view name) noexcept;

}  // namespace acs
