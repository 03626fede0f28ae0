#include "log.hpp"

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>

// Level names as ACS_LOG_LEVEL spells them. Only this file sees spdlog.
#define SPDLOG_LEVEL_NAMES {"trace", "debug", "info", "warn", "error", "critical", "off"}
#include <spdlog/logger.h>
#include <spdlog/sinks/stdout_sinks.h>

namespace acs {

std::string_view to_string(log_level level) noexcept {
  static constexpr std::string_view names[] = {"trace", "debug",    "info", "warn",
                                               "error", "critical", "off"};
  const auto i = static_cast<std::size_t>(level);
  return i < std::size(names) ? names[i] : "off";
}

std::optional<log_level> parse_log_level(std::string_view name) noexcept {
  std::string lower(name.size(), '\0');
  std::transform(name.begin(), name.end(), lower.begin(),
                 [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
  for (auto l : {log_level::trace, log_level::debug, log_level::info, log_level::warn, log_level::error,
                 log_level::critical, log_level::off})
    if (lower == to_string(l)) return l;
  if (lower == "warning") return log_level::warn;
  if (lower == "err") return log_level::error;
  return std::nullopt;
}

namespace log {
namespace {

// Never destroyed: threads and atexit handlers may still log while the process exits.
spdlog::logger& logger() {
  static spdlog::logger* const instance = [] {
    auto* l = new spdlog::logger("acs", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    l->set_pattern("[%n] [%l] %v");
    l->set_level(spdlog::level::trace);  // filtering is done by acs::log::enabled
    return l;
  }();
  return *instance;
}

}  // namespace

void detail::write(log_level level, std::string_view message) noexcept {
  try {
    logger().log(static_cast<spdlog::level::level_enum>(level), message);
  } catch (...) {
  }
}

bool first_time(std::string_view key) noexcept {
  static std::mutex mutex;
  static auto* const seen = new std::unordered_set<std::string>;  // never destroyed, as above
  try {
    std::lock_guard lock(mutex);
    return seen->emplace(key).second;
  } catch (...) {
    return false;
  }
}

}  // namespace log
}  // namespace acs
