#include "src/support/log.hpp"

#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_set>

namespace acs {

namespace {
constexpr std::string_view level_names[] = {"trace", "debug", "info", "warn", "error", "critical", "off"};

bool same_ignoring_case(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != b[i]) return false;
  }
  return true;
}
}  // namespace

std::string_view to_string(log_level level) noexcept {
  const auto i = static_cast<std::size_t>(level);
  return i < std::size(level_names) ? level_names[i] : "off";
}

std::optional<log_level> parse_log_level(std::string_view name) noexcept {
  for (std::size_t i = 0; i < std::size(level_names); ++i)
    if (same_ignoring_case(name, level_names[i])) return static_cast<log_level>(i);
  if (same_ignoring_case(name, "warning")) return log_level::warn;
  if (same_ignoring_case(name, "err")) return log_level::error;
  return std::nullopt;
}

namespace log {

int detail::read_threshold() noexcept {
  const char* text = std::getenv("ACS_LOG_LEVEL");
  const std::optional<log_level> level = text != nullptr ? parse_log_level(text) : std::nullopt;
  const int t = static_cast<int>(level.value_or(log_level::warn));
  // A concurrent set_level (settings()) wins: it read the same variable.
  int expected = -1;
  threshold.compare_exchange_strong(expected, t, std::memory_order_relaxed);
  return threshold.load(std::memory_order_relaxed);
}

void detail::write(log_level level, fmt::string_view format, fmt::format_args args) noexcept {
  char line[1024];
  try {
    auto r = fmt::format_to_n(line, sizeof line - 1, "[acs] [{}] ", to_string(level));
    const std::size_t prefix = std::min(r.size, sizeof line - 1);
    auto body = fmt::vformat_to_n(line + prefix, sizeof line - 1 - prefix, format, args);
    std::size_t length = std::min(prefix + body.size, sizeof line - 1);
    line[length++] = '\n';
    // One write per line keeps lines of concurrent threads whole; a short write is dropped.
    [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, line, length);
  } catch (...) {
  }
}

bool first_time(std::string_view key) noexcept {
  static std::mutex mutex;
  static auto* const seen = new std::unordered_set<std::string>;  // never destroyed: atexit handlers log
  try {
    std::lock_guard lock(mutex);
    return seen->emplace(key).second;
  } catch (...) {
    return false;
  }
}

}  // namespace log
}  // namespace acs
