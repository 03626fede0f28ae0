#include "src/support/config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <mutex>
#include <string_view>
#include <utility>

#include "src/support/log.hpp"

namespace acs {

// default_streams_note. docs/design.md §7 measured 32 streams > 16 > 8 on highly
// parallel DAGs. We still default to 16 because:
//  * with launches costing ~5 µs of host time, a kernel of duration d overlaps
//    with at most d / 5 µs successors: 16 streams cover every kernel up to
//    ~80 µs, and longer kernels usually fill the GPU by themselves;
//  * CUDA_DEVICE_MAX_CONNECTIONS is set to match (min(32, streams)); each
//    connection is a hardware queue per context, for the whole process and its
//    children, and 16 asks for half the maximum rather than all of it;
//  * a window of 32 kernels rarely holds more than 16 mutually independent ones.
// ACS_STREAMS=32 is the setting for very wide DAGs of long kernels.

namespace {

std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

class parser {
 public:
  parser(const env_lookup& lookup, std::vector<config_issue>* issues) : lookup_(lookup), issues_(issues) {}

  // The value of `name`, or nullopt when unset or empty.
  std::optional<std::string_view> raw(const char* name) const {
    const char* v = lookup_ ? lookup_(name) : nullptr;
    if (v == nullptr || *v == '\0') return std::nullopt;
    return std::string_view(v);
  }

  unsigned integer(const char* name, unsigned fallback, unsigned lo, unsigned hi) {
    const auto v = raw(name);
    if (!v) return fallback;
    std::string_view digits = trim(*v);
    bool negative = false;
    if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) {
      negative = digits.front() == '-';
      digits.remove_prefix(1);
    }
    unsigned long long n = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    const bool all_digits = !digits.empty() && end == digits.data() + digits.size() &&
                            std::all_of(digits.begin(), digits.end(),
                                        [](char c) { return c >= '0' && c <= '9'; });
    if (!all_digits) {
      reject(name, *v, std::to_string(fallback), fmt::format("is not a decimal integer in {}..{}", lo, hi));
      return fallback;
    }
    const bool too_big = ec == std::errc::result_out_of_range || n > hi;
    if (negative && n != 0) {
      reject(name, *v, std::to_string(lo), fmt::format("is out of range {}..{}", lo, hi));
      return lo;
    }
    if (too_big || n < lo) {
      const unsigned used = too_big ? hi : lo;
      reject(name, *v, std::to_string(used), fmt::format("is out of range {}..{}", lo, hi));
      return used;
    }
    return static_cast<unsigned>(n);
  }

  bool boolean(const char* name, bool fallback) {
    const auto v = raw(name);
    if (!v) return fallback;
    const std::string s = lower(trim(*v));
    if (s == "1" || s == "true" || s == "yes" || s == "on") return true;
    if (s == "0" || s == "false" || s == "no" || s == "off") return false;
    reject(name, *v, fallback ? "1" : "0", "is not a boolean (0/1, true/false, yes/no, on/off)");
    return fallback;
  }

  log_level level(const char* name, log_level fallback) {
    const auto v = raw(name);
    if (!v) return fallback;
    if (const auto l = parse_log_level(trim(*v))) return *l;
    reject(name, *v, std::string(to_string(fallback)),
           "is not one of trace, debug, info, warn, error, critical, off");
    return fallback;
  }

  // One of a few words, in any case; `choices` lists them with what each means, the
  // default first.
  template <class T>
  T word(const char* name, std::initializer_list<std::pair<std::string_view, T>> choices) {
    const auto& fallback = *choices.begin();
    const auto v = raw(name);
    if (!v) return fallback.second;
    const std::string s = lower(trim(*v));
    std::string names;
    for (const auto& [word, value] : choices) {
      if (s == word) return value;
      names += names.empty() ? "" : ", ";
      names += word;
    }
    reject(name, *v, std::string(fallback.first), "is not one of " + names);
    return fallback.second;
  }

  std::string text(const char* name) const {
    const auto v = raw(name);
    return v ? std::string(*v) : std::string();
  }

  // CUDA's own reading: a leading integer, non-zero means on. Not ours to warn about.
  bool cuda_flag(const char* name) const {
    const auto v = raw(name);
    return v && std::strtol(std::string(*v).c_str(), nullptr, 10) != 0;
  }

 private:
  void reject(const char* name, std::string_view value, std::string used, std::string_view why) {
    if (issues_ == nullptr) return;
    config_issue issue;
    issue.variable = name;
    issue.value = std::string(value);
    issue.used = std::move(used);
    issue.message = fmt::format("{}='{}' {}; using {}", issue.variable, issue.value, why, issue.used);
    issues_->push_back(std::move(issue));
  }

  const env_lookup& lookup_;
  std::vector<config_issue>* issues_;
};

const char* lookup_environment(const char* name) { return std::getenv(name); }

}  // namespace

static_assert(config::max_issue_threads == scheduler_config::max_issue_threads);

