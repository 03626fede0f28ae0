#pragma once
// The scheduler's settings and counters, apart from scheduler.hpp so that the settings parser
// (src/support/config.hpp) and the statistics (src/support/stats.hpp) can name them without
// depending on the scheduler itself. No dependency on anything.
#include <cstdint>

namespace acs {

// When a kernel follows its producer on the same pool stream, whether the producer's event
// may be skipped by folding its footprint into the kernel's window entry: whatever depends
// on the producer then waits for the kernel too (later than needed, never earlier), for one
// event record less. `adaptive` merges while such late waits are rare (chain_merging.hpp).
enum class chain_merge : std::uint8_t { adaptive, always, never };

struct scheduler_config {
  unsigned window = 32;   // kernels in flight per device, 1..max_window
  unsigned streams = 8;   // pool streams per stream priority in use, 1..max_streams (max_streams in all)
  bool eager_join = false;  // join each kernel into its stream at once (scheduler.hpp)
  chain_merge merge = chain_merge::adaptive;
  // Pool-stream records, waits and launches are issued by this many threads of the
  // scheduler's own (issue_queue.hpp), so that the application's thread only decides and
  // enqueues; 0: by the calling thread.
  unsigned issue_threads = 0;
  // Recurring segments of pool work replayed as graphs (graph_replay.hpp). Unmeasured: off.
  bool graphs = false;
  unsigned graph_after = 2;     // occurrences of a shape before it is built, 1..max_graph_after
  unsigned graph_cache = 64;    // executables kept, 1..max_graph_cache (~0.9 MB of GPU memory each)
  unsigned graph_idle_us = 50;  // idle flush, 1..max_graph_idle_us (0: none, for tests only)
  unsigned graph_kernels = 0;   // kernels a segment holds at most, 0..max_graph_kernels (0: the default)
  unsigned graph_width = default_graph_width;  // lanes of a replayed graph, 1..max_graph_width
  // Barren segments in a row before only some are examined for recurrence (segment_replay.hpp,
  // "Sampling"), 0..max_graph_sample_after; 0: every one.
  unsigned graph_sample_after = default_graph_sample_after;
  // With graphs: segments of the application's launches (segment_replay.hpp, ACS_GRAPH=auto),
  // rather than of the pool's calls (graph_replay.hpp, ACS_GRAPH=pool).
  bool graph_segments = false;
  // With segments and issuing threads: a replayed segment's update and graph launch are made by
  // issuing thread 0 (issue_queue::relay_graph), not the application's thread (docs/design.md
  // §8.1, "Relayed graphs").
  bool graph_relay = false;
  static constexpr unsigned default_segment_kernels = 64;
  static constexpr unsigned default_graph_width = 8;
  static constexpr unsigned default_graph_sample_after = 32;
  static constexpr unsigned max_graph_sample_after = 1000000;
  static constexpr unsigned max_graph_width = 4096;
  static constexpr unsigned max_graph_after = 1000;
  static constexpr unsigned max_graph_cache = 4096;
  static constexpr unsigned max_graph_idle_us = 100000;
  static constexpr unsigned max_graph_kernels = 4096;
  static constexpr unsigned max_window = 1024;
  static constexpr unsigned max_streams = 64;
  static constexpr unsigned max_issue_threads = 8;
};

// The relay's record on a device so far (issue_queue::relay_counts): launches relayed, and calls
// of the program that had to wait for one not yet made. What a relaying stream is judged by
// (src/runtime/stream_mode.hpp).
struct relay_record {
  std::uint64_t relayed = 0, waited = 0;
};

// Every counter once: _(member, key in the acs-stats line, what it counts). The struct, the
// sum over devices and the machine-readable line are generated from this list.
#define ACS_SCHEDULER_STATS(_)                                                                              \
  _(kernels, dispatched, "launches dispatched to the pool, or in a graph")                                   \
  _(independent, independent, "of those, with nothing in the window to wait for")                           \
  _(same_stream, same_stream, "placed behind their producer, no event needed")                              \
  _(dependency_waits, dependency_waits, "stream-wait-event calls issued for dependencies")                  \
  _(fork_waits, fork_waits, "waits on a virtual stream's last barrier")                                     \
  _(join_waits, join_waits, "stream-wait-event calls that joined pool work into a stream")                  \
  _(shadowed, events_unneeded, "kernels whose event was never recorded: shadowed or merged (settle_tail)")  \
  _(merged, merged, "of those, merged into their successor's entry")                                        \
  _(barriers, barriers, "operations issued directly on an application stream")                             \
  _(starved, in_place, "kernels run on their own stream: other streams held every pool stream (rule 12)")   \
  _(folds, folds, "window entries folded into a summary while running")                                    \
  _(launch_errors, launch_errors, "launches that returned an error")                                        \
  _(join_failures, join_failures, "acs's own event calls failed: it now runs in place")                    \
  _(host_joins, host_joins, "pool streams the host waited for, where an event join failed too")            \
  _(occupancy_sum, occupancy_sum, "window entries in flight, summed at each launch")                        \
  _(deferred, deferred, "launches issued by the issuing threads (issue_threads)")                           \
  _(issue_waits, issue_waits, "calls that waited for the issuing thread to catch up")                       \
  _(deferred_failures, deferred_failures, "calls of the issuing thread that failed")                       \
  _(relayed, relayed, "stepped-aside streams' launches relayed to an issuing thread (ACS_RELAY)")          \
  _(relay_in_place, relay_in_place, "of those streams' launches under ACS_RELAY, those made at once")        \
  _(relay_waits, relay_waits, "calls that waited for a relayed launch not yet made (ACS_RELAY)")            \
  _(graphs_built, graphs_built, "graph executables instantiated (graph_replay.hpp)")                       \
  _(graph_replays, graph_replays, "segments launched as a graph")                                           \
  _(graph_updates, graph_updates, "of those, through an executable updated in place")                       \
  _(graph_evictions, graph_evictions, "executables destroyed to make room in the cache")                    \
  _(graph_call_by_call, graph_call_by_call, "segments replayed call by call")                               \
  _(graph_failures, graph_failures, "replayed calls that failed")                                           \
  _(graph_kernels, graph_kernels, "of those, launched in a graph (ACS_GRAPH=auto)")                          \
  _(graph_skimmed, graph_skimmed, "segments not examined for recurrence: sampled after barren ones (ACS_GRAPH=auto)") \
  _(graph_relayed, graph_relayed, "segments whose graph an issuing thread updated and launched (ACS_GRAPH=auto)") \
  _(graph_flush_sync, graph_flush_sync, "segments flushed by a synchronize")                                \
  _(graph_flush_create, graph_flush_create, "segments flushed by creating or destroying")                   \
  _(graph_flush_other, graph_flush_other, "segments flushed by a call on another stream, or for another")   \
  _(graph_flush_undetachable, graph_flush_undetachable, "segments flushed by a launch issued at once")      \
  _(graph_flush_explicit, graph_flush_explicit, "segments flushed before a device-wide operation")          \
  _(graph_flush_limit, graph_flush_limit, "segments flushed at their length limit")                         \
  _(graph_flush_idle, graph_flush_idle, "segments flushed after the idle time")                             \
  _(graph_flush_barrier, graph_flush_barrier, "segments flushed by direct work on, or a join of, a stream") \
  _(graph_plain_small, graph_plain_small, "segments call by call: fewer than two kernels")                 \
  _(graph_plain_undescribed, graph_plain_undescribed, "segments call by call: a kernel not describable")  \
  _(graph_plain_bare_stream, graph_plain_bare_stream, "segments call by call: a stream without kernels")  \
  _(graph_plain_new_shape, graph_plain_new_shape, "segments call by call: shape not recurring yet")       \
  _(graph_plain_failed, graph_plain_failed, "segments call by call: a graph call failed")

struct scheduler_stats {
#define ACS_SCHEDULER_STATS_MEMBER(member, key, what) std::uint64_t member = 0;
  ACS_SCHEDULER_STATS(ACS_SCHEDULER_STATS_MEMBER)
#undef ACS_SCHEDULER_STATS_MEMBER

  scheduler_stats& operator+=(const scheduler_stats& other) noexcept {
#define ACS_SCHEDULER_STATS_ADD(member, key, what) member += other.member;
    ACS_SCHEDULER_STATS(ACS_SCHEDULER_STATS_ADD)
#undef ACS_SCHEDULER_STATS_ADD
    return *this;
  }
};

}  // namespace acs
