#pragma once
// acs's one log: lines like "[acs] [warn] message" on stderr, formatted with fmt.
//
// It needs no initialisation, takes no lock and allocates nothing to print: the hooks log with
// it, and they run before any constructor of libacs (another library's constructor may call
// dlsym), after static destructors at exit, and inside dlsym. Each line is formatted into a
// buffer on the stack and written with one write(2), so lines of concurrent threads stay whole.
// The level comes from ACS_LOG_LEVEL, read on first use (settings() reports a bad value).
// Filtering happens before formatting: a disabled level costs one relaxed load.
// ACS_LOG_TRACE/ACS_LOG_DEBUG compile to nothing below ACS_LOG_ACTIVE_LEVEL (hot paths);
// log::debug is always there, for diagnostics a release build should still give.
#include <fmt/format.h>

#include <atomic>
#include <cstdint>
#include <string_view>
#include <utility>

#include "src/support/log_level.hpp"
#include "src/support/hot_flags.hpp"

#ifndef ACS_LOG_ACTIVE_LEVEL
#define ACS_LOG_ACTIVE_LEVEL 2  // info: trace and debug compiled out
#endif

namespace acs::log {

namespace detail {
// -1 until ACS_LOG_LEVEL is read.
inline constexpr std::atomic<int>& threshold = hot.log_threshold;
int read_threshold() noexcept;
void write(log_level level, fmt::string_view format, fmt::format_args args) noexcept;
}  // namespace detail

/// @brief Sets the lowest level that is printed (from ACS_LOG_LEVEL).
inline void set_level(log_level level) noexcept {
  detail::threshold.store(static_cast<int>(level), std::memory_order_relaxed);
}

/// @brief Whether a message at `level` would be printed.
inline bool enabled(log_level level) noexcept {
  int t = detail::threshold.load(std::memory_order_relaxed);
  if (t < 0) [[unlikely]] t = detail::read_threshold();
  return level != log_level::off && static_cast<int>(level) >= t;
}

/// @brief True the first time `key` is passed in this process: for one-time messages.
bool first_time(std::string_view key) noexcept;

/// @brief Formats and prints one line at `level`; a formatting error drops the line.
template <typename... Args>
void print(log_level level, fmt::format_string<Args...> format, Args&&... args) noexcept {
  if (enabled(level)) detail::write(level, format, fmt::make_format_args(args...));
}

/// @brief Prints at `level` the first time `key` is seen, never again (even if disabled then).
template <typename... Args>
void print_once(log_level level, std::string_view key, fmt::format_string<Args...> format,
                Args&&... args) noexcept {
  if (first_time(key)) print(level, format, std::forward<Args>(args)...);
}

/// @brief Prints at `level` once per `flag`; lock- and allocation-free, for the hooks.
template <typename... Args>
void print_once(std::atomic<bool>& flag, log_level level, fmt::format_string<Args...> format,
                Args&&... args) noexcept {
  if (enabled(level) && !flag.exchange(true, std::memory_order_relaxed))
    print(level, format, std::forward<Args>(args)...);
}

template <typename... Args>
void warn(fmt::format_string<Args...> format, Args&&... args) noexcept {
  print(log_level::warn, format, std::forward<Args>(args)...);
}

/// @brief One warning per `key` for the life of the process.
template <typename... Args>
void warn_once(std::string_view key, fmt::format_string<Args...> format, Args&&... args) noexcept {
  print_once(log_level::warn, key, format, std::forward<Args>(args)...);
}

template <typename... Args>
void info(fmt::format_string<Args...> format, Args&&... args) noexcept {
  print(log_level::info, format, std::forward<Args>(args)...);
}

template <typename... Args>
void debug(fmt::format_string<Args...> format, Args&&... args) noexcept {
  print(log_level::debug, format, std::forward<Args>(args)...);
}

template <typename... Args>
void trace(fmt::format_string<Args...> format, Args&&... args) noexcept {
  print(log_level::trace, format, std::forward<Args>(args)...);
}

}  // namespace acs::log

#if ACS_LOG_ACTIVE_LEVEL <= 0
#define ACS_LOG_TRACE(...) ::acs::log::print(::acs::log_level::trace, __VA_ARGS__)
#else
#define ACS_LOG_TRACE(...) (void)0
#endif
#if ACS_LOG_ACTIVE_LEVEL <= 1
#define ACS_LOG_DEBUG(...) ::acs::log::print(::acs::log_level::debug, __VA_ARGS__)
#else
#define ACS_LOG_DEBUG(...) (void)0
#endif
