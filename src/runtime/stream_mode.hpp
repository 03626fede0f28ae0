#pragma once
// Whether acs redirects a virtual stream's kernels to the pool, or steps aside and lets them
// run on the stream itself: the "never slower" policy.
//
// Redirecting pays for itself only where kernels can overlap. On a stream whose every kernel
// depends on the one before it (a dependent chain, or a framework whose tensors all live in one
// allocation, so every footprint conflicts), the pool adds bookkeeping, events and a hand-off to
// the issuing threads and gains nothing. So each stream starts redirected, and after a run of
// `chain_to_step_aside` launches that each conflict with their predecessor, acs steps aside: the
// stream's pool work is joined into it, and its launches go straight to it, in order, with no
// footprint computed (rules 1-3 hold trivially: the stream runs as it would without acs).
//
// Parallelism may appear later (another phase of the program), so a stepped-aside stream is
// probed: a burst of `probe_burst` consecutive launches has its footprints computed and each
// compared with its predecessor's. A launch counts when it is independent of its predecessor
// and, with `need_backlog` (ACS_PROBE_BACKLOG), its stream still had work pending when it came:
// only then could it have overlapped anything. Where the GPU keeps up with the host (eager
// PyTorch at batch 1 keeps it 90% idle), each kernel starts on an idle stream, overlap gains
// nothing and the pool's host cost is pure loss. With `launch_bound_counts` (graph replay on),
// a launch onto an idle stream counts too where the host is launch-bound: its time since the
// previous probed launch returned is shorter than that launch's time in the hook. Such a host
// is slow because of the launches themselves, which graph replay amortises; a host busy between
// its launches (PyTorch's operator dispatch) would only make its GPU wait for held segments.
// If `probe_independent` launches count, the stream is redirected again (after a fork: later
// pool kernels wait for what ran on the stream meanwhile). A burst ends as soon as its launches
// left can no longer make up the count (a chain: after 11 of 16). A probe that finds nothing doubles
// the distance to the next one, up to `max_probe_gap`, so a stream that never shows parallelism
// costs ever less; so does a return to the pool that did not last (the stream stepped aside
// again within `first_probe_gap` launches): a stream whose parallelism is only occasional does
// not shuttle.
//
// A new stream's first probe may come only after `first_probe_after` launches: until then they
// go straight to the stream, as every launch of a stepped-aside stream does.
//
// Thread-safe: several application threads may launch on one stream. Each launch holds the
// stream's launch lock (hold_launches) from reading the mode until its kernel was issued or
// enqueued, so a change of mode and the join or fork that goes with it are one step for the
// stream's other launches: none of them may reach the stream directly while its pool work is
// not joined yet, or the pool after stepping aside (docs/design.md, "Never slower"). The lock
// is uncontended in practice (a stream is fed by one thread at a time), and the driver
// serialises launches on one stream anyway: an inline futex lock (futex_lock.hpp), since every
// launch of a stepped-aside stream takes it. The counters are taken under a spin lock.
#include <atomic>
#include <cstdint>
#include <mutex>

#include "scheduler/byte_range.hpp"
#include "scheduler/recent_footprint.hpp"
#include "scheduler/scheduler_config.hpp"
#include "src/support/futex_lock.hpp"