config parse_config(const env_lookup& lookup, std::vector<config_issue>* issues) {
  parser p(lookup, issues);
  config c;
  c.window = p.integer("ACS_WINDOW", config::default_window, 1, config::max_window);
  c.streams = p.integer("ACS_STREAMS", config::default_streams, 1, config::max_streams);
  c.disable = p.boolean("ACS_DISABLE", false);
  c.log = p.level("ACS_LOG_LEVEL", log_level::warn);
  c.stats = p.boolean("ACS_STATS", false);
  c.infer = p.word<infer_mode>(
      "ACS_INFER", {{"alloc", infer_mode::alloc}, {"const", infer_mode::trust_const}, {"off", infer_mode::off}});
  c.eager_join = p.word<bool>("ACS_JOIN", {{"lazy", false}, {"eager", true}});
  c.read_ptx = p.boolean("ACS_PTX", true);
  c.no_ptx = p.word<no_ptx_mode>("ACS_NO_PTX", {{"everything", no_ptx_mode::everything},
                                                {"arguments", no_ptx_mode::arguments}});
  c.host_mapped = p.word<host_mapped_mode>("ACS_HOST_MAPPED", {{"ordered", host_mapped_mode::ordered},
                                                               {"free", host_mapped_mode::free}});
  c.merge = p.word<chain_merge>("ACS_MERGE", {{"adaptive", chain_merge::adaptive},
                                              {"always", chain_merge::always},
                                              {"never", chain_merge::never}});
  c.issue_thread = p.word<bool>("ACS_ISSUE", {{"thread", true}, {"inline", false}});
  c.issue_threads = p.integer("ACS_ISSUE_THREADS", config::default_issue_threads, 1, config::max_issue_threads);
  const unsigned graph = p.word<unsigned>("ACS_GRAPH", {{"off", 0u}, {"auto", 1u}, {"pool", 2u}});
  c.graph = graph != 0;
  c.graph_pool = graph == 2;
  const config::graph_settings fallback = config::default_graph, most = config::max_graph;
  c.graph_after = p.integer("ACS_GRAPH_AFTER", fallback.after, 1, most.after);
  c.graph_cache = p.integer("ACS_GRAPH_CACHE", fallback.cache, 1, most.cache);
  c.graph_idle_us = p.integer("ACS_GRAPH_IDLE_US", fallback.idle_us, 1, most.idle_us);
  c.graph_kernels = p.integer("ACS_GRAPH_KERNELS", fallback.kernels, 0, most.kernels);
  c.graph_width = p.integer("ACS_GRAPH_WIDTH", fallback.width, 1, most.width);
  c.graph_sample = p.integer("ACS_GRAPH_SAMPLE", fallback.sample, 0, most.sample);
  c.graph_aside = p.boolean("ACS_GRAPH_ASIDE", false);
  // The relay by default since 2026-12-06: on an H100, eager PyTorch x1.07-1.38, CuPy x1.17, every
  // other real program x0.97-1.07 of native, the GPU suite passed under it (docs/design.md).
  c.relay = p.word<relay_mode>("ACS_RELAY", {{"auto", relay_mode::auto_}, {"off", relay_mode::off},
                                              {"always", relay_mode::always}});
  c.check = p.boolean("ACS_CHECK", false);
  // Also with launch segments: a chained stream kept with the scheduler slowed real programs
  // more than its graphs gained (docs/design.md §8.1).
  c.step_aside = p.boolean("ACS_STEP_ASIDE", true);
  c.start_aside = p.boolean("ACS_START_ASIDE", true);
  c.bypass = p.boolean("ACS_BYPASS", true);
  c.first_probe = p.integer("ACS_FIRST_PROBE", config::default_first_probe, 0, config::max_first_probe);
  c.probe_backlog = p.boolean("ACS_PROBE_BACKLOG", true);
  // 0 by default: more hardware queues cost every process at context creation (on the H200 16
  // took ~200 ms more than CUDA's 8: conjugateGradient x0.73, simpleCooperativeGroups x0.61 of
  // native), whether or not acs finds any parallelism; wide DAGs gained little from them
  // (docs/design.md section 7).
  c.pdl_reorder = p.word<bool>("ACS_PDL", {{"pass", false}, {"reorder", true}});
  c.connections = p.integer("ACS_CONNECTIONS", 0, 0, config::max_device_connections);
  c.trace = p.text("ACS_TRACE");
  c.stats_file = p.text("ACS_STATS_FILE");
  if (!c.stats_file.empty() && c.stats_file.front() != '/') {
    // Made absolute now: the program may change its directory before it exits.
    std::error_code ec;
    const std::filesystem::path absolute = std::filesystem::absolute(c.stats_file, ec);
    if (!ec) c.stats_file = absolute.string();
  }
  c.launch_blocking = p.cuda_flag("CUDA_LAUNCH_BLOCKING");
  return c;
}

std::optional<std::string> device_connections_to_set(const config& c, const char* current) {
  if (c.pass_through() || c.connections == 0 || (current != nullptr && *current != '\0')) return std::nullopt;
  return std::to_string(c.device_connections());
}

namespace detail {

const config& settings_slow() noexcept {
  static const config* const instance = []() noexcept -> const config* {
    try {
      std::vector<config_issue> issues;
      auto* c = new config(parse_config(lookup_environment, &issues));  // never destroyed
      log::set_level(c->log);
      for (const config_issue& i : issues) log::warn("{}", i.message);
      if (c->launch_blocking)
        log::warn("CUDA_LAUNCH_BLOCKING is set: acs passes every call straight through");
      else if (c->disable)
        log::info("ACS_DISABLE is set: acs passes every call straight through");
      return c;
    } catch (...) {
      static const config fallback = [] {
        config c;
        c.disable = true;
        return c;
      }();
      log::warn("acs could not read its settings: it passes every call straight through");
      return &fallback;
    }
  }();
  settings_made.store(instance, std::memory_order_release);
  return *instance;
}

}  // namespace detail

}  // namespace acs
