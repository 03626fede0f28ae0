// The property test: random programs run through acs show no race, no deadlock and no
// kernel queued behind another stream's (docs/design.md rule 12), and end in the state of
// serial execution. ACS_PROGRAMS=<n> sets how many programs run
// (default 50000); ACS_SEED_FROM=<n> starts them at seed n instead of 0; ACS_SEED=<n> replays one
// program and prints its listing; ACS_DEBUG_LISTING=1 prints the listing of every program the
// graph tests run (with ACS_SEED_FROM and ACS_PROGRAMS: one of theirs, as configured there).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "program_runner.hpp"
#include "random_program.hpp"

namespace acs::sim {
namespace {

std::optional<std::uint64_t> env_number(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return std::nullopt;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(text, &end, 10);
  if (*end != '\0') {
    ADD_FAILURE() << name << "=" << text << " is not a number";
    return std::nullopt;
  }
  return n;
}

// Programs are cheap (~0.2 ms each): many more than the 10,000 asked for.
constexpr std::uint64_t default_programs = 50'000;

std::uint64_t program_count(std::uint64_t fallback) { return env_number("ACS_PROGRAMS").value_or(fallback); }
// The first seed (ACS_SEED_FROM, default 0): CI runs seeds from 0; a long search starts elsewhere.
std::uint64_t first_seed() { return env_number("ACS_SEED_FROM").value_or(0); }

struct tally {
  std::uint64_t programs = 0;
  std::uint64_t failed = 0;
  std::uint64_t steps = 0;
  std::uint64_t with_failures = 0;  // programs where own calls of acs fail
  std::uint64_t spinners = 0;       // kernels that spin until another stream's kernel has run
  std::uint64_t prioritised = 0;    // programs with streams of several priorities
  scheduler_stats stats;
  std::uint64_t nodes_set = 0, nodes_unchanged = 0;  // by graph updates given their changed nodes

