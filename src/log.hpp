#pragma once
// acs's log: spdlog logger "acs" on stderr, lines like "[acs] [warn] message".
//
// spdlog itself is confined to log.cpp (header-only, compiled into libacs with
// hidden visibility), so the host program's own spdlog/fmt never meets ours.
// Filtering happens here, before formatting: a disabled level costs one relaxed
// load. ACS_LOG_TRACE/ACS_LOG_DEBUG compile to nothing below SPDLOG_ACTIVE_LEVEL,
// so hot paths may use them freely. Nothing here throws.
#include <fmt/format.h>

#include <atomic>
#include <cstdint>
#include <string_view>
#include <utility>

#include "log_level.hpp"

#ifndef SPDLOG_ACTIVE_LEVEL
#define SPDLOG_ACTIVE_LEVEL 2  // info: trace and debug compiled out
#endif

namespace acs::log {

namespace detail {
inline std::atomic<std::uint8_t> threshold{static_cast<std::uint8_t>(log_level::warn)};
void write(log_level level, std::string_view message) noexcept;
}  // namespace detail

/// @brief Sets the lowest level that is printed (from ACS_LOG_LEVEL).
inline void set_level(log_level level) noexcept {
  detail::threshold.store(static_cast<std::uint8_t>(level), std::memory_order_relaxed);
}

/// @brief Whether a message at `level` would be printed.
inline bool enabled(log_level level) noexcept {
  return level != log_level::off &&
         static_cast<std::uint8_t>(level) >= detail::threshold.load(std::memory_order_relaxed);
}

/// @brief True the first time `key` is passed in this process: for one-time messages.
bool first_time(std::string_view key) noexcept;

/// @brief Formats and prints one line at `level`; a formatting error drops the line.
template <typename... Args>
void print(log_level level, fmt::format_string<Args...> format, Args&&... args) noexcept {
  if (!enabled(level)) return;
  try {
    detail::write(level, fmt::format(format, std::forward<Args>(args)...));
  } catch (...) {
  }
}

/// @brief Prints at `level` the first time `key` is seen, never again (even if disabled then).
template <typename... Args>
void print_once(log_level level, std::string_view key, fmt::format_string<Args...> format,
                Args&&... args) noexcept {
  if (first_time(key)) print(level, format, std::forward<Args>(args)...);
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

}  // namespace acs::log

#if SPDLOG_ACTIVE_LEVEL <= 0
#define ACS_LOG_TRACE(...) ::acs::log::print(::acs::log_level::trace, __VA_ARGS__)
#else
#define ACS_LOG_TRACE(...) (void)0
#endif
#if SPDLOG_ACTIVE_LEVEL <= 1
#define ACS_LOG_DEBUG(...) ::acs::log::print(::acs::log_level::debug, __VA_ARGS__)
#else
#define ACS_LOG_DEBUG(...) (void)0
#endif
