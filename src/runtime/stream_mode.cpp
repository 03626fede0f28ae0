#include "src/runtime/stream_mode.hpp"

#include <algorithm>

#include "src/support/config.hpp"
#include "src/support/log.hpp"
#include "src/support/process.hpp"
#include "src/support/hot_path.hpp"

namespace acs {

// A spin lock: the critical sections are a few dozen instructions and almost never contended.
class stream_mode::lock_guard {
 public:
  explicit lock_guard(std::atomic<bool>& flag) noexcept : flag_(flag) {
    while (flag_.exchange(true, std::memory_order_acquire)) {
      while (flag_.load(std::memory_order_relaxed)) {
      }
    }
  }
  ~lock_guard() { flag_.store(false, std::memory_order_release); }
  lock_guard(const lock_guard&) = delete;
  lock_guard& operator=(const lock_guard&) = delete;

 private:
  std::atomic<bool>& flag_;
};

namespace {

void one_cpu_only() noexcept {
  log::print_once(log_level::info, "relay:one_cpu",
                  "ACS_RELAY is off: this process may use one CPU only (its affinity mask, or its cgroup's CPU "
                  "limit), which acs's thread would take from the program");
}

// The cgroup CPU limit `limit_of` reads leaves the relay's thread a CPU (none set, or two or more).
bool relay_room(unsigned (*limit_of)() noexcept) noexcept {
  if (process::room_for_a_spinning_thread(2, limit_of != nullptr ? limit_of() : 0)) return true;
  one_cpu_only();
  return false;
}

}  // namespace

stream_mode_policy stream_mode_policy::from_settings() noexcept {
  stream_mode_policy p;
  p.start_aside = settings().step_aside && settings().start_aside;
  p.need_backlog = settings().probe_backlog;
  p.launch_bound_counts = settings().graph && !settings().graph_pool;  // launch segments
  p.first_probe_after = settings().first_probe;
  // The relay's thread needs a CPU of its own: with one, it would take the program's (an affinity
  // mask of one CPU, or a cgroup CPU limit under two: a container's --cpus). The mask is read here,
  // at the stream's first launch (one system call); the cgroup limit's files only when a relay
  // would start (relay_room), by when acs's background thread has read them (start.cpp). With
  // ACS_RELAY=always the relay starts at the first launch: asked here.
  p.relay = settings().relays() && process::affinity_cpus() >= 2;
  p.relay_always = p.relay && settings().relay == relay_mode::always;
  if (p.relay_always) p.relay = p.relay_always = relay_room(&process::process_cgroup_cpu_limit);
  if (p.relay) p.relay_cgroup_limit = &process::process_cgroup_cpu_limit;
  if (settings().relays() && !p.relay) one_cpu_only();
  return p;
}

bool stream_mode::conflicts_with_previous(const access_set& footprint) {
  const bool conflict = !has_previous_ || previous_.conflicts_with(footprint);
  previous_.keep(footprint);
  has_previous_ = true;
  return conflict;
}

ACS_HOT stream_mode::aside_step stream_mode::next_aside_launch(std::uint64_t launches) noexcept {
  lock_guard lock(locked_);
  if (probe_left_ > 0) {
    // A pause (probe_unsettled) ends within this batch of launches: the burst goes on at once.
    const std::uint64_t n = std::max<std::uint64_t>(launches, 1);
    if (probe_paused_ > n) {
      probe_paused_ -= n;
      return aside_step::direct;
    }
    probe_paused_ = 0;
    return aside_step::probe;
  }
  if (until_probe_ > 0) {
    until_probe_ -= std::min<std::uint64_t>(until_probe_, std::max<std::uint64_t>(launches, 1));
    return aside_step::direct;
  }
  probe_left_ = first_probe_due_ ? std::max(policy_.first_probe_burst, 1u) : policy_.probe_burst;
  probe_needed_ = first_probe_due_ ? std::max(policy_.first_probe_independent, 1u) : policy_.probe_independent;
  first_probe_due_ = false;
  probe_found_ = probe_independent_ = probe_busy_ = probe_pauses_ = 0;
  has_previous_ = false;  // the probe compares its own consecutive launches
  probe_entry_ = probe_exit_ = last_inside_ns_ = gap_ns_ = 0;  // and times its own launches
  relay_gaps_ = relay_long_gaps_ = 0;
  probe_counted_ = 0;
  return aside_step::probe;
}

void stream_mode::probe_unsettled(std::uint64_t progress) noexcept {
  lock_guard lock(locked_);
  if (probe_left_ == 0) return;
  probe_paused_ = policy_.unsettled_pause;
  probe_counted_ = 0;  // the pause's direct launches are not the probe's: its waits are counted anew
  if (probe_pauses_++ == 0) probe_progress_ = progress;
  has_previous_ = false;  // the launch after the pause is no neighbour of the one before it
}

bool stream_mode::probe_waited_enough(std::uint64_t progress) noexcept {
  lock_guard lock(locked_);
  return probe_pauses_ >= policy_.unsettled_pauses && progress == probe_progress_;
}

void stream_mode::probe_began(std::uint64_t entry_ns) noexcept {
  lock_guard lock(locked_);
  // The gap since the previous probed launch returned; 0 (unknown) when that one was not timed.
  gap_ns_ = probe_exit_ != 0 && entry_ns > probe_exit_ ? entry_ns - probe_exit_ : 0;
  if (gap_ns_ != 0) {
    ++relay_gaps_;
    relay_long_gaps_ += gap_ns_ >= policy_.relay_gap_ns && gap_ns_ <= policy_.relay_gap_max_ns ? 1 : 0;
  }
  probe_entry_ = entry_ns;
  probe_exit_ = 0;
}

void stream_mode::probe_ended(std::uint64_t exit_ns) noexcept {
  lock_guard lock(locked_);
  last_inside_ns_ = probe_entry_ != 0 && exit_ns > probe_entry_ ? exit_ns - probe_entry_ : 0;
  probe_entry_ = 0;
  probe_exit_ = exit_ns;
}

bool stream_mode::launch_bound_locked() const noexcept {
  // Per launch, so that one pause of the program (a sync, a read-back) costs the probe one
  // launch, not the whole burst.
  return last_inside_ns_ != 0 && gap_ns_ != 0 && gap_ns_ < last_inside_ns_;
}

bool stream_mode::launch_bound() noexcept {
  lock_guard lock(locked_);
  return launch_bound_locked();
}

bool stream_mode::independent_of_previous(const access_set& footprint) noexcept {
  lock_guard lock(locked_);
  return has_previous_ && !previous_.conflicts_with(footprint);
}

bool stream_mode::probed(const access_set& footprint, bool stream_busy, bool may_relay, relay_record relay,
                         std::uint64_t gpu_waits) {
  probe_outcome outcome;
  {
    lock_guard lock(locked_);
    if (mode_.load(std::memory_order_relaxed) != stream_mode_kind::aside || probe_left_ == 0) return false;
    if (probe_counted_++ == 0) probe_waits_mark_ = gpu_waits;
    // The burst's first conflicts by definition. An independent launch onto an idle stream could
    // not have overlapped anything: it counts only where the policy does not ask for a backlog.
    const bool independent = !conflicts_with_previous(footprint);
    if (independent &&
        (stream_busy || !policy_.need_backlog || (policy_.launch_bound_counts && launch_bound_locked())))
      ++probe_found_;
    probe_independent_ += independent ? 1 : 0;
    probe_busy_ += stream_busy ? 1 : 0;
    --probe_left_;
    if (probe_found_ >= probe_needed_) {
      probe_left_ = 0;
      chained_ = 0;
      redirected_launches_ = 0;
      mode_.store(stream_mode_kind::redirect, std::memory_order_release);
      relaying_.store(false, std::memory_order_release);  // the pool takes its launches
      outcome = {true, true, probe_found_, probe_needed_, probe_independent_, probe_busy_, 0};
    } else if (probe_left_ == 0 || probe_found_ + probe_left_ < probe_needed_) {
      // Found too few, or cannot find enough in the launches left: each costs a footprint.
      // Doubles up to max_probe_gap; a longer gap, left by returns that did not last, stays.
      probe_left_ = 0;
      probe_gap_ = std::max<std::uint64_t>(probe_gap_, std::min<std::uint64_t>(probe_gap_ * 2, policy_.max_probe_gap));
      until_probe_ = probe_gap_;
      outcome = {true, false, probe_found_, probe_needed_, probe_independent_, probe_busy_, probe_gap_};
      relaying_.store(relay_verdict(may_relay, relay, gpu_waits), std::memory_order_release);
      outcome.relay_gaps = relay_gaps_;
      outcome.relay_long_gaps = relay_long_gaps_;
      outcome.relaying = relaying_.load(std::memory_order_relaxed);
      outcome.gpu_waits = waits_since_mark(gpu_waits);
      outcome.counted = probe_counted_;
    }
  }
  // Printed outside the spin lock, and only when a probe ends (ACS_LOG_LEVEL=debug).
  if (outcome.ended) {
    if (outcome.redirects)
      log::debug("stream {}: a probe found {} independent launches (of its launches {} independent, {} onto "
                 "a stream found busy): redirected to the pool",
                 fmt::ptr(this), outcome.found, outcome.independent, outcome.busy);
    else
      log::debug("stream {}: a probe found {} of the {} independent launches it needs (of its launches {} "
                 "independent, {} onto a stream found busy): stays aside, next probe in {} launches{}",
                 fmt::ptr(this), outcome.found, outcome.needed, outcome.independent, outcome.busy, outcome.next_probe,
                 !policy_.relay ? std::string()
                                : fmt::format("; {} of its {} gaps of {}-{} ns, {} waits for the GPU in its last {} "
                                              "launches: launches {}",
                                              outcome.relay_long_gaps, outcome.relay_gaps, policy_.relay_gap_ns,
                                              policy_.relay_gap_max_ns, outcome.gpu_waits, outcome.counted,
                                              outcome.relaying ? "relayed" : "made on the program's thread"));
  }
  return outcome.redirects;
}

bool stream_mode::relay_verdict(bool may_relay, relay_record now, std::uint64_t gpu_waits) noexcept {
  if (!policy_.relay || !may_relay) return false;
  if (policy_.relay_always) return true;
  const bool was = relaying_.load(std::memory_order_relaxed);
  if (relay_deaf_ > 0) {
    --relay_deaf_;
    return false;
  }
  // The waits between the probe's first counted launch and this one, over the launches between.
  if (probe_counted_ > 1 && waits_since_mark(gpu_waits) * std::max(policy_.relay_waits_per, 1u) >= probe_counted_ - 1)
    return false;
  // Decided anew by the gaps; a probe that timed none changes nothing.
  if (relay_gaps_ == 0) return was;
  const bool relays = 2 * relay_long_gaps_ >= relay_gaps_ && (was || relay_room(policy_.relay_cgroup_limit));
  if (relays && !was) relay_window_from(now);
  return relays;
}

void stream_mode::relay_window_from(relay_record now) noexcept {
  relay_mark_ = now;
  relay_countdown_ = std::max(policy_.relay_checked_after, 1u);
  relay_waits_due_ = now.waited + std::max(policy_.relay_checked_after / std::max(policy_.relay_waits_per, 1u), 1u);
}

bool stream_mode::relay_judged(relay_record now) noexcept {
  std::uint64_t relayed = 0, waited = 0;
  unsigned backoff = 0;
  {
    lock_guard lock(locked_);
    if (!relaying_.load(std::memory_order_relaxed)) return false;
    relayed = now.relayed - relay_mark_.relayed;
    waited = now.waited - relay_mark_.waited;
    if (waited * policy_.relay_waits_per < relayed) {
      relay_window_from(now);
      return false;
    }
    relay_mark_ = now;
    relay_backoff_ = std::min(std::max(relay_backoff_ * 2, 1u), std::max(policy_.max_relay_backoff, 1u));
    relay_deaf_ = backoff = relay_backoff_;
    relaying_.store(false, std::memory_order_release);
  }
  log::debug("stream {}: the program waited for {} of the device's last {} relayed launches: its launches are made "
             "on the program's thread, the next {} probes not heard on the relay",
             fmt::ptr(this), waited, relayed, backoff);
  return true;
}

bool stream_mode::redirected(const access_set& footprint) {
  std::uint64_t launches = 0, next_probe = 0;
  {
    lock_guard lock(locked_);
    if (mode_.load(std::memory_order_relaxed) != stream_mode_kind::redirect) return false;
    chained_ = conflicts_with_previous(footprint) ? chained_ + 1 : 0;
    ++redirected_launches_;
    if (chained_ < policy_.chain_to_step_aside) return false;
    // A stay on the pool that did not last: probe it less often than last time.
    const bool brief = probe_gap_ != 0 && redirected_launches_ < policy_.first_probe_gap;
    probe_gap_ = brief ? std::min<std::uint64_t>(probe_gap_ * 2, policy_.max_return_gap) : policy_.first_probe_gap;
    until_probe_ = probe_gap_;
    probe_left_ = 0;
    mode_.store(stream_mode_kind::aside, std::memory_order_release);
    if (policy_.relay_always) relaying_.store(true, std::memory_order_release);  // at once
    launches = redirected_launches_;
    next_probe = probe_gap_;
  }
  log::debug("stream {}: {} launches in a row each conflicted with the one before (of {} since it was "
             "redirected): steps aside, next probe in {} launches",
             fmt::ptr(this), policy_.chain_to_step_aside, launches, next_probe);
  return true;
}

void stream_mode::start() noexcept {
  seen_.store(false, std::memory_order_release);
  has_previous_ = false;
  chained_ = 0;
  until_probe_ = probe_left_ = probe_found_ = 0;
  probe_paused_ = 0;
  probe_pauses_ = 0;
  probe_entry_ = probe_exit_ = last_inside_ns_ = gap_ns_ = 0;
  relay_gaps_ = relay_long_gaps_ = 0;
  relay_mark_ = {};
  relay_backoff_ = relay_deaf_ = relay_countdown_ = 0;
  relay_waits_due_ = 0;
  // ACS_RELAY=always: a stream that starts aside is relayed from its first launch.
  relaying_.store(policy_.relay_always && policy_.start_aside, std::memory_order_release);
  redirected_launches_ = 0;
  first_probe_due_ = false;
  if (policy_.start_aside) {
    // The first probe comes after first_probe_after direct launches (at once with 0). A probe
    // that finds nothing doubles the gap: from half the first gap, the next probe comes after
    // first_probe_gap launches.
    until_probe_ = policy_.first_probe_after;
    first_probe_due_ = true;
    probe_gap_ = std::max(policy_.first_probe_gap / 2, 1u);
    mode_.store(stream_mode_kind::aside, std::memory_order_release);
  } else {
    probe_gap_ = 0;
    mode_.store(stream_mode_kind::redirect, std::memory_order_release);
  }
}

void stream_mode::reset() noexcept {
  lock_guard lock(locked_);
  start();
}

}  // namespace acs