  void add(const program& p, const program_outcome& out) {
    ++programs;
    nodes_set += out.graphs.nodes_set;
    nodes_unchanged += out.graphs.nodes_unchanged;
    steps += p.steps.size();
    with_failures +=
        std::any_of(p.steps.begin(), p.steps.end(), [](const program_step& s) { return s.failure; });
    spinners += std::count_if(p.kernels.begin(), p.kernels.end(), [](const kernel& k) { return k.waits_for != 0; });
    prioritised += std::any_of(p.priorities.begin(), p.priorities.end(),
                               [&](int priority) { return priority != p.priorities.front(); });
    stats.starved += out.stats.starved;
    stats.kernels += out.stats.kernels;
    stats.independent += out.stats.independent;
    stats.same_stream += out.stats.same_stream;
    stats.dependency_waits += out.stats.dependency_waits;
    stats.fork_waits += out.stats.fork_waits;
    stats.barriers += out.stats.barriers;
    stats.folds += out.stats.folds;
    stats.join_waits += out.stats.join_waits;
    stats.shadowed += out.stats.shadowed;
    stats.merged += out.stats.merged;
    stats.join_failures += out.stats.join_failures;
    stats.host_joins += out.stats.host_joins;
  }
};

// Runs `count` programs from seed `first` through `how` and compares each with
// serial execution. With `report`, the first three failures are test failures
// (with their seeds); otherwise they are only counted.
tally check_programs(std::uint64_t first, std::uint64_t count, execution how, bool report,
                     program (*generate)(std::uint64_t) = generate_program) {
  tally t;
  for (std::uint64_t seed = first; seed < first + count; ++seed) {
    const program p = generate(seed);
    const program_outcome out = run_program(p, how);
    t.add(p, out);
    const std::string differences = compare(run_serial(p), out);
    if (differences.empty()) continue;
    ++t.failed;
    if (report && t.failed <= 3)
      ADD_FAILURE() << "program seed " << seed << " (replay: " << (generate == generate_program ? "" : "ACS_SIM_MULTIGPU=1 ")
                    << "ACS_SEED=" << seed << ") failed:\n"
                    << differences;
  }
  return t;
}

TEST(random_programs, match_serial_execution_under_acs) {
  if (const auto seed = env_number("ACS_SEED")) {
    program p = env_number("ACS_SIM_MULTIGPU").value_or(0) != 0 ? generate_multigpu_program(*seed)
                                                                 : generate_program(*seed);
    p.config.issue_threads = static_cast<unsigned>(env_number("ACS_SIM_ISSUE_THREADS").value_or(0));  // replays that test
    if (p.config.issue_threads != 0)
      for (kernel& k : p.kernels) k.waits_for = 0;  // as that test runs them
    if (env_number("ACS_SIM_FAULT").value_or(0) != 0) {  // replays the deferred_error test
      add_fault(p);
      for (kernel& k : p.kernels) k.waits_for = 0;
    }
    std::printf("%s", describe(p).c_str());
    const std::string report = compare(run_serial(p), run_program(p, execution::through_acs));
    EXPECT_TRUE(report.empty()) << "program seed " << *seed << ":\n" << report;
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  const tally t = check_programs(first_seed(), program_count(default_programs), execution::through_acs, true);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto n = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
  std::printf(
      "[ random   ] %llu programs (seeds %llu..%llu; %llu with failing acs calls, %llu with streams of several "
      "priorities), %llu steps, %llu spinning kernels, %llu kernels through acs (%llu independent, %llu behind "
      "their producer, %llu dependency waits, %llu fork waits, %llu barriers, %llu folds, %llu join waits, %llu "
      "shadowed, %llu merged, %llu in place: every pool stream held by other streams); %llu failed; %.1f s\n",
      n(t.programs), n(first_seed()), n(first_seed() + t.programs - 1), n(t.with_failures), n(t.prioritised), n(t.steps), n(t.spinners),
      n(t.stats.kernels), n(t.stats.independent), n(t.stats.same_stream), n(t.stats.dependency_waits),
      n(t.stats.fork_waits), n(t.stats.barriers), n(t.stats.folds), n(t.stats.join_waits), n(t.stats.shadowed),
      n(t.stats.merged), n(t.stats.starved), n(t.failed), seconds);
  EXPECT_EQ(t.failed, 0u);
  EXPECT_GT(t.stats.merged, 0u) << "no program merged a chain";
  EXPECT_GT(t.stats.folds, 0u) << "no program reached the fold path";
  EXPECT_GT(t.stats.independent, 0u);
  EXPECT_GT(t.spinners, 0u) << "no program had a kernel spin for another stream's";
  EXPECT_GT(t.prioritised, 0u) << "no program had streams of several priorities";
  EXPECT_GT(t.stats.starved, 0u) << "no kernel found every pool stream held by other streams";
}

// The same programs with the pool work issued by the scheduler's own threads (issue_queue.hpp,
// one to three lanes): they run concurrently with the program's own calls and with each
// other, which acs orders after the queued work they depend on.
TEST(random_programs, match_serial_execution_with_an_issuing_thread) {
  const std::uint64_t count = program_count(default_programs) / 5;
  tally t;
  std::uint64_t deferred = 0;
  for (std::uint64_t seed = first_seed(); seed < first_seed() + count; ++seed) {
    program p = generate_program(seed);
    p.config.issue_threads = 1 + static_cast<unsigned>(seed % 3);  // 1 to 3 lanes
    // The simulated host syncs do not run beside the lanes: a sync that needs a spinner done
    // could not wait for a lane to issue the kernel it spins for. Spinners run plain here.
    for (kernel& k : p.kernels) k.waits_for = 0;
    const program_outcome out = run_program(p, execution::through_acs);
    t.add(p, out);
    deferred += out.stats.deferred;
    const std::string differences = compare(run_serial(p), out);
    if (differences.empty()) continue;
    if (++t.failed <= 3)
      ADD_FAILURE() << "program seed " << seed << " with " << p.config.issue_threads << " issuing threads (replay: ACS_SIM_ISSUE_THREADS=" << p.config.issue_threads << " ACS_SEED=" << seed << ") failed:\n"
                    << differences;
  }
  std::printf("[ random   ] %llu programs with an issuing thread, %llu kernels, %llu issued by it; %llu failed\n",
              static_cast<unsigned long long>(t.programs), static_cast<unsigned long long>(t.stats.kernels),
              static_cast<unsigned long long>(deferred), static_cast<unsigned long long>(t.failed));
  EXPECT_EQ(t.failed, 0u);
  // The rest were made at once while the thread slept (issue_here): how many depends on the load.
  EXPECT_GT(deferred, t.stats.kernels / 10) << "the thread should have issued a good part of the launches";
}

// Launches queued for acs's threads that fail (docs/design.md rule 6). In every program one kernel
// makes the context fail once it has run, as a kernel fault does: every call after that fails,
// queued launches, records and waits included. The program must get the failure as CUDA would give
// it: any call may be the first to return it (the fault is asynchronous), but none succeeds once
// one has returned it, every launch acs accepted runs, and the last sync returns it at the latest:
// never lost. One to three issuing threads.
TEST(random_programs, deferred_error_context_failures_reach_the_program_and_are_never_lost) {
  const std::uint64_t count = program_count(default_programs) / 5;
  tally t;
  std::uint64_t faulted = 0, queued_failures = 0;
  for (std::uint64_t seed = first_seed(); seed < first_seed() + count; ++seed) {
    program p = generate_program(seed);
    if (!add_fault(p)) continue;
    p.config.issue_threads = 1 + static_cast<unsigned>(seed % 3);
    // No spinners: after a fault the kernel a spinner waits for never runs, and on a GPU a faulted
    // context runs nothing more, while the simulated device would wait for ever (as with the
    // issuing-thread test, the simulated host sync cannot run alongside the lanes either).
    for (kernel& k : p.kernels) k.waits_for = 0;
    const program_outcome out = run_program(p, execution::through_acs);
    t.add(p, out);
    faulted += out.context_failed;
    queued_failures += out.stats.deferred_failures;
    const std::string differences = compare(run_serial(p), out);
    if (differences.empty()) continue;
    if (++t.failed <= 3)
      ADD_FAILURE() << "program seed " << seed << " with a fault and " << p.config.issue_threads
                    << " issuing threads (replay: ACS_SIM_FAULT=1 ACS_SIM_ISSUE_THREADS=" << p.config.issue_threads
                    << " ACS_SEED=" << seed << ") failed:\n"
                    << differences;
  }
  std::printf("[ random   ] %llu programs with a context failure (%llu faulted), %llu queued launches failed; "
              "%llu failed\n",
              static_cast<unsigned long long>(t.programs), static_cast<unsigned long long>(faulted),
              static_cast<unsigned long long>(queued_failures), static_cast<unsigned long long>(t.failed));
  EXPECT_EQ(t.failed, 0u);
  EXPECT_EQ(faulted, t.programs) << "every faulting kernel was launched, so every program faults";
  EXPECT_GT(queued_failures, 0u) << "no launch queued for acs's threads failed: the mode was not exercised";
}

// Launches of streams acs stepped aside from, relayed to the issuing threads (scheduler::relay,
// ACS_RELAY): in each program a third of the launches, and every launch of some streams, are
// relayed; the others go through the window as usual. A relayed launch runs on its own stream
// after everything issued there before it, and whatever the program issues afterwards on any
// stream (copies, records, waits, host functions, syncs, launches) follows it. One program in
// four also faults (add_fault): the failure reaches the program as in the test above. One to
// three issuing threads; no spinners (as in the issuing-thread test).
TEST(random_programs, relayed_launches_match_serial_execution) {
  const std::uint64_t count = program_count(default_programs) / 5;
  tally t;
  std::uint64_t relayed = 0, faulted = 0;
  for (std::uint64_t seed = first_seed(); seed < first_seed() + count; ++seed) {
    program p = generate_program(seed);
    p.config.issue_threads = 1 + static_cast<unsigned>(seed % 3);
    for (kernel& k : p.kernels) k.waits_for = 0;
    std::uint64_t h = seed * 0x9e3779b97f4a7c15ull + 7;
    for (program_step& step : p.steps) {
      h ^= h >> 33;
      h *= 0xff51afd7ed558ccdull;
      if (step.what == program_step::kind::launch) step.relayed = h % 3 == 0 || (step.stream + seed) % 4 == 0;
    }
    const bool fault = seed % 4 == 0 && add_fault(p);
    const program_outcome out = run_program(p, execution::through_acs);
    t.add(p, out);
    relayed += out.stats.relayed;
    faulted += out.context_failed;
    const std::string differences = compare(run_serial(p), out);
    if (differences.empty()) continue;
    if (++t.failed <= 3)
      ADD_FAILURE() << "program seed " << seed << (fault ? " with a fault" : "") << " and relayed launches, "
                    << p.config.issue_threads << " issuing threads, failed:\n"
                    << differences;
  }
  std::printf("[ random   ] %llu programs with relayed launches, %llu kernels through the window, %llu relayed "
              "(%llu faulted); %llu failed\n",
              static_cast<unsigned long long>(t.programs), static_cast<unsigned long long>(t.stats.kernels),
              static_cast<unsigned long long>(relayed), static_cast<unsigned long long>(faulted),
              static_cast<unsigned long long>(t.failed));
  EXPECT_EQ(t.failed, 0u);
  EXPECT_GT(relayed, t.programs) << "few launches were relayed: the mode was not exercised";
  EXPECT_GT(faulted, 0u);
}

// The generated programs run through acs with graph replay, each configured by `configure`
// after the settings both graph designs share: built at the first (even seeds) or second
// occurrence, in a cache of one to three executables (evictions), the idle flush on for odd
// seeds, one issuing thread for every fourth program (spinners run plain there, as in the
// issuing-thread test). Each is compared with serial execution; `what` names the design.
template <class Configure>
void check_graph_program(std::uint64_t seed, const char* what, scheduler_stats& graphs, Configure configure, tally& t) {
  {
    program p = generate_program(seed);
    p.config.graphs = true;
    p.config.graph_after = 1 + static_cast<unsigned>(seed % 2);
    p.config.graph_cache = 1 + static_cast<unsigned>(seed % 3);
    p.config.graph_idle_us = seed % 2 == 1 ? 50 : 0;
    if (seed % 4 == 3) {
      p.config.issue_threads = 1;
      for (kernel& k : p.kernels) k.waits_for = 0;
    }
    configure(seed, p);
    if (std::getenv("ACS_DEBUG_LISTING")) std::printf("%s", describe(p).c_str());
    const program_outcome out = run_program(p, execution::through_acs);
    t.add(p, out);
    graphs.graph_replays += out.stats.graph_replays;
    graphs.graph_updates += out.stats.graph_updates;
    graphs.graph_evictions += out.stats.graph_evictions;
    graphs.graphs_built += out.stats.graphs_built;
    graphs.graph_call_by_call += out.stats.graph_call_by_call;
    graphs.graph_relayed += out.stats.graph_relayed;
    graphs.graph_skimmed += out.stats.graph_skimmed;
    const std::string differences = compare(run_serial(p), out);
    if (differences.empty()) return;
    if (++t.failed <= 3)
      ADD_FAILURE() << "program seed " << seed << " with " << what << " (after " << p.config.graph_after
                    << ", cache " << p.config.graph_cache << ", idle " << p.config.graph_idle_us << " us, kernels "
                    << p.config.graph_kernels << ", width " << p.config.graph_width << ", " << p.config.issue_threads << " issuing threads) failed:\n"
                    << differences;
  }
}

template <class Configure>
tally check_graph_programs(std::uint64_t count, const char* what, scheduler_stats& graphs, Configure configure) {
  tally t;
  for (std::uint64_t seed = first_seed(); seed < first_seed() + count; ++seed)
    check_graph_program(seed, what, graphs, configure, t);
  return t;
}

// The pool design (ACS_GRAPH=pool, graph_replay.hpp): segments of pool work, updated in place
// when a shape recurs with other kernels; cut by kernel count for some seeds.
TEST(random_programs, graph_replay_matches_serial_execution) {
  const std::uint64_t count = program_count(default_programs) / 5;
  scheduler_stats graphs;
  const tally t = check_graph_programs(count, "graph replay", graphs, [](std::uint64_t seed, program& p) {
    p.config.graph_kernels = seed % 5 == 2 ? 2 + static_cast<unsigned>(seed % 7) : 0;
  });
  const auto n = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
  std::printf("[ random   ] %llu programs with graph replay, %llu kernels: %llu graphs built, %llu graph launches "
              "(%llu updated in place), %llu evictions; %llu failed\n",
              n(t.programs), n(t.stats.kernels), n(graphs.graphs_built), n(graphs.graph_replays),
              n(graphs.graph_updates), n(graphs.graph_evictions), n(t.failed));
  EXPECT_EQ(t.failed, 0u);
  EXPECT_GT(graphs.graph_replays, count / 10) << "graphs were rarely launched: the mode was not exercised";
  EXPECT_GT(graphs.graph_updates, 0u);
  EXPECT_GT(graphs.graph_evictions, 0u);
}

// A program run three times with a device sync between the runs (the generator orders work
// within one run only), so that its segments recur, with launch segments on, cut by
// kernel count in two seeds of three.
void run_thrice_with_segments(std::uint64_t seed, program& p) {
  const std::vector<program_step> once = p.steps;
  for (int r = 0; r < 2; ++r) {
    p.steps.push_back({.what = program_step::kind::sync_device});
    p.steps.insert(p.steps.end(), once.begin(), once.end());
  }
  // In the third run, a quarter of the launches run a twin of their kernel: the same footprint
  // (the same segment key) with another id, so another memory effect: new arguments for a node of
  // a cached executable, which its update must set (graph_changes). Not for spinners, the kernels
  // they wait for, or the faulting kernel, whose ids other steps name.
  std::vector<bool> named(p.kernels.size() + 1, false);  // by id
  for (const kernel& k : p.kernels) named[k.waits_for] = true;
  std::uint64_t h = seed * 0xd1b54a32d192ed03ull + 7;
  for (std::size_t i = p.steps.size() - once.size(); i < p.steps.size(); ++i) {
    program_step& step = p.steps[i];
    h ^= h >> 31;
    h *= 0x9e3779b97f4a7c15ull;
    if (step.what != program_step::kind::launch || h % 4 != 0) continue;
    const kernel& k = p.kernels[step.kernel];
    if (k.waits_for != 0 || named[k.id] || (p.fault_kernel && *p.fault_kernel == step.kernel)) continue;
    kernel twin = k;
    twin.id = p.kernels.size() + 1;
    p.kernels.push_back(std::move(twin));
    step.kernel = p.kernels.size() - 1;
  }
  p.config.graph_segments = true;
  p.config.graph_kernels = seed % 3 == 0 ? 0 : 2 + static_cast<unsigned>(seed % 8);
  // Lanes (segment_replay.hpp): fewer than a segment's independent kernels in half of the seeds,
  // so that a lane's order is added between kernels with no conflict.
  p.config.graph_width = seed % 2 == 0 ? 1 + static_cast<unsigned>(seed / 2 % 3) : scheduler_config::default_graph_width;
  // Sampling (segment_replay.hpp): in a quarter of the programs, after one to three barren
  // segments, so that skimmed segments (the stream path, no key) mix with held ones.
  if (seed % 4 == 1) p.config.graph_sample_after = 1 + static_cast<unsigned>(seed / 4 % 3);
  // Relayed graphs (issue_queue::relay_graph): half of the programs with an issuing thread have it
  // update and launch their graphs, two lanes for some.
  if (p.config.issue_threads != 0 && seed % 8 == 3) {
    p.config.graph_relay = true;
    p.config.issue_threads = 1 + static_cast<unsigned>(seed / 8 % 2);
  }
}

// Launch segments (ACS_GRAPH=auto, segment_replay.hpp): each program's steps run three times
// over, a device sync between, so that its segments recur (a segment is held once its prefix
// is known: from its second occurrence); segments of 2 to 9 kernels or the default 64.
TEST(random_programs, launch_segment_replay_matches_serial_execution) {
  const std::uint64_t count = program_count(default_programs) / 5;
  scheduler_stats graphs;
  const tally t = check_graph_programs(count, "launch segments", graphs, [](std::uint64_t seed, program& p) {
    run_thrice_with_segments(seed, p);
  });
  const auto n = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
  std::printf("[ random   ] %llu programs with launch segments, %llu kernels: %llu graphs built, %llu graph "
              "launches (%llu updated in place: %llu nodes set, %llu unchanged; %llu relayed to an issuing thread), "
              "%llu evictions, %llu held segments released, %llu segments skimmed; %llu failed\n",
              n(t.programs), n(t.stats.kernels), n(graphs.graphs_built), n(graphs.graph_replays),
              n(graphs.graph_updates), n(t.nodes_set), n(t.nodes_unchanged), n(graphs.graph_relayed),
              n(graphs.graph_evictions), n(graphs.graph_call_by_call), n(graphs.graph_skimmed), n(t.failed));
  EXPECT_EQ(t.failed, 0u);
  EXPECT_GT(graphs.graph_replays, count / 10) << "graphs were rarely launched: the mode was not exercised";
  EXPECT_GT(graphs.graph_updates, 0u);
  EXPECT_GT(graphs.graph_evictions, 0u);
  EXPECT_GT(graphs.graph_relayed, count / 100) << "graphs were rarely relayed: relay_graph was not exercised";
  EXPECT_GT(graphs.graph_skimmed, count / 100) << "segments were rarely skimmed: sampling was not exercised";
  // Updates name their changed nodes (graph_changes): both kinds of node must occur, so that a node
  // the list missed would run its old kernel and differ from serial execution.
  EXPECT_GT(t.nodes_set, 0u);
  EXPECT_GT(t.nodes_unchanged, 0u);
}

// Code unloaded in the middle of programs with graph replay (scheduler::code_unloading, before
// cuModuleUnload and cuLibraryUnload): every executable is destroyed there, after the held
// segment and the queued graph launches were issued, and later occurrences build again. In each
// program run three times over (launch segments, as above; the pool design for odd seeds, which
// then run once), about one step in twelve is followed by an unload. Equal to serial execution,
// no race, no hang. (That an unload's executables are not launched again, which the simulated
// device cannot observe, is segment_replay_sim.unloading_code_destroys_every_executable's.)
void with_unloads(std::uint64_t seed, program& p) {
  if (seed % 2 == 0) {
    run_thrice_with_segments(seed, p);
  } else {
    p.config.graph_kernels = 2 + static_cast<unsigned>(seed % 7);
  }
  std::vector<program_step> steps;
  std::uint64_t h = seed * 0xbf58476d1ce4e5b9ull + 3;
  for (const program_step& step : p.steps) {
    steps.push_back(step);
    h ^= h >> 29;
    h *= 0x94d049bb133111ebull;
    if (h % 12 == 0) steps.push_back({.what = program_step::kind::unload});
  }
  p.steps = std::move(steps);
}

TEST(random_programs, graph_replay_with_code_unloaded_matches_serial_execution) {
  const std::uint64_t count = program_count(default_programs) / 10;
  scheduler_stats graphs;
  const tally t = check_graph_programs(count, "graph replay and unloads", graphs, with_unloads);
  const auto n = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
  std::printf("[ random   ] %llu programs with graph replay and code unloaded, %llu kernels: %llu graphs built, "
              "%llu graph launches; %llu failed\n",
              n(t.programs), n(t.stats.kernels), n(graphs.graphs_built), n(graphs.graph_replays), n(t.failed));
  EXPECT_EQ(t.failed, 0u);
  EXPECT_GT(graphs.graph_replays, count / 20) << "graphs were rarely launched: the mode was not exercised";
}

// The same with launches of streams acs stepped aside from (launch_in_order, ACS_GRAPH_ASIDE):
// in each program a third of the launches, and every launch of some streams, go in order on
// their stream, held and replayed as chains where they recur, among the others' segments.
void run_thrice_with_in_order_segments(std::uint64_t seed, program& p) {
  std::uint64_t h = seed * 0x9e3779b97f4a7c15ull + 1;
  for (program_step& step : p.steps) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    if (step.what == program_step::kind::launch) step.in_order = h % 3 == 0 || (step.stream + seed) % 4 == 0;
  }
  run_thrice_with_segments(seed, p);
}

TEST(random_programs, in_order_launch_segments_match_serial_execution) {
  const std::uint64_t count = program_count(default_programs) / 5;
  scheduler_stats graphs;
  const tally t = check_graph_programs(count, "in-order launch segments", graphs, run_thrice_with_in_order_segments);
  const auto n = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
  std::printf("[ random   ] %llu programs with in-order launch segments, %llu kernels: %llu graphs built, %llu "
              "graph launches (%llu updated in place), %llu held segments released; %llu failed\n",
              n(t.programs), n(t.stats.kernels), n(graphs.graphs_built), n(graphs.graph_replays),
              n(graphs.graph_updates), n(graphs.graph_call_by_call), n(t.failed));
  EXPECT_EQ(t.failed, 0u);
  EXPECT_GT(graphs.graph_replays, count / 10) << "graphs were rarely launched: the mode was not exercised";
  EXPECT_GT(graphs.graph_updates, 0u);
}

// Found by a search of 600,000 programs (ACS_SEED_FROM=1000000): a kernel on the pool spins until
// one held in a segment has run; while the segment is released, one of acs's own event calls
// fails. fail() used to wait on the host for every pool stream before the held kernel was made:
// the spinner never finished (a deadlock the simulated device reports). Now nothing is waited for
// at the failure, and a stream's next work in place joins only its own pool work.
TEST(random_programs, a_failing_own_call_while_a_spinner_waits_for_a_held_kernel_does_not_hang) {
  scheduler_stats graphs;
  tally t;
  for (const std::uint64_t seed : {1073414ull, 1097182ull})
    check_graph_program(seed, "in-order launch segments", graphs, run_thrice_with_in_order_segments, t);
  EXPECT_EQ(t.programs, 2u);
  EXPECT_EQ(t.failed, 0u);
  EXPECT_GT(t.stats.join_failures, 0u) << "no own call failed: the programs no longer test the failure path";
  EXPECT_GT(graphs.graph_call_by_call, 0u) << "no held segment was released";
}

// The generator's programs are correct as written: run without acs, they
// show no race and match serial execution. Otherwise a failure above could be
// the generator's fault rather than acs's.
TEST(random_programs, are_race_free_without_acs) {
  const tally t = check_programs(first_seed(), program_count(default_programs) / 5, execution::direct, true);
  std::printf("[ random   ] %llu programs run as written, %llu failed\n",
              static_cast<unsigned long long>(t.programs), static_cast<unsigned long long>(t.failed));
  EXPECT_EQ(t.failed, 0u);
}

// The property has teeth: a "scheduler" that scatters kernels over
// non-blocking streams without any ordering fails on most programs.
TEST(random_programs, catch_a_scheduler_that_ignores_dependencies) {
  const std::uint64_t count = std::max<std::uint64_t>(program_count(default_programs) / 20, 20);
  const tally t = check_programs(first_seed(), count, execution::naive_redirect, false);
  std::printf("[ random   ] unordered redirection: %llu of %llu programs caught\n",
              static_cast<unsigned long long>(t.failed), static_cast<unsigned long long>(t.programs));
  EXPECT_GT(t.failed * 2, t.programs);
}

// Several devices in one process (docs/design.md rule 8): programs over 2-3 devices, one scheduler
// per device given only its own device's streams and events, with kernels on every device, events
// recorded on one device and waited on another, peer copies, and syncs of one device or all.
// Compared with serial execution; a scheduler touching another device's stream or event, or a
// kernel run on another device's stream, is a failure too.
struct multigpu_tally {
  std::uint64_t cross_waits = 0;   // waits for an event of another device
  std::uint64_t peer_copies = 0;   // copies whose source and destination belong to different devices
  std::uint64_t device_syncs = 0;  // syncs of one device only
  std::uint64_t without_peer_access = 0;
  std::uint64_t devices[4] = {};   // programs by device count

