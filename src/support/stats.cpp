#include "src/support/stats.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "src/support/config.hpp"
#include "src/support/process.hpp"
#include "src/trace/measure.hpp"
#include "src/trace/session.hpp"

namespace acs::stats {

namespace {

std::atomic<scheduler_source> source{nullptr};

double mean_occupancy(const scheduler_stats& k) {
  return k.kernels == 0 ? 0.0 : static_cast<double>(k.occupancy_sum) / static_cast<double>(k.kernels);
}
double mean_occupancy(const summary& s) { return mean_occupancy(s.scheduler); }

std::uint64_t total_passed(const summary& s) {
  std::uint64_t n = 0;
  for (auto v : s.passed) n += v;
  return n;
}

// Runs after the tracer's own exit handler (registered later, at its start),
// so the measured figures come from its final flush: no CUDA or CUPTI call here.
// Nothing in a process that never used CUDA (rule 14), nor in a child forked after it did
// (rule 13: the parent's threads may hold the locks that collecting takes).
// ACS_STATS_FILE: the machine line, with the pid, appended in one write (processes that share
// the file, a program's children, each add whole lines). False when it could not be written.
bool append_line(const std::string& path, const std::string& line) noexcept {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  const ssize_t written = ::write(fd, line.data(), line.size());
  const int saved = errno;
  ::close(fd);
  errno = saved;
  return written == static_cast<ssize_t>(line.size());
}

void print_at_exit() {
  if (!process::cuda_used() || process::forked_child()) return;
  try {
    const config& c = settings();
    const summary s = collect();
    const std::optional<trace::measured> m = trace::measured_figures();
    const std::string machine = format_machine(s) + trace::machine_fields(m ? &*m : nullptr);
    bool to_stderr = c.stats;
    if (!c.stats_file.empty() && !append_line(c.stats_file, fmt::format("{} pid={}\n", machine, ::getpid()))) {
      std::fprintf(stderr, "[acs] [warn] ACS_STATS_FILE: cannot append to %s (%s); the statistics follow here\n",
                   c.stats_file.c_str(), std::strerror(errno));
      to_stderr = true;
    }
    if (!to_stderr) return;
    std::string text = format_human(s);
    if (m) text += trace::human_lines(*m);
    text += machine + "\n";
    std::fputs(text.c_str(), stderr);
    std::fflush(stderr);
  } catch (...) {
  }
}

// Counting must start before the first launch, and the exit handler should run
// late (after the application's own): both are set up when the library loads,
// invisibly: the handler prints only if the program used CUDA. The settings are
// parsed quietly here; their warnings come on first use.
__attribute__((constructor)) void enable_if_requested() {
  try {
    if (parse_config([](const char* name) { return std::getenv(name); }).counting_stats()) enable_at_exit();
  } catch (...) {
  }
}

}  // namespace

detail::counters& detail::global() noexcept {
  static auto* const c = new counters;  // never destroyed: read at exit
  return *c;
}

void set_scheduler_source(scheduler_source s) noexcept { source.store(s, std::memory_order_release); }

void add_scheduler(summary& s, int device, const scheduler_stats& stats) {
  s.scheduler += stats;
  ++s.devices;
  auto it = s.per_device.begin();
  while (it != s.per_device.end() && it->device < device) ++it;
  if (it == s.per_device.end() || it->device != device) it = s.per_device.insert(it, device_figures{device, {}});
  it->scheduler += stats;
}

summary collect() noexcept {
  summary s;
  const detail::counters& c = detail::global();
  s.kernels_seen = c.kernels_seen.load(std::memory_order_relaxed);
  for (std::size_t i = 0; i < reason_count; ++i) s.passed[i] = c.passed[i].load(std::memory_order_relaxed);
  s.functions_ptx = c.functions_ptx.load(std::memory_order_relaxed);
  s.functions_no_ptx = c.functions_no_ptx.load(std::memory_order_relaxed);
  s.probes_busy = c.probes_busy.load(std::memory_order_relaxed);
  s.probes_idle = c.probes_idle.load(std::memory_order_relaxed);
  s.probes_launch_bound = c.probes_launch_bound.load(std::memory_order_relaxed);
  s.probe_pauses = c.probe_pauses.load(std::memory_order_relaxed);
  s.probe_code_waits = c.probe_code_waits.load(std::memory_order_relaxed);
  s.probe_code_wait_ns = c.probe_code_wait_ns.load(std::memory_order_relaxed);
  s.condition_changes = c.condition_changes.load(std::memory_order_relaxed);
  s.condition_repeats = c.condition_repeats.load(std::memory_order_relaxed);
  for (std::size_t i = 0; i < uncopied_count; ++i)
    s.uncopied_launches[i] = c.uncopied_launches[i].load(std::memory_order_relaxed);
  if (const scheduler_source f = source.load(std::memory_order_acquire)) {
    try {
      f(s);
    } catch (...) {  // out of memory for the per-device figures: the sums so far stand
    }
  }
  return s;
}

std::string format_machine(const summary& s) {
  const scheduler_stats& k = s.scheduler;
  std::string out = fmt::format("acs-stats: kernels_seen={}", s.kernels_seen);
#define ACS_STATS_FIELD(member, key, what) out += fmt::format(" " #key "={}", k.member);
  ACS_SCHEDULER_STATS(ACS_STATS_FIELD)
#undef ACS_STATS_FIELD
  out += fmt::format(" mean_occupancy={:.2f} devices={} functions_ptx={} functions_no_ptx={} probes_busy={}"
                     " probes_idle={} probes_launch_bound={} probe_pauses={} probe_code_waits={}"
                     " probe_code_wait_us={} condition_changes={} condition_repeats={} passed={}",
                     mean_occupancy(s), s.devices, s.functions_ptx, s.functions_no_ptx, s.probes_busy,
                     s.probes_idle, s.probes_launch_bound, s.probe_pauses, s.probe_code_waits,
                     s.probe_code_wait_ns / 1000, s.condition_changes, s.condition_repeats, total_passed(s));
  for (std::size_t i = 0; i < reason_count; ++i)
    out += fmt::format(" pass_{}={}", reason_name(static_cast<pass_reason>(i)), s.passed[i]);
  for (std::size_t i = 0; i < uncopied_count; ++i)
    out += fmt::format(" uncopied_{}={}", uncopied_name(static_cast<uncopied>(i)), s.uncopied_launches[i]);
  // Per device: what tells whether each device's kernels went to its own pool, and how they fared.
  for (const device_figures& d : s.per_device) {
    const scheduler_stats& dk = d.scheduler;
    out += fmt::format(" device{0}_dispatched={1} device{0}_independent={2} device{0}_dependency_waits={3}"
                       " device{0}_barriers={4} device{0}_in_place={5} device{0}_mean_occupancy={6:.2f}",
                       d.device, dk.kernels, dk.independent, dk.dependency_waits, dk.barriers, dk.starved,
                       mean_occupancy(dk));
  }
  return out;
}

std::string format_human(const summary& s) {
  const scheduler_stats& k = s.scheduler;
  std::string out = fmt::format(
      "[acs] stats: {} kernels seen, {} dispatched to the pool ({} with nothing to wait for, {} "
      "behind their producer, {} whose event was never needed ({} merged into their successor)), {} dependency waits, {} fork waits, {} "
      "join waits, {} barriers, {} folds, mean window occupancy {:.2f}, {} launch errors, {} device(s)\n",
      s.kernels_seen, k.kernels, k.independent, k.same_stream, k.shadowed, k.merged, k.dependency_waits,
      k.fork_waits, k.join_waits, k.barriers, k.folds, mean_occupancy(s), k.launch_errors, s.devices);
  out += fmt::format("[acs] stats: {} kernel functions, {} with their PTX read (parameters never written "
                     "through count as read only)\n",
                     s.functions_ptx + s.functions_no_ptx, s.functions_ptx);
  if (s.probes_idle != 0)
    out += fmt::format("[acs] stats: {} of {} probed launches independent of their predecessor found their stream idle "
                       "(the GPU kept up with the host: such launches do not count as parallelism, "
                       "ACS_PROBE_BACKLOG; the others' streams are not asked)\n",
                       s.probes_idle, s.probes_idle + s.probes_busy);
  if (s.probes_launch_bound != 0)
    out += fmt::format("[acs] stats: {} of them while the host was launch-bound (its launch calls took longer than "
                       "its time between them): those count, since graph replay amortises the launches\n",
                       s.probes_launch_bound);
  if (s.probe_pauses != 0 || s.probe_code_waits != 0)
    out += fmt::format("[acs] stats: probes paused {} times for code still being read on acs's background thread; "
                       "{} probed launches read their kernel's layout themselves, {:.3f} ms on the program's thread\n",
                       s.probe_pauses, s.probe_code_waits, static_cast<double>(s.probe_code_wait_ns) / 1e6);
  if (k.starved != 0)
    out += fmt::format("[acs] stats: {} kernels ran on their own stream: every pool stream of their priority held "
                       "another stream's unfinished work (streams stay apart)\n",
                       k.starved);
  if (k.deferred != 0 || k.deferred_failures != 0)
    out += fmt::format("[acs] stats: {} launches issued by acs's thread ({} failed there), {} waits for it\n",
                       k.deferred, k.deferred_failures, k.issue_waits);
  if (s.condition_changes != 0)
    out += fmt::format("[acs] stats: {} calls that may change whether a launch succeeds (a function's attributes, "
                       "a limit, code unloaded): each one waited for the launches acs's threads still held, and "
                       "after it no launch is copied for them before its kind succeeded again\n",
                       s.condition_changes);
  if (s.condition_repeats != 0)
    out += fmt::format("[acs] stats: {} sets of a function's attribute to the value it already held, "
                       "which changed nothing\n",
                       s.condition_repeats);
  if (std::any_of(s.uncopied_launches.begin(), s.uncopied_launches.end(), [](std::uint64_t n) { return n != 0; })) {
    out += "[acs] stats: launches not copyable for acs's threads, the relay or a graph (made at once), by reason:";
    const char* between = " ";
    for (std::size_t i = 0; i < uncopied_count; ++i) {
      if (s.uncopied_launches[i] == 0) continue;
      out += fmt::format("{}{} {}", between, uncopied_name(static_cast<uncopied>(i)), s.uncopied_launches[i]);
      between = ", ";
    }
    out += "\n";
  }
  if (k.relayed != 0 || k.relay_in_place != 0)
    out += fmt::format("[acs] stats: {} launches of stepped-aside streams relayed to acs's thread (ACS_RELAY), {} made "
                       "at once (the first of their kind, or the thread asleep); the program waited for one not yet "
                       "made {} times\n",
                       k.relayed, k.relay_in_place, k.relay_waits);
  if (s.per_device.size() > 1) {
    out += "[acs] stats: per device:";
    const char* between = " ";
    for (const device_figures& d : s.per_device) {
      out += fmt::format("{}device {}: {} dispatched, {} dependency waits, {} barriers", between, d.device,
                         d.scheduler.kernels, d.scheduler.dependency_waits, d.scheduler.barriers);
      between = "; ";
    }
    out += "\n";
  }
  if (k.graph_replays != 0 || k.graph_call_by_call != 0 || k.graph_skimmed != 0)
    out += fmt::format("[acs] stats: graph replay: {} segments launched as graphs ({} kernels, {} "
                       "updated in place), {} call by call, {} graphs built, {} evicted, {} failures; {} "
                       "segments not examined for recurrence (ACS_GRAPH_SAMPLE)\n",
                       k.graph_replays, k.graph_kernels, k.graph_updates, k.graph_call_by_call, k.graphs_built,
                       k.graph_evictions, k.graph_failures, k.graph_skimmed);
  out += fmt::format("[acs] stats: {} passed through", total_passed(s));
  const char* sep = " (";
  for (std::size_t i = 0; i < reason_count; ++i) {
    if (s.passed[i] == 0) continue;
    out += fmt::format("{}{} {}", sep, reason_name(static_cast<pass_reason>(i)), s.passed[i]);
    sep = ", ";
  }
  out += *sep == ',' ? ")\n" : "\n";
  return out;
}

void enable_at_exit() noexcept {
  static std::atomic<bool> registered{false};
  detail::counting.store(true, std::memory_order_relaxed);
  if (!registered.exchange(true)) std::atexit(print_at_exit);
}

}  // namespace acs::stats
