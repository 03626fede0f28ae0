#include "hooks_log.hpp"

#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace acs::hooks {
namespace {

constexpr const char* level_names[] = {"trace", "debug", "info", "warn", "error", "critical", "off"};

log_level parse_level(const char* text) noexcept {
  if (text == nullptr) return log_level::warn;
  for (int i = 0; i <= static_cast<int>(log_level::off); ++i) {
    if (std::strcmp(text, level_names[i]) == 0) return static_cast<log_level>(i);
  }
  return log_level::warn;  // src/'s config reports invalid values; here only the default applies
}

// -1 until read. Reading twice from two threads is harmless: same value.
constinit std::atomic<int> cached_level{-1};

void vlog(log_level level, const char* format, va_list args) noexcept {
  char line[1024];
  int used = std::snprintf(line, sizeof line, "[acs hooks %s] ", level_names[static_cast<int>(level)]);
  if (used < 0) return;
  const int body = std::vsnprintf(line + used, sizeof line - static_cast<std::size_t>(used), format, args);
  if (body < 0) return;
  std::size_t length = static_cast<std::size_t>(used) + static_cast<std::size_t>(body);
  if (length > sizeof line - 2) length = sizeof line - 2;
  line[length++] = '\n';
  // One write per line keeps lines of concurrent threads whole; a short write is dropped.
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, line, length);
}

}  // namespace

log_level current_log_level() noexcept {
  int level = cached_level.load(std::memory_order_relaxed);
  if (level < 0) {
    level = static_cast<int>(parse_level(std::getenv("ACS_LOG_LEVEL")));
    cached_level.store(level, std::memory_order_relaxed);
  }
  return static_cast<log_level>(level);
}

void log_line(log_level level, const char* format, ...) noexcept {
  va_list args;
  va_start(args, format);
  vlog(level, format, args);
  va_end(args);
}

void log_once(std::atomic<bool>& once, log_level level, const char* format, ...) noexcept {
  if (!log_enabled(level) || once.exchange(true, std::memory_order_relaxed)) return;
  va_list args;
  va_start(args, format);
  vlog(level, format, args);
  va_end(args);
}

}  // namespace acs::hooks