namespace acs {

enum class stream_mode_kind : std::uint8_t { redirect, aside };

struct stream_mode_policy {
  // Where a new stream starts (ACS_START_ASIDE): aside, its first launches a probe burst, so
  // that only a stream that showed parallelism ever pays for the pool; or redirected.
  bool start_aside = false;
  unsigned chain_to_step_aside = 32;  // consecutive conflicting launches before stepping aside
  unsigned probe_burst = 16;          // launches whose footprints a probe computes
  unsigned probe_independent = 6;     // of those, independent of their predecessor: redirect again
  // A new stream's first probe (start_aside): longer and easier to pass, since a multi-branch
  // network shows only a few independent launches (each branch's first kernel) among many
  // dependent ones, often after a chain (its stem); a dependent chain shows none.
  unsigned first_probe_burst = 32;
  unsigned first_probe_independent = 3;
  // Launches a new stream makes before its first probe (ACS_FIRST_PROBE): a program that launches
  // only a few kernels, often the first ones it times, pays nothing for probes (a footprint, a
  // stream query, a layout read on acs's thread per launch), and could not repay a scheduler.
  unsigned first_probe_after = 0;
  // A probed launch whose kernel's layout acs's background thread has not read yet (a function's
  // first probe: its parameters, and its module's PTX, which takes a millisecond or more) cannot
  // count, and the burst waits this many launches before its next one, which go straight to the
  // stream (and through the bypass) meanwhile. Without the pause every launch in that time took
  // acs's whole path as an unsettled probe: sortingNetworks' first probe, about 150 of them.
  unsigned unsettled_pause = 64;
  // After this many pauses of one burst in which acs's thread began no job at all (it gets no
  // CPU: a loaded machine), its next probed launch reads the layout itself, so that the burst
  // ends. A thread busy with other work (a long analysis) is waited for.
  unsigned unsettled_pauses = 4;
  unsigned first_probe_gap = 256;     // launches between stepping aside and the first probe
  // The gap doubles after each probe that finds nothing, up to this: a stream that stepped aside
  // in a serialised phase (a warm-up or profiling pass with a sync after every kernel) is found
  // again within this many launches once its parallelism returns. A probed launch's footprint
  // cost 13.8 µs in eager PyTorch on the H200 (no PTX, many argument words; stage timers,
  // docs/results/runs/2026-12-04-probe-cost/): a burst of 16 every 1024 launches was 0.22 µs per
  // launch, half of what acs added to a stream it stepped aside from; with a hopeless burst ended
  // early (a chain: 11 launches) it is about 0.15 µs. A longer gap would cost less, but a program
  // whose parallelism returns after a serialised phase would wait longer for it.
  unsigned max_probe_gap = 1024;
  // A return to the pool that did not last doubles the gap up to this instead: each such return
  // costs a fork, a join and 32 launches on the pool, so a stream whose parallelism is only
  // occasional must not shuttle every max_probe_gap launches. Failed probes keep a gap this long.
  unsigned max_return_gap = 1u << 16;
  // A probed launch counts only when its stream still had work pending (ACS_PROBE_BACKLOG)...
  bool need_backlog = false;
  // ...or, with this (ACS_GRAPH=auto), while the probe finds the host launch-bound.
  bool launch_bound_counts = false;
  // ACS_RELAY: at the end of a probe that leaves the stream aside, whether its launches are relayed
  // to an issuing thread from then on (docs/design.md, "The relay"). `relay`: where at least half
  // of the gaps between the probe's launches (the program's own time, from one launch's return to
  // the next launch's entry) were between `relay_gap_ns` and `relay_gap_max_ns`: a program busy
  // between its launches (eager PyTorch: 5-20 µs) goes on with its work while the thread makes the
  // driver call, but a tight launch loop would only wait for that thread, which adds its own
  // hand-off to each launch; and where launches come further apart than the thread spins for
  // (issue_queue.hpp: 200 µs), each would wake it (a system call on the program's thread) and keep
  // a CPU spinning for nothing, for a launch call that is a percent of the gap.
  // `relay_always`: whatever the gaps, and from the stream's first launch aside (a new stream that
  // starts aside, or one that steps aside), not only from a probe's end.
  // And a relaying stream keeps relaying only where it pays. The gaps time the program up to its
  // next launch, but a copy, sync or query in between makes it wait until the relayed launch was
  // issued (every call on a stream settles the relay): an iterative solver's launch, read-back and
  // sync gains nothing and pays the hand-off (jacobiCudaGraphs ran at x0.81 of native relayed). So
  // after every `relay_checked_after` launches the stream relays (or sooner, once the program
  // waited relay_checked_after / relay_waits_per times: radixSortThrust waited for each of its 41
  // relayed launches), where the program waited for a
  // relayed launch not yet made at least once per `relay_waits_per` launches relayed on the device
  // meanwhile (eager PyTorch: once per 56), the stream stops relaying, and its gaps are not heard
  // at the next probes' ends: 1, doubling with each such verdict up to `max_relay_backoff` (probes
  // end 256-1024 launches apart).
  // A probe also counts the program's waits for the GPU between its launches (stream, event and
  // device synchronizes on the probing thread): where it waited at least once per
  // `relay_waits_per` launches, the relay is not started (or stops) at the probe's end, whatever
  // the gaps. Such a program waits for each launch anyway, and relaying only puts acs's thread
  // between its launch and its wait: radixSortThrust (a sync or two per launch) paid about 2%
  // for the relay that began there and stopped again 16 launches later (docs/results/runs/
  // 2026-12-07-twentyfourth/).
  bool relay = false;
  bool relay_always = false;
  // Where a relay about to start asks the process's cgroup CPU limit (whole CPUs, 0: none; it
  // starts only with none or two or more). from_settings: process::process_cgroup_cpu_limit, whose
  // files acs's background thread reads meanwhile, not a launch (the affinity mask is part of
  // `relay` already). nullptr: not asked.
  unsigned (*relay_cgroup_limit)() noexcept = nullptr;
  std::uint64_t relay_gap_ns = 1000;
  std::uint64_t relay_gap_max_ns = 150000;
  unsigned relay_checked_after = 64;
  unsigned relay_waits_per = 4;
  unsigned max_relay_backoff = 64;

