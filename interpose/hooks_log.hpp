#pragma once
// Diagnostics of the hook layer: which hook saw which call (ACS_LOG_LEVEL=debug or trace).
//
// Deliberately not spdlog: hooks run before any constructor of libacs (another library's
// constructor may call dlsym), after static destructors at exit, and inside dlsym where a logger's
// own initialisation could re-enter. These lines go to stderr with one write(2) each, need no
// initialisation and take no lock. Level names follow spdlog's: trace, debug, info, warn, error,
// critical, off.
#include <atomic>
#include <cstdint>

namespace acs::hooks {

enum class log_level : std::uint8_t { trace, debug, info, warn, error, critical, off };

// The level from ACS_LOG_LEVEL, read once (default warn; unknown values also mean warn).
log_level current_log_level() noexcept;

inline bool log_enabled(log_level level) noexcept { return level >= current_log_level(); }

// printf-style; one line, prefixed "[acs hooks <level>] ".
void log_line(log_level level, const char* format, ...) noexcept __attribute__((format(printf, 2, 3)));

// The same, at most once per `once` flag (for warnings that could repeat per call).
void log_once(std::atomic<bool>& once, log_level level, const char* format, ...) noexcept
    __attribute__((format(printf, 3, 4)));

}  // namespace acs::hooks

#define ACS_HOOK_LOG(level, ...)                                                 \
  do {                                                                           \
    if (::acs::hooks::log_enabled(level)) ::acs::hooks::log_line(level, __VA_ARGS__); \
  } while (false)
#define ACS_HOOK_DEBUG(...) ACS_HOOK_LOG(::acs::hooks::log_level::debug, __VA_ARGS__)
#define ACS_HOOK_TRACE(...) ACS_HOOK_LOG(::acs::hooks::log_level::trace, __VA_ARGS__)
