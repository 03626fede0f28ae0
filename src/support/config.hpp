#pragma once
// acs's settings. Every environment variable is read once, validated and cached
// (as nccl's param.h does). A malformed or out-of-range value never stops the
// program: it gets one warning naming the variable, the bad value and the value
// used instead.
//
//   ACS_WINDOW       kernels in flight per device          1..1024, default 32
//   ACS_STREAMS      pool streams per device and priority  1..64,   default 16
//   ACS_DISABLE      1: pass every call straight through   boolean, default 0
//   ACS_LOG_LEVEL    trace|debug|info|warn|error|critical|off,      default warn
//   ACS_STATS        1: print a summary at exit            boolean, default 0
//   ACS_INFER        alloc|const|off: infer footprints from arguments, default alloc
//   ACS_PTX          1: read kernels' PTX to find parameters never written through
//                    (loaded_code.hpp)                   boolean, default 1
//   ACS_NO_PTX       everything|arguments: what a kernel whose PTX acs cannot read may
//                    touch (docs/design.md §4), default everything
//   ACS_HOST_MAPPED  ordered|free: kernels touching mapped pinned host memory keep their
//                    stream order among themselves (docs/design.md rule 11), default ordered
//   ACS_JOIN         lazy|eager: when an application stream waits for its redirected
//                    kernels (scheduler.hpp), default lazy
//   ACS_MERGE        adaptive|always|never: chain merging (scheduler.hpp), default adaptive
//   ACS_ISSUE        thread|inline: who makes the driver calls for pool streams
//                    (issue_queue.hpp), default thread
//   ACS_ISSUE_THREADS  issuing threads per device with ACS_ISSUE=thread, 1..8, default 2
//   ACS_GRAPH        auto|pool|off: recurring segments of a stream's launches replayed as
//                    graphs (scheduler/segment_replay.hpp); pool: the earlier design, segments
//                    of the pool's calls (scheduler/graph_replay.hpp); default off
//   ACS_GRAPH_AFTER  occurrences of a shape before it is built as a graph, 1..1000, default 2
//   ACS_GRAPH_CACHE  graph executables kept per device (LRU), 1..4096, default 64
//   ACS_GRAPH_IDLE_US  buffered work is issued after a whole interval of this many µs without
//                    a new call (so within twice it of the last), 1..100000, default 50
//   ACS_GRAPH_KERNELS  kernels a segment holds at most, 0..4096, default 0: 64 with auto, no
//                    limit but the 256 calls with pool
//   ACS_GRAPH_WIDTH  with auto, a replayed graph's kernels are laid on at most this many chains
//                    (the driver's launch costs host time per branch), 1..4096, default 8
//   ACS_GRAPH_SAMPLE with auto, segments in a row not held whole before fewer are examined for
//                    recurrence (down to 1 in 16, at random; scheduler/segment_replay.hpp,
//                    "Sampling"), 0..1000000, default 32; 0: every segment examined
//   ACS_GRAPH_ASIDE  1: with ACS_GRAPH=auto, the streams acs stepped aside from are replayed
//                    too: their recurring segments as chain graphs, on the stream itself
//                    (scheduler/segment_replay.hpp)     boolean, default 0: on the H200 it
//                    slowed real programs (PyTorch at batch 1 to x0.44-1.00 of native)
//   ACS_RELAY        off|auto|always: the launches of a stream acs stepped aside from are copied and
//                    issued on it by an issuing thread, so that the program's thread returns before
//                    the driver's launch call (docs/design.md, "The relay"). auto: where the stream's
//                    probe finds the program busy between its launches (half of the gaps 1-150 µs;
//                    a tight launch loop only waits for the thread); always: every stepped-aside
//                    stream, from its first launch aside. Needs ACS_STEP_ASIDE=1, ACS_ISSUE=thread and
//                    two CPUs (affinity mask, cgroup CPU limit); not with ACS_TRACE or ACS_GRAPH_ASIDE;
//                    default auto (docs/results/runs/2026-12-06-sixteenth/); off: launches aside are
//                    made on the program's thread
//   ACS_CHECK        1: check declared footprints          boolean, default 0
//   ACS_STEP_ASIDE   1: a stream whose kernels each depend on the previous one leaves
//                    the pool until parallelism appears (src/runtime/stream_mode.hpp),
//                                                          boolean, default 1
//   ACS_START_ASIDE  1: a new stream starts aside, 32 launches probed after ACS_FIRST_PROBE; it
//                    goes to the pool once 3 of them were independent of their predecessor
//                    (with ACS_STEP_ASIDE=1)                boolean, default 1
//   ACS_BYPASS       1: while every stream that launched is stepped aside, launches and stream
//                    operations go straight from their hooks to the driver; one launch in 64 per
//                    thread takes acs's path, so that probes still come (src/support/bypass.hpp).
//                    Off with ACS_STATS, ACS_STATS_FILE, ACS_TRACE, ACS_CHECK, the annotation API
//                    (with ACS_STEP_ASIDE=1)                boolean, default 1
//   ACS_FIRST_PROBE  launches a new stream makes (aside) before its first probe, 0..100000,
//                    default 64 (with ACS_START_ASIDE=1)
//   ACS_PROBE_BACKLOG  1: a probe counts an independent launch only when its stream still
//                    had work pending (where the GPU keeps up with the host, overlap gains
//                    nothing) or, with ACS_GRAPH=auto, while the host is launch-bound (graphs
//                    amortise its launches: src/runtime/stream_mode.hpp)   boolean, default 1
//   ACS_PDL          pass|reorder: launches allowing programmatic dependent launch (XLA's) pass
//                    straight through, or are scheduled like others and issued without the
//                    attribute on pool streams (interpose/hooks_launch.hpp), default pass: reorder
//                    passes its GPU tests but gained nothing measurable on JAX
//   ACS_CONNECTIONS  CUDA_DEVICE_MAX_CONNECTIONS acs sets when the program left it unset,
//                    0..32, default 0: none set, CUDA's own 8 hardware queues stay (16 cost
//                    ~200 ms at context creation on the H200)
//   ACS_TRACE        path of a trace file                  string,  default none
//   ACS_STATS_FILE   file the acs-stats: line is appended to at exit, one line per
//                    process, with its pid (counting on even without ACS_STATS)
//                                                          string,  default none
//   CUDA_LAUNCH_BLOCKING  (CUDA's own) non-zero: acs passes everything through
//
// Booleans take 0/1, true/false, yes/no, on/off (any case). An empty value is
// the same as an unset one. Integers are decimal; a malformed one gets the
// default, an out-of-range one the nearest bound.
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "src/support/log_level.hpp"
#include "scheduler/scheduler_config.hpp"
#include "src/support/hot_flags.hpp"

