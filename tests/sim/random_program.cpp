#include "random_program.hpp"

#include <algorithm>
#include <random>
#include <sstream>

#include "app_order.hpp"
#include "footprint.hpp"

namespace acs::sim {
namespace {

using step_kind = program_step::kind;

class generator {
 public:
  generator(std::uint64_t seed, bool multigpu) : rng_(seed * 0x9e3779b97f4a7c15ULL + 1), multigpu_(multigpu) {
    p_.seed = seed;
  }

  program run() {
    choose_shape();
    const unsigned target = pick(10, 150);
    while (p_.steps.size() < target) one_step();
    p_.device.cells = main_cells_ + scratch_cells_;
    return std::move(p_);
  }

 private:
  unsigned pick(unsigned lo, unsigned hi) { return std::uniform_int_distribution<unsigned>(lo, hi)(rng_); }
  bool chance(unsigned percent) { return pick(0, 99) < percent; }

  void choose_shape() {
    // Several devices: every device gets a stream; each has its own legacy stream.
    const unsigned devices = multigpu_ ? pick(2, 3) : 1;
    p_.device.devices = devices;
    const unsigned n = multigpu_ ? pick(devices, 5) : pick(1, 4);
    std::vector<bool> legacy(devices, false);
    // Half the programs give their created streams priorities (rule 12: pool streams follow).
    const bool prioritised = chance(50);
    for (unsigned i = 0; i < n; ++i) {
      const unsigned d = !multigpu_ ? 0 : i < devices ? i : pick(0, devices - 1);  // no draw: seeds replay
      p_.stream_devices.push_back(d);
      const unsigned r = pick(0, 2);
      if (r == 0 && !legacy[d]) {
        legacy[d] = true;
        p_.streams.push_back(stream_kind::legacy);
      } else {
        p_.streams.push_back(r == 1 ? stream_kind::blocking : stream_kind::non_blocking);
      }
      const int priorities[] = {0, -1, -3};
      p_.priorities.push_back(prioritised && p_.streams.back() != stream_kind::legacy ? priorities[pick(0, 2)] : 0);
    }
    main_cells_ = pick(4, 32);
    if (multigpu_) {
      for (unsigned d = 0; d <= devices; ++d) p_.owned_from.push_back(d * main_cells_ / devices);
      p_.peer_access = chance(70);
    }
    choose_layout();
    // Small windows stress retiring and folding; large ones, the dependency scan.
    const unsigned w = pick(0, 9);
    p_.config.window = w < 4 ? pick(1, 4) : w < 7 ? pick(5, 16) : pick(17, 64);
    p_.config.streams = chance(50) ? pick(1, 4) : pick(5, 32);
    p_.config.eager_join = chance(20);
    p_.config.merge = chance(40) ? chain_merge::always : chance(30) ? chain_merge::never : chain_merge::adaptive;
    p_.device.concurrency = pick(1, 16);
    const nanos costs[] = {300, 2000, 4800};
    p_.device.launch_cost = costs[pick(0, 2)];
    p_.device.api_cost = p_.device.launch_cost / 10;
    p_.events = multigpu_ ? pick(devices, 6) : pick(1, 4);
    for (unsigned e = 0; e < p_.events; ++e) p_.event_devices.push_back(!multigpu_ ? 0 : e < devices ? e : pick(0, devices - 1));
    // Barrier-heavy programs test joins and forks; launch-heavy ones, the
    // window, its dependencies and folding.
    const unsigned shares[] = {45, 75, 92};
    launch_share_ = shares[pick(0, 2)];
    locality_ = chance(50);
    failure_share_ = chance(10) ? 20 : 0;
    spin_share_ = chance(30) ? 10 : 0;
    rejected_share_ = chance(10) ? 15 : 0;
    model_.emplace(p_.streams, p_.events, main_cells_, p_.stream_devices);
  }