  /// @brief The runtime's policy: these defaults, and where streams start from ACS_START_ASIDE.
  static stream_mode_policy from_settings() noexcept;
};

class alignas(64) stream_mode {
 public:
  explicit stream_mode(stream_mode_policy policy = {}) noexcept : policy_(policy) { start(); }
  stream_mode(const stream_mode&) = delete;
  stream_mode& operator=(const stream_mode&) = delete;

  /// @brief Held by a launch on the stream from its first look at the mode until it was issued
  /// (or enqueued), and by everything that changes the mode together with a join or fork.
  [[nodiscard]] std::unique_lock<futex_lock> hold_launches() noexcept { return std::unique_lock(launches_); }

  /// @brief The current mode: one acquire load.
  stream_mode_kind mode() const noexcept { return mode_.load(std::memory_order_acquire); }

  /// @brief What to do with one launch of a stepped-aside stream.
  enum class aside_step : std::uint8_t {
    direct,  // launch it on the stream, nothing else
    probe,   // compute its footprint and pass it to probed()
  };
  /// `launches` counts this one and those its thread bypassed since its previous one
  /// (src/support/bypass.hpp): they bring the next probe nearer too.
  aside_step next_aside_launch(std::uint64_t launches = 1) noexcept;

  /// @brief Whether a probed launch must find its stream busy to count (the policy's need_backlog).
  bool needs_backlog() const noexcept { return policy_.need_backlog; }

  /// @brief Whether `footprint` would count as independent of the previous probed launch (the
  /// burst's first never does). Changes nothing: probed() decides. Where it is false, whether the
  /// stream is busy cannot matter, and the caller need not ask the driver.
  bool independent_of_previous(const access_set& footprint) noexcept;

  /// @brief The footprint of a probed launch, and whether its stream still had work pending when
  /// it came (ignored without need_backlog). Returns true when the stream is to be redirected
  /// again, from this launch on; the mode is then `redirect` already.
  /// A probe that ends without redirecting decides whether the stream is relayed from then on
  /// (relaying; never where `may_relay` is false: a thread-relative stream, which only its own
  /// thread may issue on); `relay`: the device's record now, from which a relay that begins here is
  /// judged (relay_judged); `gpu_waits`: the calling thread's waits for the GPU so far
  /// (program_waits_for_gpu, dispatch.hpp), by which a probe tells a program that waits for its
  /// launches too often for a relay to pay.
  bool probed(const access_set& footprint, bool stream_busy = true, bool may_relay = true, relay_record relay = {},
              std::uint64_t gpu_waits = 0);