namespace acs {

// alloc: an argument inside an allocation makes it read and written. const: the
// same, but pointer-to-const parameters only read (trusts kernels not to cast
// const away). off: unannotated kernels conflict with everything.
enum class infer_mode : std::uint8_t { alloc, trust_const, off };

// A kernel whose code acs cannot read (no PTX: cuBLAS, cuDNN...): everything, it conflicts with
// every kernel (its arguments may not show a device-side pointer array's targets); arguments,
// each pointer argument's allocation is read and written.
enum class no_ptx_mode : std::uint8_t { everything, arguments };

// Kernels touching mapped pinned host memory (cudaHostAlloc, cudaMallocHost, registered memory):
// ordered, they keep their stream order among themselves (the host may poll that memory); free,
// they are scheduled like any other kernel.
enum class host_mapped_mode : std::uint8_t { ordered, free };

// Stepped-aside streams' launches relayed to an issuing thread (ACS_RELAY): never; where the
// program is busy between launches (auto); always.
enum class relay_mode : std::uint8_t { off, auto_, always };


struct alignas(64) config {
  static constexpr unsigned default_window = 32;
  static constexpr unsigned max_window = 1024;
  // 16: see default_streams_note in config.cpp.
  static constexpr unsigned default_streams = 16;
  static constexpr unsigned max_streams = 64;
  // CUDA's limit on hardware work queues per context (CUDA_DEVICE_MAX_CONNECTIONS).
  static constexpr unsigned max_device_connections = 32;
  static constexpr unsigned default_first_probe = 64;
  static constexpr unsigned max_first_probe = 100000;
  static constexpr unsigned default_issue_threads = 2;
  static constexpr unsigned max_issue_threads = 8;
  // Graph replay's settings (ACS_GRAPH_AFTER, ACS_GRAPH_CACHE, ACS_GRAPH_IDLE_US,
  // ACS_GRAPH_KERNELS, ACS_GRAPH_WIDTH, ACS_GRAPH_SAMPLE): defaults, maxima.
  struct graph_settings {
    unsigned after, cache, idle_us, kernels, width, sample;
  };
  static constexpr graph_settings default_graph{2, 64, 50, 0, scheduler_config::default_graph_width,
                                                scheduler_config::default_graph_sample_after};
  static constexpr graph_settings max_graph{scheduler_config::max_graph_after,  scheduler_config::max_graph_cache,
                                            scheduler_config::max_graph_idle_us, scheduler_config::max_graph_kernels,
                                            scheduler_config::max_graph_width,  scheduler_config::max_graph_sample_after};