  // Strides that put cells within one address bucket, across bucket edges,
  // over more buckets than a narrow range may span, and around the buckets'
  // wrap-around; cells with gaps between them; bases that end the memory on
  // the last byte of the address space.
  void choose_layout() {
    const std::uint64_t mib = 1ULL << 20;
    const std::uint64_t strides[] = {1, 4096 + 1, mib - 3, 2 * mib, 5 * mib + 11, 31 * mib + 5};
    if (chance(40)) return;  // the default: one byte per cell
    p_.layout.stride = strides[pick(0, 5)];
    p_.layout.width = chance(50) ? p_.layout.stride : std::min<std::uint64_t>(pick(1, 64), p_.layout.stride);
    if (chance(25))
      p_.layout.base = address_max - (main_cells_ - 1) * p_.layout.stride - (p_.layout.width - 1);
  }

  nanos kernel_duration() {
    const unsigned r = pick(0, 99);
    if (r < 50) return pick(500, 5'000);
    if (r < 85) return pick(5'000, 50'000);
    return pick(50'000, 300'000);
  }

  // A few random runs of cells, some of them empty; with locality, mostly in
  // stream v's part of memory.
  // Without peer access, only in v's device's cells.
  std::vector<cell> random_cells(unsigned v) {
    const auto n = static_cast<unsigned>(p_.streams.size());
    std::vector<cell> out;
    for (unsigned runs = pick(0, 3); runs > 0; --runs) {
      cell lo = 0;
      cell hi = main_cells_ - 1;
      if (!p_.peer_access) {
        lo = p_.owned_from[p_.stream_devices[v]];
        hi = p_.owned_from[p_.stream_devices[v] + 1] - 1;
      } else if (locality_ && n > 1 && main_cells_ >= 2 * n && chance(85)) {
        lo = v * main_cells_ / n;
        hi = (v + 1) * main_cells_ / n - 1;
      }
      const cell first = pick(lo, hi);
      const std::uint32_t len = pick(0, std::min(5u, hi - first + 1));
      for (std::uint32_t i = 0; i < len; ++i) out.push_back(first + i);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  // What acs is told: exactly, or a superset of what the kernel touches.
  access_set declare(const std::vector<cell>& reads, const std::vector<cell>& writes) {
    const address_layout& at = p_.layout;
    access_set a;
    const auto add = [&](bool write, address base, std::uint64_t size) {
      if (write) {
        a.write(base, size);
      } else {
        a.read(base, size);
      }
    };
    const auto each_cell = [&](const std::vector<cell>& cs, bool write) {
      for (cell c : cs) add(write, at.of(c), at.width);
    };
    // Widened by up to two cells' worth of bytes at either end: partial cells too.
    const auto widened = [&](const std::vector<cell>& cs, bool write) {
      const auto slack = [&] { return std::uniform_int_distribution<std::uint64_t>(0, 2 * at.stride)(rng_); };
      for (const byte_range& r : ranges_of(cs, at)) {
        const std::uint64_t below = std::min<std::uint64_t>(slack(), r.first);
        const std::uint64_t above = std::min<std::uint64_t>(slack(), address_max - r.last);
        add(write, r.first - below, r.last - r.first + 1 + below + above);
      }
    };
    const unsigned mode = pick(0, 9);
    if (mode < 5) return {ranges_of(reads, at), ranges_of(writes, at)};  // exact, ranges merged
    if (mode < 7) {  // widened, reads partly declared as writes, extra and nested ranges
      widened(reads, chance(30));
      widened(writes, true);
      each_cell(writes, true);  // nested inside the widened ranges
      if (chance(30)) add(false, at.of(pick(0, main_cells_ - 1)), pick(0, 4) * at.stride);
      if (chance(10)) add(false, address_max - 15, 16);  // the very top of the address space
      if (chance(10)) add(true, address_max - 3, 100);   // clamped at the top
      return a;
    }
    if (mode == 7) {  // one hull per direction
      if (!reads.empty())
        add(false, at.of(reads.front()), at.last_byte(reads.back()) - at.of(reads.front()) + 1);
      if (!writes.empty())
        add(true, at.of(writes.front()), at.last_byte(writes.back()) - at.of(writes.front()) + 1);
      return a;
    }
    if (mode == 8) return access_set::everything();
    // One range per cell (adjacent ranges), and empty ones.
    each_cell(reads, false);
    each_cell(writes, true);
    add(false, at.of(pick(0, main_cells_ - 1)), 0);
    add(true, at.of(pick(0, main_cells_ - 1)), 0);
    return a;
  }

  std::size_t add_kernel(nanos duration, std::vector<cell> reads, std::vector<cell> writes) {
    p_.kernels.push_back({p_.kernels.size() + 1, duration, std::move(reads), std::move(writes)});
    return p_.kernels.size() - 1;
  }

  void emit(program_step s) { p_.steps.push_back(std::move(s)); }

  // Orders earlier conflicting work of other streams before an operation on v.
  void order_before(unsigned v, const std::vector<cell>& reads, const std::vector<cell>& writes) {
    for (;;) {
      const std::vector<unsigned> others = model_->unordered(v, reads, writes);
      if (others.empty()) return;
      const unsigned u = others.front();
      const unsigned r = pick(0, 99);
      if (r < 60) {
        const unsigned e = event_of(u);
        record(u, e);
        wait(v, e);
      } else if (r < 75) {
        sync_stream(u);
      } else if (r < 85) {
        const unsigned e = event_of(u);
        record(u, e);
        emit({.what = step_kind::sync_event, .stream = u, .event = e});
        model_->sync_event(e);
      } else {
        sync_device(u);
      }
    }
  }

  // An event of v's device, which alone may be recorded on v.
  unsigned event_of(unsigned v) {
    std::vector<unsigned> own;
    for (unsigned e = 0; e < p_.events; ++e)
      if (p_.event_devices[e] == p_.stream_devices[v]) own.push_back(e);
    return own[pick(0, static_cast<unsigned>(own.size()) - 1)];
  }

  // A device synchronize; with several devices, mostly of v's device only.
  void sync_device(unsigned v) {
    if (multigpu_ && chance(60)) {
      const unsigned d = p_.stream_devices[v];
      emit({.what = step_kind::sync_device, .device = d});
      model_->sync_device(d);
      return;
    }
    emit({.what = step_kind::sync_device});
    model_->sync_device();
  }

  void record(unsigned v, unsigned e) {
    emit({.what = step_kind::record, .stream = v, .event = e});
    model_->record(v, e);
  }
  void wait(unsigned v, unsigned e) {
    emit({.what = step_kind::wait, .stream = v, .event = e});
    model_->wait(v, e);
  }
  void sync_stream(unsigned v) {
    emit({.what = step_kind::sync_stream, .stream = v});
    model_->sync_stream(v);
  }

  void launch(unsigned v, std::uint64_t group, std::vector<cell> reads, std::vector<cell> writes,
              const std::vector<cell>& private_reads, const std::vector<cell>& private_writes) {
    access_set declared = declare(reads, writes);
    reads.insert(reads.end(), private_reads.begin(), private_reads.end());
    writes.insert(writes.end(), private_writes.begin(), private_writes.end());
    order_before(v, reads, writes);
    model_->issue(v, reads, writes);
    const std::size_t k = add_kernel(kernel_duration(), std::move(reads), std::move(writes));
    const std::optional<own_call_failure> failure = maybe_failure();
    emit({.what = step_kind::launch,
          .stream = v,
          .kernel = k,
          .declared = std::move(declared),
          .group = group,
          .failure = failure});
    // Now and then the application launches something the driver rejects (too
    // many threads...): acs must act as if it was never there, whatever its footprint.
    if (chance(rejected_share_)) {
      const std::vector<cell> r = random_cells(v), w = random_cells(v);
      access_set any = chance(30) ? access_set::everything() : declare(r, w);
      const std::size_t bad = add_kernel(kernel_duration(), r, w);
      emit({.what = step_kind::launch, .stream = v, .kernel = bad, .declared = std::move(any), .rejected = true});
    }
  }

  // Now and then one of acs's own calls fails during a launch.
  std::optional<own_call_failure> maybe_failure() {
    if (!chance(failure_share_)) return std::nullopt;
    const api_call calls[] = {api_call::create_event, api_call::record_event, api_call::wait_event};
    return own_call_failure{calls[pick(0, 2)], pick(0, 3), pick(1, 3)};
  }

  // An annotation scope: its kernels pass temporaries through scratch cells
  // that nobody declares; only the scope keeps them in order.
  void launch_group(unsigned v) {
    const std::uint64_t group = ++groups_;
    const unsigned n = pick(2, 3);
    const cell scratch = main_cells_ + scratch_cells_;
    scratch_cells_ += n - 1;
    model_->add_cells(n - 1);
    for (unsigned i = 0; i < n; ++i) {
      std::vector<cell> in;
      std::vector<cell> out;
      if (i > 0) in.push_back(scratch + i - 1);
      if (i + 1 < n) out.push_back(scratch + i);
      launch(v, group, random_cells(v), random_cells(v), in, out);
    }
  }

  void direct(unsigned v, step_kind what) {
    program_step s{.what = what, .stream = v};
    std::vector<cell> reads;
    std::vector<cell> writes;
    if (what == step_kind::copy || what == step_kind::fill) {
      s.count = pick(1, std::min(6u, main_cells_));
      s.dst = pick(0, main_cells_ - s.count);
      s.duration = pick(500, 20'000);
      writes = cells(s.dst, s.count);
      if (what == step_kind::copy) {
        // A source that does not overlap the destination, if there is room.
        s.src = pick(0, main_cells_ - s.count);
        if (s.src < s.dst + s.count && s.dst < s.src + s.count) {
          if (s.dst >= s.count) {
            s.src = s.dst - s.count;
          } else if (s.dst + 2 * s.count <= main_cells_) {
            s.src = s.dst + s.count;
          } else {
            s.what = step_kind::fill;
          }
        }
        if (s.what == step_kind::copy) reads = cells(s.src, s.count);
      }
      s.fill_value = rng_();
    } else {
      reads = random_cells(v);
      writes = random_cells(v);
      const nanos duration = what == step_kind::host_function ? pick(0, 10'000) : kernel_duration();
      s.kernel = add_kernel(duration, reads, writes);
    }
    order_before(v, reads, writes);
    model_->issue(v, reads, writes);
    emit(std::move(s));
  }

  // Rule 12: a kernel on v that spins until a kernel on another stream u has run, then that
  // kernel, with nothing between them. Legal CUDA unless u's work waits for v's (the legacy
  // stream and a blocking stream): it finishes without acs, and must with it. False if no
  // stream qualifies.
  bool spin_pair(unsigned v) {
    std::vector<unsigned> setters;
    for (unsigned u = 0; u < p_.streams.size(); ++u) {
      const stream_kind a = p_.streams[u], b = p_.streams[v];
      const bool coupled = p_.stream_devices[u] == p_.stream_devices[v] &&
                           ((a == stream_kind::legacy && b == stream_kind::blocking) ||
                            (a == stream_kind::blocking && b == stream_kind::legacy));
      if (u != v && !coupled) setters.push_back(u);
    }
    if (setters.empty()) return false;
    const unsigned u = setters[pick(0, static_cast<unsigned>(setters.size()) - 1)];
    std::vector<cell> setter_reads = random_cells(u), setter_writes = random_cells(u);
    // Ordered now, before the spinner is issued: nothing may order the setter after it.
    order_before(u, setter_reads, setter_writes);
    // Unordered with the setter, the spinner must not conflict with it.
    const auto touches = [](const std::vector<cell>& cs, cell c) { return std::binary_search(cs.begin(), cs.end(), c); };
    std::vector<cell> spinner_reads, spinner_writes;
    for (cell c : random_cells(v))
      if (!touches(setter_writes, c)) spinner_reads.push_back(c);
    for (cell c : random_cells(v))
      if (!touches(setter_writes, c) && !touches(setter_reads, c)) spinner_writes.push_back(c);
    order_before(v, spinner_reads, spinner_writes);
    const std::size_t setter = add_kernel(kernel_duration(), setter_reads, setter_writes);
    const std::size_t spinner = add_kernel(kernel_duration(), spinner_reads, spinner_writes);
    p_.kernels[spinner].waits_for = p_.kernels[setter].id;
    // In programs where acs's own calls fail, they may fail at either launch: acs must not wait
    // on the host for the spinner before the setter is made (retirement.cpp, fail). Programs
    // without failures draw nothing more, so they stay as they were.
    const auto failure = [&] { return failure_share_ != 0 ? maybe_failure() : std::nullopt; };
    model_->issue(v, spinner_reads, spinner_writes);
    emit({.what = step_kind::launch,
          .stream = v,
          .kernel = spinner,
          .declared = declare(spinner_reads, spinner_writes),
          .failure = failure()});
    model_->issue(u, setter_reads, setter_writes);
    emit({.what = step_kind::launch,
          .stream = u,
          .kernel = setter,
          .declared = declare(setter_reads, setter_writes),
          .failure = failure()});
    return true;
  }

  void one_step() {
    const unsigned v = pick(0, static_cast<unsigned>(p_.streams.size()) - 1);
    if (chance(launch_share_)) {
      if (chance(spin_share_) && spin_pair(v)) return;
      if (chance(10)) {
        launch_group(v);
      } else {
        launch(v, 0, random_cells(v), random_cells(v), {}, {});
      }
      return;
    }
    const unsigned r = pick(0, 49);
    if (r < 4) {
      direct(v, step_kind::library_call);
    } else if (r < 7) {
      direct(v, step_kind::host_function);
    } else if (r < 12) {
      direct(v, step_kind::copy);
    } else if (r < 16) {
      direct(v, step_kind::fill);
    } else if (r < 18) {
      emit({.what = step_kind::marker, .stream = v});
      model_->issue(v, {}, {});
    } else if (r < 26) {
      const unsigned e = event_of(v);
      record(v, e);
      if (chance(70)) wait(pick(0, static_cast<unsigned>(p_.streams.size()) - 1), e);
    } else if (r < 29) {
      wait(v, pick(0, p_.events - 1));  // possibly never recorded: a no-op
    } else if (r < 34) {
      sync_stream(v);
    } else if (r < 36) {
      const unsigned e = pick(0, p_.events - 1);
      emit({.what = step_kind::sync_event, .stream = v, .event = e});
      model_->sync_event(e);
    } else if (r < 38) {
      sync_device(v);
    } else if (r < 41) {
      emit({.what = step_kind::query_stream, .stream = v});
    } else {
      const cell c = pick(0, main_cells_ - 1);
      if (const auto writer = model_->host_unordered_writer(c)) sync_stream(*writer);
      emit({.what = step_kind::host_read, .dst = c});
    }
  }

  std::mt19937_64 rng_;
  program p_;
  std::optional<app_order> model_;
  std::uint32_t main_cells_ = 0;
  std::uint32_t scratch_cells_ = 0;
  std::uint64_t groups_ = 0;
  unsigned launch_share_ = 0;   // percent of steps that launch through acs
  unsigned failure_share_ = 0;  // percent of launches during which an own call of acs fails
  unsigned rejected_share_ = 0;  // percent of launches followed by one the driver rejects
  unsigned spin_share_ = 0;     // percent of launches that are a spinner and the kernel it waits for
  bool locality_ = false;       // each stream works mostly on its own part of memory
  bool multigpu_ = false;
};

const char* name(step_kind k) {
  switch (k) {
    case step_kind::launch: return "launch";
    case step_kind::library_call: return "library_call";
    case step_kind::host_function: return "host_function";
    case step_kind::copy: return "copy";
    case step_kind::fill: return "fill";
    case step_kind::marker: return "marker";
    case step_kind::record: return "record";
    case step_kind::wait: return "wait";
    case step_kind::sync_stream: return "sync_stream";
    case step_kind::sync_event: return "sync_event";
    case step_kind::sync_device: return "sync_device";
    case step_kind::query_stream: return "query_stream";
    case step_kind::host_read: return "host_read";
    case step_kind::unload: return "unload";
  }
  return "?";
}

std::string cell_list(const std::vector<cell>& cs) {
  std::ostringstream out;
  for (cell c : cs) out << ' ' << c;
  return out.str();
}

std::string range_list(const std::vector<byte_range>& rs) {
  std::ostringstream out;
  out << std::hex;
  for (const byte_range& r : rs) out << " 0x" << r.first << "..0x" << r.last;
  return out.str();
}

}  // namespace

program generate_program(std::uint64_t seed) { return generator(seed, false).run(); }
program generate_multigpu_program(std::uint64_t seed) { return generator(seed, true).run(); }

bool add_fault(program& p) {
  std::vector<std::size_t> launched;
  for (const program_step& s : p.steps)
    if (s.what == step_kind::launch && !s.rejected) launched.push_back(s.kernel);
  if (launched.empty()) return false;
  p.fault_kernel = launched[(p.seed * 0x9e3779b97f4a7c15ULL >> 33) % launched.size()];
  return true;
}

std::string describe(const program& p) {
  std::ostringstream out;
  out << "program seed " << p.seed << ": window " << p.config.window << ", pool streams " << p.config.streams << (p.config.eager_join ? ", eager join" : ", lazy join")
      << (p.config.merge == chain_merge::always ? ", chains always merged"
          : p.config.merge == chain_merge::never ? ", chains never merged" : "")
      << ", concurrency " << p.device.concurrency << ", launch cost " << p.device.launch_cost << "ns, "
      << p.device.cells << " cells at 0x" << std::hex << p.layout.base << std::dec << " + " << p.layout.stride
      << " per cell (" << p.layout.width << " bytes); streams:";
  for (std::size_t i = 0; i < p.streams.size(); ++i) {
    out << " s" << i << '=' << name(p.streams[i]) << " (priority " << p.priorities[i];
    if (p.device.devices > 1) out << ", device " << p.stream_devices[i];
    out << ')';
  }
  if (p.device.devices > 1) {
    out << "; " << p.device.devices << " devices, peer access " << (p.peer_access ? "on" : "off") << ", cells from";
    for (cell c : p.owned_from) out << ' ' << c;
    out << "; events on devices";
    for (unsigned d : p.event_devices) out << ' ' << d;
  }
  if (p.fault_kernel) out << "; the context fails once kernel " << p.kernels[*p.fault_kernel].id << " has run";
  out << '\n';
  for (std::size_t i = 0; i < p.steps.size(); ++i) {
    const program_step& s = p.steps[i];
    out << "  " << i << ": " << name(s.what);
    if (s.what != step_kind::sync_device && s.what != step_kind::host_read && s.what != step_kind::unload)
      out << " s" << s.stream;
    switch (s.what) {
      case step_kind::launch:
      case step_kind::library_call:
      case step_kind::host_function: {
        const kernel& k = p.kernels[s.kernel];
        out << " kernel " << k.id << " (" << k.duration << "ns) reads" << cell_list(k.reads) << " writes"
            << cell_list(k.writes);
        if (k.waits_for != 0) out << "; spins until kernel " << k.waits_for << " has run";
        if (s.what == step_kind::launch) {
          out << "; declared reads" << range_list(s.declared.reads) << " writes"
              << range_list(s.declared.writes);
          if (s.group != 0) out << "; group " << s.group;
          if (s.failure)
            out << "; " << name(s.failure->which) << " fails " << s.failure->count << "x after "
                << s.failure->after << " calls";
          if (s.rejected) out << "; rejected by the driver";
        }
        break;
      }
      case step_kind::copy: out << ' ' << s.count << " cells " << s.src << " -> " << s.dst; break;
      case step_kind::fill: out << ' ' << s.count << " cells at " << s.dst; break;
      case step_kind::record:
      case step_kind::wait:
      case step_kind::sync_event: out << " event " << s.event; break;
      case step_kind::host_read: out << " cell " << s.dst; break;
      case step_kind::sync_device:
        if (s.device != program_step::every_device) out << " device " << s.device;
        break;
      default: break;
    }
    out << '\n';
  }
  return out.str();
}

}  // namespace acs::sim