  /// @brief A probed launch's footprint was not settled (its kernel's layout is being read): it
  /// counts for nothing, and the burst pauses for the policy's unsettled_pause launches (those
  /// go direct); the launch after the pause is compared with none before it. `progress`: the
  /// background thread's jobs begun so far (background::jobs_begun()).
  void probe_unsettled(std::uint64_t progress) noexcept;

  /// @brief Whether the current burst paused unsettled_pauses times already while the background
  /// thread began no job (`progress` as at its first pause): its next probed launch may then
  /// read its kernel's layout on the launch path.
  bool probe_waited_enough(std::uint64_t progress) noexcept;

  /// @brief Whether probed launches are to be timed (probe_began, probe_ended): the policy asks
  /// for a backlog and lets a launch-bound host count instead, or decides on the relay by the gaps.
  bool times_probes() const noexcept { return (policy_.need_backlog && policy_.launch_bound_counts) || policy_.relay; }

  /// @brief A launch of the stream was relayed (under hold_launches); `waited`: the device's relay
  /// waits so far (relay_record::waited). Whether the relay is due to be judged: every
  /// relay_checked_after of them, or sooner once the program waited relay_checked_after /
  /// relay_waits_per times since the last judgement (what would stop it at the window's end
  /// anyway, where the stream relays alone); never with relay_always. Then relay_judged.
  bool relay_check_due(std::uint64_t waited) noexcept {
    if (policy_.relay_always || relay_countdown_ == 0) return false;
    return --relay_countdown_ == 0 || waited >= relay_waits_due_;
  }
  /// @brief Judges the relay by the device's record now (stream_mode_policy::relay_waits_per):
  /// returns true where the stream stops relaying, from its next launch on.
  bool relay_judged(relay_record now) noexcept;

  /// @brief Whether the stream's launches are relayed to an issuing thread (ACS_RELAY), as decided
  /// at the end of its last probe (probed), or from the start with relay_always: one acquire load.
  /// Only ever true while it is aside.
  bool relaying() const noexcept { return relaying_.load(std::memory_order_acquire); }
  /// @brief A probed launch entered acs's hook (steady-clock ns), before probed(): the host's
  /// time since the previous probed launch returned counts as time between launches.
  void probe_began(std::uint64_t entry_ns) noexcept;
  /// @brief That launch went to its stream and returns now: its time inside the hook counts as
  /// launch time.
  void probe_ended(std::uint64_t exit_ns) noexcept;
  /// @brief Whether the host is launch-bound at the current probed launch: the gap before it
  /// (since the previous probed launch returned) is shorter than that launch's time in the hook.
  bool launch_bound() noexcept;

  /// @brief The footprint of a redirected launch, before it is dispatched. Returns true when the
  /// stream steps aside, from this launch on; the mode is then `aside` already.
  bool redirected(const access_set& footprint);

  /// @brief True for the stream's first launch only: from then on it counts among the
  /// redirected streams (redirected_streams(), streams.hpp) while its mode is `redirect` (a
  /// stream that starts aside is counted when a probe redirects it).
  bool first_launch() noexcept {
    // A load first: after the first launch, no read-modify-write on every launch.
    return !seen_.load(std::memory_order_acquire) && !seen_.exchange(true, std::memory_order_acq_rel);
  }

  /// @brief Whether the stream counts among the redirected streams now.
  /// A relaying stream counts too: its launches may still be queued, not yet on the stream, and
  /// every call on a stream must first see them issued (the bypass stays closed).
  bool counted() const noexcept {
    return seen_.load(std::memory_order_acquire) && (mode() == stream_mode_kind::redirect || relaying());
  }

  /// @brief Back to new, in the policy's starting mode (the stream is forgotten; its object
  /// may serve another).
  void reset() noexcept;

  /// @brief The policy's starting mode.
  bool starts_aside() const noexcept { return policy_.start_aside; }