  // First, in one cache line: what every hooked launch reads (pass_through(), the stepped-aside
  // path's step_aside and replays_aside(), trace.empty()); the rest is read when a launch does more.
  bool disable = false;
  bool launch_blocking = false;
  bool step_aside = true;
  bool graph = false;        // ACS_GRAPH=auto or pool
  bool graph_pool = false;   // ACS_GRAPH=pool
  bool graph_aside = false;  // ACS_GRAPH_ASIDE (only with ACS_GRAPH=auto)
  relay_mode relay = relay_mode::auto_;  // ACS_RELAY (relays(): only where it can work)
  std::string trace;         // empty: no trace
  unsigned window = default_window;
  unsigned streams = default_streams;
  log_level log = log_level::warn;
  bool stats = false;
  infer_mode infer = infer_mode::alloc;
  bool read_ptx = true;
  no_ptx_mode no_ptx = no_ptx_mode::everything;
  host_mapped_mode host_mapped = host_mapped_mode::ordered;
  bool eager_join = false;
  chain_merge merge = chain_merge::adaptive;
  bool issue_thread = true;
  unsigned issue_threads = default_issue_threads;
  unsigned graph_after = default_graph.after;
  unsigned graph_cache = default_graph.cache;
  unsigned graph_idle_us = default_graph.idle_us;
  unsigned graph_kernels = default_graph.kernels;
  unsigned graph_width = default_graph.width;
  unsigned graph_sample = default_graph.sample;  // ACS_GRAPH_SAMPLE
  bool check = false;
  bool start_aside = true;
  bool bypass = true;  // ACS_BYPASS
  unsigned first_probe = default_first_probe;  // ACS_FIRST_PROBE
  bool probe_backlog = true;
  bool pdl_reorder = false;  // ACS_PDL=reorder
  unsigned connections = 0;  // ACS_CONNECTIONS; 0: CUDA_DEVICE_MAX_CONNECTIONS left alone
  std::string stats_file;  // empty: none; else absolute
#ifdef ACS_STAGE_TIMERS
  static constexpr bool stage_timers = true;  // every launch is stamped
#else
  static constexpr bool stage_timers = false;
#endif
  /// @brief Whether statistics are counted (printed, written, or both).
  bool counting_stats() const noexcept { return stats || !stats_file.empty(); }

  /// @brief Whether the hooks may bypass acs while every stream is stepped aside (bypass.hpp):
  /// never where every launch must be seen (statistics, a trace, checks, stepped-aside replay).
  bool bypass_allowed() const noexcept {
    return bypass && step_aside && !replays_aside() && trace.empty() && !counting_stats() && !check && !stage_timers;
  }

  /// @brief Whether stepped-aside streams' launches go through the scheduler to be held and replayed
  /// as chain graphs (ACS_GRAPH=auto with ACS_GRAPH_ASIDE=1; off while tracing).
  bool replays_aside() const noexcept { return graph && !graph_pool && graph_aside && trace.empty(); }

  /// @brief Whether stepped-aside streams' launches are relayed to an issuing thread (ACS_RELAY):
  /// there must be issuing threads (not inline, no trace, which brackets each driver call on the
  /// program's thread) and stepping aside; replaying those streams takes precedence.
  bool relays() const noexcept {
    return relay != relay_mode::off && step_aside && issue_thread && trace.empty() && !replays_aside();
  }

  /// @brief Whether acs passes every call straight through (ACS_DISABLE, CUDA_LAUNCH_BLOCKING).
  bool pass_through() const noexcept { return disable || launch_blocking; }
  /// @brief Whether cuGetProcAddress and dlsym hand out the driver's own functions: passing
  /// through, and no trace to start (ACS_STATS, ACS_TRACE start it at a launch's hook).
  bool hands_out_real_functions() const noexcept { return pass_through() && trace.empty() && !counting_stats(); }
  /// @brief The CUDA_DEVICE_MAX_CONNECTIONS acs asks for (ACS_CONNECTIONS), 0 for none.
  unsigned device_connections() const noexcept { return connections; }
};

/// @brief One rejected setting: what was given and what is used instead.
struct config_issue {
  std::string variable;
  std::string value;
  std::string used;
  std::string message;  // the whole warning, naming all three
};

/// @brief Looks a variable up: its value, or nullptr when unset.
using env_lookup = std::function<const char*(const char* name)>;

/// @brief Parses every setting through `lookup`; each rejected one adds exactly one issue.
config parse_config(const env_lookup& lookup, std::vector<config_issue>* issues = nullptr);

/// @brief The process's settings, parsed from the environment on first use; the
/// issues are logged then, once each. Thread-safe; never throws.
namespace detail {
inline constexpr std::atomic<const config*>& settings_made = hot.settings;  // set once settings_slow() made them
const config& settings_slow() noexcept;
}  // namespace detail

/// @brief The process's settings, read from the environment at the first call and then fixed:
/// one load on every later call (the hooks ask it several times per call).
inline const config& settings() noexcept {
  if (const config* c = detail::settings_made.load(std::memory_order_acquire)) [[likely]]
    return *c;
  return detail::settings_slow();
}

/// @brief The CUDA_DEVICE_MAX_CONNECTIONS value acs should set, if any: only when
/// acs is active and the user left it unset (`current` is its present value).
std::optional<std::string> device_connections_to_set(const config& c, const char* current);

}  // namespace acs