  void add(const program& p) {
    ++devices[std::min(p.device.devices, 3u)];
    without_peer_access += !p.peer_access;
    const auto owner = [&](cell c) {
      for (unsigned d = 0; d + 1 < p.owned_from.size(); ++d)
        if (c >= p.owned_from[d] && c < p.owned_from[d + 1]) return d;
      return sim_device::no_device;
    };
    for (const program_step& s : p.steps) {
      if (s.what == program_step::kind::wait && p.event_devices[s.event] != p.stream_devices[s.stream]) ++cross_waits;
      if (s.what == program_step::kind::copy && owner(s.src) != owner(s.dst)) ++peer_copies;
      if (s.what == program_step::kind::sync_device && s.device != program_step::every_device) ++device_syncs;
    }
  }
};

TEST(random_programs, multigpu_match_serial_execution_under_acs) {
  const std::uint64_t count = program_count(default_programs) / 5;
  const tally t = check_programs(first_seed(), count, execution::through_acs, true, generate_multigpu_program);
  multigpu_tally m;
  for (std::uint64_t seed = first_seed(); seed < first_seed() + count; ++seed) m.add(generate_multigpu_program(seed));
  const auto n = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
  std::printf("[ random   ] %llu programs over several devices (%llu on 2, %llu on 3; %llu without peer access), "
              "%llu cross-device waits, %llu peer copies, %llu one-device syncs, %llu kernels through acs "
              "(%llu independent); %llu failed\n",
              n(t.programs), n(m.devices[2]), n(m.devices[3]), n(m.without_peer_access), n(m.cross_waits),
              n(m.peer_copies), n(m.device_syncs), n(t.stats.kernels), n(t.stats.independent), n(t.failed));
  EXPECT_EQ(t.failed, 0u);
  EXPECT_GT(m.devices[2], 0u);
  EXPECT_GT(m.devices[3], 0u);
  EXPECT_GT(m.without_peer_access, 0u);
  EXPECT_GT(m.cross_waits, 0u) << "no program waited on another device's event";
  EXPECT_GT(m.peer_copies, 0u) << "no program copied between devices";
  EXPECT_GT(m.device_syncs, 0u) << "no program synchronised one device only";
  EXPECT_GT(t.stats.independent, 0u);
}

// The same with one to three issuing threads per scheduler (spinners plain, as above).
TEST(random_programs, multigpu_match_serial_execution_with_issuing_threads) {
  const std::uint64_t count = program_count(default_programs) / 50;  // threads make them ~10x slower
  std::uint64_t failed = 0;
  for (std::uint64_t seed = first_seed(); seed < first_seed() + count; ++seed) {
    program p = generate_multigpu_program(seed);
    p.config.issue_threads = 1 + static_cast<unsigned>(seed % 3);
    for (kernel& k : p.kernels) k.waits_for = 0;
    const std::string differences = compare(run_serial(p), run_program(p, execution::through_acs));
    if (differences.empty()) continue;
    if (++failed <= 3)
      ADD_FAILURE() << "program seed " << seed << " (replay: ACS_SIM_MULTIGPU=1 ACS_SIM_ISSUE_THREADS="
                    << p.config.issue_threads << " ACS_SEED=" << seed << ") failed:\n"
                    << differences;
  }
  EXPECT_EQ(failed, 0u);
}

TEST(random_programs, multigpu_are_race_free_without_acs) {
  const tally t = check_programs(first_seed(), program_count(default_programs) / 10, execution::direct, true,
                                 generate_multigpu_program);
  EXPECT_EQ(t.failed, 0u);
}

TEST(random_programs, multigpu_catch_a_scheduler_that_ignores_dependencies) {
  const std::uint64_t count = std::max<std::uint64_t>(program_count(default_programs) / 20, 20);
  const tally t = check_programs(first_seed(), count, execution::naive_redirect, false, generate_multigpu_program);
  std::printf("[ random   ] unordered redirection over several devices: %llu of %llu programs caught\n",
              static_cast<unsigned long long>(t.failed), static_cast<unsigned long long>(t.programs));
  EXPECT_GT(t.failed * 2, t.programs);
}

}  // namespace
}  // namespace acs::sim