 private:
  // The starting state (under locked_, or before the object is shared).
  void start() noexcept;
  class lock_guard;
  // How a probed launch ended its probe, for the debug log printed outside the lock.
  struct probe_outcome {
    bool ended = false, redirects = false;
    unsigned found = 0, needed = 0, independent = 0, busy = 0;
    std::uint64_t next_probe = 0;
    unsigned relay_gaps = 0, relay_long_gaps = 0;
    bool relaying = false;
    std::uint64_t gpu_waits = 0;  // the program's waits for the GPU during the probe's last `counted` launches
    unsigned counted = 0;
  };
  // The calling thread's waits for the GPU since the probe's mark (under locked_); a count lower
  // than the mark, another thread's, says nothing: 0.
  std::uint64_t waits_since_mark(std::uint64_t gpu_waits) const noexcept {
    return gpu_waits >= probe_waits_mark_ ? gpu_waits - probe_waits_mark_ : 0;
  }
  // ACS_RELAY at a probe's end (under locked_): whether the stream relays from now on.
  bool relay_verdict(bool may_relay, relay_record now, std::uint64_t gpu_waits) noexcept;
  // A relay is judged from `now` on (under locked_ and launches_): its mark, its countdown, and the
  // device's wait count at which it is judged sooner (relay_check_due).
  void relay_window_from(relay_record now) noexcept;
  // Whether `footprint` conflicts with the previous footprint seen, which it then replaces.
  bool conflicts_with_previous(const access_set& footprint);
  bool launch_bound_locked() const noexcept;

  // First, in the object's first cache line: what a stepped-aside stream's every launch reads
  // (its lock, the mode, next_aside_launch's counters); the rest only probes and redirects read.
  futex_lock launches_;
  std::atomic<stream_mode_kind> mode_{stream_mode_kind::redirect};
  std::atomic<bool> seen_{false};
  std::atomic<bool> locked_{false};
  std::atomic<bool> relaying_{false};  // ACS_RELAY: set at a probe's end, under locked_
  // Under locked_:
  unsigned probe_left_ = 0;     // aside: launches of the current probe still to compute
  std::uint64_t until_probe_ = 0;  // aside: direct launches before the next probe
  std::uint64_t probe_paused_ = 0;  // aside: direct launches before the current probe goes on
  unsigned probe_pauses_ = 0;       // aside: the current probe's pauses so far
  std::uint64_t probe_progress_ = 0;  // aside: the background thread's jobs begun at its first pause
  stream_mode_policy policy_;   // set at construction
  // Under locked_ too:
  recent_footprint previous_;
  bool has_previous_ = false;
  unsigned chained_ = 0;        // redirect: consecutive launches conflicting with their predecessor
  unsigned probe_found_ = 0;    // aside: independent launches found by the current probe
  unsigned probe_needed_ = 0;   // aside: how many the current probe must find
  unsigned probe_independent_ = 0, probe_busy_ = 0;  // aside: the current probe's launches, for the log
  std::uint64_t probe_gap_ = 0;
  bool first_probe_due_ = false;  // aside: the coming probe is the stream's first (start_aside)
  // aside, times_probes(): the current probe's host times (steady-clock ns; 0: not measured)
  std::uint64_t probe_entry_ = 0, probe_exit_ = 0;  // the timed launch's entry, the last one's return
  std::uint64_t last_inside_ns_ = 0;  // the previous probed launch's time in the hook
  std::uint64_t gap_ns_ = 0;          // from its return to this launch's entry
  unsigned relay_gaps_ = 0, relay_long_gaps_ = 0;  // the current probe's timed gaps; those in the relay's range
  // The current probe's launches since its first (or since its last pause), and the thread's
  // waits for the GPU at that launch (probed's gpu_waits).
  unsigned probe_counted_ = 0;
  std::uint64_t probe_waits_mark_ = 0;
  relay_record relay_mark_;      // relaying: the device's record when the relay began or last paid
  unsigned relay_backoff_ = 0;   // probes without the relay after the last one that did not pay
  unsigned relay_deaf_ = 0;      // probes left whose gaps are not heard
  unsigned relay_countdown_ = 0;  // relaying: relayed launches until it is judged (under launches_)
  std::uint64_t relay_waits_due_ = 0;  // relaying: the device's waits at which it is judged sooner
  std::uint64_t redirected_launches_ = 0;  // redirect: launches since the stream was redirected
};

}  // namespace acs
