// Settings: every variable parsed, validated, and every rejected value reported
// exactly once with the variable, the bad value and the value used instead.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "src/support/config.hpp"

namespace acs {
namespace {

using vars = std::map<std::string, std::string>;

config parse(const vars& env, std::vector<config_issue>* issues = nullptr) {
  return parse_config(
      [&](const char* name) -> const char* {
        const auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
      },
      issues);
}

// The setting a variable controls, spelled as config_issue::used spells it.
std::string setting(const config& c, const std::string& variable) {
  if (variable == "ACS_WINDOW") return std::to_string(c.window);
  if (variable == "ACS_STREAMS") return std::to_string(c.streams);
  if (variable == "ACS_DISABLE") return c.disable ? "1" : "0";
  if (variable == "ACS_STATS") return c.stats ? "1" : "0";
  if (variable == "ACS_CHECK") return c.check ? "1" : "0";
  if (variable == "ACS_PTX") return c.read_ptx ? "1" : "0";
  if (variable == "ACS_LOG_LEVEL") return std::string(to_string(c.log));
  if (variable == "ACS_INFER") return c.infer == infer_mode::alloc ? "alloc" : "off";
  if (variable == "ACS_JOIN") return c.eager_join ? "eager" : "lazy";
  if (variable == "ACS_ISSUE_THREADS") return std::to_string(c.issue_threads);
  if (variable == "ACS_GRAPH") return !c.graph ? "off" : c.graph_pool ? "pool" : "auto";
  if (variable == "ACS_GRAPH_AFTER") return std::to_string(c.graph_after);
  if (variable == "ACS_GRAPH_CACHE") return std::to_string(c.graph_cache);
  if (variable == "ACS_GRAPH_IDLE_US") return std::to_string(c.graph_idle_us);
  if (variable == "ACS_GRAPH_KERNELS") return std::to_string(c.graph_kernels);
  if (variable == "ACS_GRAPH_WIDTH") return std::to_string(c.graph_width);
  if (variable == "ACS_GRAPH_SAMPLE") return std::to_string(c.graph_sample);
  if (variable == "ACS_GRAPH_ASIDE") return c.graph_aside ? "1" : "0";
  if (variable == "ACS_ISSUE") return c.issue_thread ? "thread" : "inline";
  if (variable == "ACS_NO_PTX") return c.no_ptx == no_ptx_mode::everything ? "everything" : "arguments";
  if (variable == "ACS_HOST_MAPPED") return c.host_mapped == host_mapped_mode::ordered ? "ordered" : "free";
  if (variable == "ACS_MERGE")
    return c.merge == chain_merge::adaptive ? "adaptive" : c.merge == chain_merge::always ? "always" : "never";
  ADD_FAILURE() << "no setting for " << variable;
  return {};
}

TEST(config, defaults_when_nothing_is_set) {
  std::vector<config_issue> issues;
  const config c = parse({}, &issues);
  EXPECT_TRUE(issues.empty());
  EXPECT_EQ(c.window, 32u);
  EXPECT_EQ(c.streams, 16u);
  EXPECT_FALSE(c.disable);
  EXPECT_FALSE(c.launch_blocking);
  EXPECT_FALSE(c.pass_through());
  EXPECT_EQ(c.log, log_level::warn);
  EXPECT_FALSE(c.stats);
  EXPECT_EQ(c.infer, infer_mode::alloc);
  EXPECT_TRUE(c.read_ptx);
  EXPECT_EQ(c.no_ptx, no_ptx_mode::everything);
  EXPECT_EQ(c.host_mapped, host_mapped_mode::ordered);
  EXPECT_FALSE(c.eager_join);
  EXPECT_EQ(c.merge, chain_merge::adaptive);
  EXPECT_TRUE(c.issue_thread);
  EXPECT_EQ(c.issue_threads, 2u);
  EXPECT_FALSE(c.graph) << "graph replay is off until measured on a GPU";
  EXPECT_EQ(c.graph_after, 2u);
  EXPECT_EQ(c.graph_cache, 64u) << "each executable holds ~0.9 MB of GPU memory (docs/design.md)";
  EXPECT_EQ(c.graph_idle_us, 50u);
  EXPECT_EQ(c.graph_kernels, 0u);
  EXPECT_EQ(c.graph_width, 8u) << "the driver's graph launch costs host time per branch (docs/design.md §8.1)";
  EXPECT_EQ(c.graph_sample, 32u);
  EXPECT_FALSE(c.graph_aside) << "replaying stepped-aside streams slowed real programs on the H200";
  EXPECT_FALSE(c.check);
  EXPECT_TRUE(c.trace.empty());
}

TEST(config, valid_values_are_taken) {
  std::vector<config_issue> issues;
  const config c = parse({{"ACS_WINDOW", "1024"},
                          {"ACS_STREAMS", "1"},
                          {"ACS_DISABLE", "1"},
                          {"ACS_LOG_LEVEL", "debug"},
                          {"ACS_STATS", "1"},
                          {"ACS_INFER", "off"},
                          {"ACS_PTX", "off"},
                          {"ACS_NO_PTX", "Arguments"},
                          {"ACS_HOST_MAPPED", " free "},
                          {"ACS_JOIN", "Eager"},
                          {"ACS_MERGE", " Never"},
                          {"ACS_ISSUE", "INLINE"},
                          {"ACS_ISSUE_THREADS", "5"},
                          {"ACS_GRAPH", "Auto"},
                          {"ACS_GRAPH_AFTER", "1"},
                          {"ACS_GRAPH_CACHE", "4096"},
                          {"ACS_GRAPH_IDLE_US", "200"},
                          {"ACS_GRAPH_KERNELS", "16"},
                          {"ACS_GRAPH_WIDTH", "3"},
                          {"ACS_GRAPH_SAMPLE", "0"},
                          {"ACS_GRAPH_ASIDE", "on"},
                          {"ACS_CHECK", "1"},
                          {"ACS_TRACE", "/tmp/acs.trace"}},
                         &issues);
  EXPECT_TRUE(issues.empty());
  EXPECT_EQ(c.window, 1024u);
  EXPECT_EQ(c.streams, 1u);
  EXPECT_TRUE(c.disable);
  EXPECT_TRUE(c.pass_through());
  EXPECT_EQ(c.log, log_level::debug);
  EXPECT_TRUE(c.stats);
  EXPECT_EQ(c.infer, infer_mode::off);
  EXPECT_FALSE(c.read_ptx);
  EXPECT_EQ(c.no_ptx, no_ptx_mode::arguments);
  EXPECT_EQ(c.host_mapped, host_mapped_mode::free);
  EXPECT_TRUE(c.eager_join);
  EXPECT_EQ(c.merge, chain_merge::never);
  EXPECT_FALSE(c.issue_thread);
  EXPECT_EQ(c.issue_threads, 5u);
  EXPECT_TRUE(c.graph);
  EXPECT_FALSE(c.graph_pool);
  EXPECT_EQ(c.graph_after, 1u);
  EXPECT_EQ(c.graph_cache, 4096u);
  EXPECT_EQ(c.graph_idle_us, 200u);
  EXPECT_EQ(c.graph_kernels, 16u);
  EXPECT_EQ(c.graph_width, 3u);
  EXPECT_EQ(c.graph_sample, 0u);
  EXPECT_TRUE(c.graph_aside);
  EXPECT_TRUE(c.check);
  EXPECT_EQ(c.trace, "/tmp/acs.trace");
}

TEST(config, bounds_are_accepted) {
  std::vector<config_issue> issues;
  EXPECT_EQ(parse({{"ACS_WINDOW", "1"}, {"ACS_STREAMS", "64"}}, &issues).window, 1u);
  EXPECT_EQ(parse({{"ACS_STREAMS", "64"}}, &issues).streams, 64u);
  EXPECT_TRUE(issues.empty());
}

TEST(config, empty_value_is_the_same_as_unset) {
  std::vector<config_issue> issues;
  const config c = parse({{"ACS_WINDOW", ""}, {"ACS_LOG_LEVEL", ""}, {"ACS_DISABLE", ""}}, &issues);
  EXPECT_TRUE(issues.empty());
  EXPECT_EQ(c.window, 32u);
  EXPECT_EQ(c.log, log_level::warn);
  EXPECT_FALSE(c.disable);
}

TEST(config, spaces_and_plus_sign_around_numbers_are_accepted) {
  std::vector<config_issue> issues;
  EXPECT_EQ(parse({{"ACS_WINDOW", " 64 "}}, &issues).window, 64u);
  EXPECT_EQ(parse({{"ACS_WINDOW", "+8"}}, &issues).window, 8u);
  EXPECT_TRUE(issues.empty());
}

TEST(config, booleans_take_common_spellings_in_any_case) {
  for (const char* yes : {"1", "true", "TRUE", "yes", "On"}) {
    std::vector<config_issue> issues;
    EXPECT_TRUE(parse({{"ACS_STATS", yes}}, &issues).stats) << yes;
    EXPECT_TRUE(issues.empty()) << yes;
  }
  for (const char* no : {"0", "false", "No", "OFF"}) {
    std::vector<config_issue> issues;
    EXPECT_FALSE(parse({{"ACS_STATS", no}}, &issues).stats) << no;
    EXPECT_TRUE(issues.empty()) << no;
  }
}

TEST(config, log_levels_are_case_insensitive_with_spdlog_aliases) {
  const std::pair<const char*, log_level> cases[] = {
      {"trace", log_level::trace}, {"DEBUG", log_level::debug}, {"Info", log_level::info},
      {"warn", log_level::warn},   {"warning", log_level::warn}, {"error", log_level::error},
      {"err", log_level::error},   {"critical", log_level::critical}, {"off", log_level::off}};
  for (const auto& [name, level] : cases) {
    std::vector<config_issue> issues;
    EXPECT_EQ(parse({{"ACS_LOG_LEVEL", name}}, &issues).log, level) << name;
    EXPECT_TRUE(issues.empty()) << name;
  }
}

struct rejected {
  const char* variable;
  const char* value;
  const char* used;
};

std::ostream& operator<<(std::ostream& os, const rejected& r) {
  return os << r.variable << "='" << r.value << "' -> " << r.used;
}

class config_rejects : public testing::TestWithParam<rejected> {};

TEST_P(config_rejects, with_one_issue_naming_variable_value_and_replacement) {
  const rejected& r = GetParam();
  std::vector<config_issue> issues;
  const config c = parse({{r.variable, r.value}}, &issues);
  ASSERT_EQ(issues.size(), 1u);
  const config_issue& i = issues.front();
  EXPECT_EQ(i.variable, r.variable);
  EXPECT_EQ(i.value, r.value);
  EXPECT_EQ(i.used, r.used);
  EXPECT_NE(i.message.find(r.variable), std::string::npos) << i.message;
  EXPECT_NE(i.message.find(std::string("'") + r.value + "'"), std::string::npos) << i.message;
  EXPECT_NE(i.message.find(std::string("using ") + r.used), std::string::npos) << i.message;
  // And the value used is the one the issue announces.
  EXPECT_EQ(setting(c, r.variable), r.used);
}

std::string case_name(const testing::TestParamInfo<rejected>& info) {
  return std::string(info.param.variable) + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(
    malformed, config_rejects,
    testing::Values(rejected{"ACS_WINDOW", "abc", "32"}, rejected{"ACS_WINDOW", "32x", "32"},
                    rejected{"ACS_WINDOW", "0x20", "32"}, rejected{"ACS_WINDOW", "1.5", "32"},
                    rejected{"ACS_WINDOW", "-", "32"}, rejected{"ACS_WINDOW", "3 2", "32"},
                    rejected{"ACS_STREAMS", "many", "16"}, rejected{"ACS_DISABLE", "2", "0"},
                    rejected{"ACS_DISABLE", "yes please", "0"}, rejected{"ACS_STATS", "maybe", "0"},
                    rejected{"ACS_CHECK", "x", "0"}, rejected{"ACS_LOG_LEVEL", "loud", "warn"},
                    rejected{"ACS_LOG_LEVEL", "3", "warn"}, rejected{"ACS_INFER", "always", "alloc"},
                    rejected{"ACS_INFER", "on", "alloc"}, rejected{"ACS_JOIN", "early", "lazy"},
                    rejected{"ACS_JOIN", "1", "lazy"}, rejected{"ACS_MERGE", "sometimes", "adaptive"},
                    rejected{"ACS_ISSUE", "threads", "thread"}, rejected{"ACS_ISSUE_THREADS", "two", "2"},
                    rejected{"ACS_PTX", "maybe", "1"}, rejected{"ACS_NO_PTX", "args", "everything"},
                    rejected{"ACS_NO_PTX", "0", "everything"}, rejected{"ACS_HOST_MAPPED", "unordered", "ordered"},
                    rejected{"ACS_HOST_MAPPED", "1", "ordered"}, rejected{"ACS_GRAPH", "on", "off"},
                    rejected{"ACS_GRAPH", "1", "off"}, rejected{"ACS_GRAPH_AFTER", "twice", "2"},
                    rejected{"ACS_GRAPH_CACHE", "lots", "64"}, rejected{"ACS_GRAPH_IDLE_US", "50us", "50"},
                    rejected{"ACS_GRAPH_KERNELS", "few", "0"}, rejected{"ACS_GRAPH_ASIDE", "chains", "0"},
                    rejected{"ACS_GRAPH_WIDTH", "wide", "8"}, rejected{"ACS_GRAPH_SAMPLE", "often", "32"}),
    case_name);

INSTANTIATE_TEST_SUITE_P(
    out_of_range, config_rejects,
    testing::Values(rejected{"ACS_WINDOW", "0", "1"}, rejected{"ACS_WINDOW", "1025", "1024"},
                    rejected{"ACS_WINDOW", "-3", "1"}, rejected{"ACS_WINDOW", "-0", "1"},
                    rejected{"ACS_WINDOW", "99999999999999999999999", "1024"},
                    rejected{"ACS_STREAMS", "0", "1"}, rejected{"ACS_STREAMS", "65", "64"},
                    rejected{"ACS_ISSUE_THREADS", "0", "1"}, rejected{"ACS_ISSUE_THREADS", "9", "8"},
                    rejected{"ACS_GRAPH_AFTER", "0", "1"}, rejected{"ACS_GRAPH_AFTER", "1001", "1000"},
                    rejected{"ACS_GRAPH_CACHE", "0", "1"}, rejected{"ACS_GRAPH_CACHE", "4097", "4096"},
                    rejected{"ACS_GRAPH_IDLE_US", "0", "1"}, rejected{"ACS_GRAPH_IDLE_US", "100001", "100000"},
                    rejected{"ACS_GRAPH_KERNELS", "4097", "4096"},
                    rejected{"ACS_GRAPH_WIDTH", "0", "1"}, rejected{"ACS_GRAPH_WIDTH", "4097", "4096"},
                    rejected{"ACS_GRAPH_SAMPLE", "1000001", "1000000"}, rejected{"ACS_GRAPH_SAMPLE", "-1", "0"},
                    rejected{"ACS_STREAMS", "4294967296", "64"}),
    case_name);

TEST(config, several_bad_variables_give_one_issue_each) {
  std::vector<config_issue> issues;
  parse({{"ACS_WINDOW", "big"},
         {"ACS_STREAMS", "0"},
         {"ACS_DISABLE", "perhaps"},
         {"ACS_LOG_LEVEL", "chatty"},
         {"ACS_STATS", "2"},
         {"ACS_INFER", "guess"},
         {"ACS_CHECK", "?"}},
        &issues);
  std::map<std::string, int> per_variable;
  for (const config_issue& i : issues) ++per_variable[i.variable];
  EXPECT_EQ(issues.size(), 7u);
  for (const char* v :
       {"ACS_WINDOW", "ACS_STREAMS", "ACS_DISABLE", "ACS_LOG_LEVEL", "ACS_STATS", "ACS_INFER", "ACS_CHECK"})
    EXPECT_EQ(per_variable[v], 1) << v;
}

TEST(config, cuda_launch_blocking_passes_everything_through_without_an_issue) {
  std::vector<config_issue> issues;
  EXPECT_TRUE(parse({{"CUDA_LAUNCH_BLOCKING", "1"}}, &issues).pass_through());
  EXPECT_FALSE(parse({{"CUDA_LAUNCH_BLOCKING", "0"}}, &issues).pass_through());
  EXPECT_FALSE(parse({{"CUDA_LAUNCH_BLOCKING", "no"}}, &issues).pass_through());  // CUDA reads it as 0
  EXPECT_TRUE(issues.empty());
}

TEST(config, device_connections_are_left_to_cuda_unless_asked) {
  EXPECT_EQ(parse({}).device_connections(), 0u);
  EXPECT_EQ(parse({{"ACS_CONNECTIONS", "16"}}).device_connections(), 16u);
  std::vector<config_issue> issues;
  EXPECT_EQ(parse({{"ACS_CONNECTIONS", "64"}}, &issues).device_connections(), 32u);
  EXPECT_EQ(issues.size(), 1u);
}

TEST(config, device_connections_are_set_only_when_asked_unset_and_active) {
  EXPECT_EQ(device_connections_to_set(parse({}), nullptr), std::nullopt);
  EXPECT_EQ(device_connections_to_set(parse({{"ACS_CONNECTIONS", "16"}}), nullptr), "16");
  EXPECT_EQ(device_connections_to_set(parse({{"ACS_CONNECTIONS", "16"}}), ""), "16");
  // The user's own value stands, even one that serialises the pool (Megatron sets 1).
  EXPECT_EQ(device_connections_to_set(parse({{"ACS_CONNECTIONS", "16"}}), "1"), std::nullopt);
  EXPECT_EQ(device_connections_to_set(parse({{"ACS_CONNECTIONS", "16"}, {"ACS_DISABLE", "1"}}), nullptr), std::nullopt);
  EXPECT_EQ(device_connections_to_set(parse({{"ACS_CONNECTIONS", "16"}, {"CUDA_LAUNCH_BLOCKING", "1"}}), nullptr),
            std::nullopt);
}

TEST(config, settings_of_the_process_are_read_once) {
  const config& first = settings();
  const config& second = settings();
  EXPECT_EQ(&first, &second);
}

TEST(config, stats_file_counts_and_is_made_absolute) {
  EXPECT_FALSE(parse({}, nullptr).counting_stats());
  const config c = parse({{"ACS_STATS_FILE", "out/stats.txt"}}, nullptr);
  EXPECT_TRUE(c.counting_stats());
  EXPECT_FALSE(c.stats) << "the file alone prints nothing";
  ASSERT_FALSE(c.stats_file.empty());
  EXPECT_EQ(c.stats_file.front(), '/');
  EXPECT_TRUE(c.stats_file.ends_with("/out/stats.txt")) << c.stats_file;
  EXPECT_EQ(parse({{"ACS_STATS_FILE", "/tmp/s.txt"}}, nullptr).stats_file, "/tmp/s.txt");
}

TEST(config, step_aside_can_be_turned_off) {
  EXPECT_TRUE(parse({}, nullptr).step_aside);
  EXPECT_FALSE(parse({{"ACS_STEP_ASIDE", "0"}}, nullptr).step_aside);
  // With graphs too: a chained stream kept with the scheduler slowed real programs (mergeSort
  // x0.29 with ACS_STEP_ASIDE=0, graphs or not); docs/design.md §8.1.
  EXPECT_TRUE(parse({{"ACS_GRAPH", "auto"}}, nullptr).step_aside);
  EXPECT_FALSE(parse({{"ACS_GRAPH", "auto"}, {"ACS_STEP_ASIDE", "0"}}, nullptr).step_aside);
  EXPECT_TRUE(parse({{"ACS_GRAPH", "pool"}}, nullptr).step_aside);
}

TEST(config, programmatic_launches_pass_through_unless_reordering_is_asked) {
  EXPECT_FALSE(parse({}, nullptr).pdl_reorder);
  EXPECT_TRUE(parse({{"ACS_PDL", "reorder"}}, nullptr).pdl_reorder);
  std::vector<config_issue> issues;
  EXPECT_FALSE(parse({{"ACS_PDL", "sometimes"}}, &issues).pdl_reorder);
  EXPECT_EQ(issues.size(), 1u);
}

TEST(config, graphs_replay_segments_of_launches_or_of_pool_calls) {
  const config a = parse({{"ACS_GRAPH", "auto"}}, nullptr);
  EXPECT_TRUE(a.graph);
  EXPECT_FALSE(a.graph_pool);
  const config p = parse({{"ACS_GRAPH", "pool"}}, nullptr);
  EXPECT_TRUE(p.graph);
  EXPECT_TRUE(p.graph_pool);
  const config o = parse({{"ACS_GRAPH", "off"}}, nullptr);
  EXPECT_FALSE(o.graph || o.graph_pool);
}

// With graphs too: there a launch-bound host also counts (stream_mode.hpp), not every launch.
TEST(config, probes_need_a_backlog_unless_told_otherwise) {
  EXPECT_TRUE(parse({}, nullptr).probe_backlog);
  EXPECT_TRUE(parse({{"ACS_GRAPH", "auto"}}, nullptr).probe_backlog);
  EXPECT_FALSE(parse({{"ACS_GRAPH", "auto"}, {"ACS_PROBE_BACKLOG", "0"}}, nullptr).probe_backlog);
  EXPECT_FALSE(parse({{"ACS_PROBE_BACKLOG", "no"}}, nullptr).probe_backlog);
}

TEST(config, a_new_streams_first_probe_comes_after_64_launches_unless_told_otherwise) {
  EXPECT_EQ(parse({}, nullptr).first_probe, 64u);
  EXPECT_EQ(parse({{"ACS_FIRST_PROBE", "0"}}, nullptr).first_probe, 0u);
  EXPECT_EQ(parse({{"ACS_FIRST_PROBE", "1000"}}, nullptr).first_probe, 1000u);
  std::vector<config_issue> issues;
  EXPECT_EQ(parse({{"ACS_FIRST_PROBE", "soon"}}, &issues).first_probe, 64u);
  EXPECT_EQ(issues.size(), 1u);
}

TEST(config, streams_start_aside_unless_told_otherwise) {
  EXPECT_TRUE(parse({}, nullptr).start_aside);
  EXPECT_FALSE(parse({{"ACS_START_ASIDE", "off"}}, nullptr).start_aside);
}

// The bypass (src/support/bypass.hpp) is on by default, and never where every launch must be seen.
TEST(config, the_bypass_is_allowed_unless_every_launch_must_be_seen) {
  EXPECT_TRUE(parse({}, nullptr).bypass_allowed());
  EXPECT_FALSE(parse({{"ACS_BYPASS", "0"}}, nullptr).bypass_allowed());
  EXPECT_FALSE(parse({{"ACS_STEP_ASIDE", "0"}}, nullptr).bypass_allowed());
  EXPECT_FALSE(parse({{"ACS_STATS", "1"}}, nullptr).bypass_allowed());
  EXPECT_FALSE(parse({{"ACS_STATS_FILE", "/tmp/acs-stats.txt"}}, nullptr).bypass_allowed());
  EXPECT_FALSE(parse({{"ACS_TRACE", "/tmp/acs.trace"}}, nullptr).bypass_allowed());
  EXPECT_FALSE(parse({{"ACS_CHECK", "1"}}, nullptr).bypass_allowed());
  EXPECT_FALSE(parse({{"ACS_GRAPH", "auto"}, {"ACS_GRAPH_ASIDE", "1"}}, nullptr).bypass_allowed());
  EXPECT_TRUE(parse({{"ACS_GRAPH", "auto"}}, nullptr).bypass_allowed());
  std::vector<config_issue> issues;
  EXPECT_TRUE(parse({{"ACS_BYPASS", "maybe"}}, &issues).bypass_allowed());
  EXPECT_EQ(issues.size(), 1u);
}

// The relay (docs/design.md, "The relay") is on by default (auto) since 2026-12-06, only where
// it can work: stepped-aside streams, issuing threads, no trace, no chain replay.
TEST(config, the_relay_is_on_by_default_where_it_can_work) {
  EXPECT_EQ(parse({}, nullptr).relay, relay_mode::auto_);
  EXPECT_TRUE(parse({}, nullptr).relays());
  EXPECT_EQ(parse({{"ACS_RELAY", "off"}}, nullptr).relay, relay_mode::off);
  EXPECT_FALSE(parse({{"ACS_RELAY", "off"}}, nullptr).relays());
  EXPECT_EQ(parse({{"ACS_RELAY", "Always"}}, nullptr).relay, relay_mode::always);
  EXPECT_FALSE(parse({{"ACS_STEP_ASIDE", "0"}}, nullptr).relays());
  EXPECT_FALSE(parse({{"ACS_ISSUE", "inline"}}, nullptr).relays());
  EXPECT_FALSE(parse({{"ACS_TRACE", "/tmp/acs.trace"}}, nullptr).relays());
  EXPECT_FALSE(parse({{"ACS_GRAPH", "auto"}, {"ACS_GRAPH_ASIDE", "1"}}, nullptr).relays());
  std::vector<config_issue> issues;
  EXPECT_EQ(parse({{"ACS_RELAY", "sometimes"}}, &issues).relay, relay_mode::auto_);
  EXPECT_EQ(issues.size(), 1u);
}

}  // namespace
}  // namespace acs
