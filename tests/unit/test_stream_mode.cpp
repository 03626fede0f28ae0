// The step-aside policy (src/runtime/stream_mode.hpp): a stream whose kernels each depend on the
// previous one leaves the pool; a stepped-aside stream in which parallelism appears comes back.
#include "src/runtime/stream_mode.hpp"

#include <atomic>
#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace acs {
namespace {

access_set writes_buffer(address base) {
  access_set a;
  a.read_write(base, 256);
  return a;
}

// Launches on `mode` until it steps aside; returns how many it took (0: it never did).
unsigned launches_until_aside(stream_mode& mode, const std::vector<access_set>& cycle, unsigned limit) {
  for (unsigned i = 0; i < limit; ++i)
    if (mode.redirected(cycle[i % cycle.size()])) return i + 1;
  return 0;
}

// The launches a probe that finds nothing lasts: it ends as soon as the launches left can no
// longer make up the `needed` independent ones (each probed launch costs a footprint).
unsigned hopeless_after(unsigned burst, unsigned needed) { return needed > burst ? 1 : burst - needed + 1; }

TEST(stream_mode_policy, a_dependent_chain_steps_aside_after_the_configured_run) {
  stream_mode mode;
  const std::vector<access_set> chain{writes_buffer(0x1000)};
  EXPECT_EQ(mode.mode(), stream_mode_kind::redirect);
  // A launch with no predecessor seen counts as chained: 32 launches in all.
  EXPECT_EQ(launches_until_aside(mode, chain, 1000), 32u);
  EXPECT_EQ(mode.mode(), stream_mode_kind::aside);
}

TEST(stream_mode_policy, unknown_footprints_count_as_a_chain) {
  stream_mode mode;
  const std::vector<access_set> everything{access_set::everything()};
  EXPECT_NE(launches_until_aside(mode, everything, 100), 0u);
}

TEST(stream_mode_policy, interleaved_independent_kernels_stay_on_the_pool) {
  stream_mode mode;
  // Two chains issued alternately: each kernel is independent of its predecessor.
  const std::vector<access_set> two_chains{writes_buffer(0x1000), writes_buffer(0x9000)};
  EXPECT_EQ(launches_until_aside(mode, two_chains, 10000), 0u);
  EXPECT_EQ(mode.mode(), stream_mode_kind::redirect);
}

TEST(stream_mode_policy, a_rare_independent_kernel_is_not_parallelism_worth_the_pool) {
  stream_mode mode;
  // 40 kernels of one chain, then one independent kernel, repeated: runs of 32 happen anyway.
  std::vector<access_set> cycle(40, writes_buffer(0x1000));
  cycle.push_back(writes_buffer(0x9000));
  EXPECT_NE(launches_until_aside(mode, cycle, 1000), 0u);
}

TEST(stream_mode_policy, an_aside_stream_is_probed_and_redirected_when_parallelism_appears) {
  stream_mode_policy p;
  p.first_probe_gap = 10;
  stream_mode mode(p);
  ASSERT_NE(launches_until_aside(mode, {writes_buffer(0x1000)}, 100), 0u);
  unsigned direct = 0;
  while (mode.next_aside_launch() == stream_mode::aside_step::direct) ++direct;
  EXPECT_EQ(direct, 10u);
  // The probe: alternate two buffers, so every launch after the first is independent.
  EXPECT_FALSE(mode.probed(writes_buffer(0x1000)));
  EXPECT_EQ(mode.next_aside_launch(), stream_mode::aside_step::probe);
  // Independent launches one by one: the stream is redirected at the p.probe_independent-th.
  for (unsigned found = 1; found < p.probe_independent; ++found) {
    EXPECT_FALSE(mode.probed(writes_buffer(found % 2 ? 0x9000 : 0x1000))) << found;
    EXPECT_EQ(mode.next_aside_launch(), stream_mode::aside_step::probe);
  }
  EXPECT_TRUE(mode.probed(writes_buffer(p.probe_independent % 2 ? 0x9000 : 0x1000)));
  EXPECT_EQ(mode.mode(), stream_mode_kind::redirect);
}

TEST(stream_mode_policy, a_new_stream_starting_aside_is_redirected_by_its_first_probe) {
  stream_mode_policy p;
  p.start_aside = true;
  stream_mode mode(p);
  EXPECT_EQ(mode.mode(), stream_mode_kind::aside);
  // A stem (a chain of 10), then branches: each branch's first kernel is independent of the
  // kernel before it. The first probe's 3rd independent launch redirects the stream.
  unsigned launches = 0;
  bool redirected = false;
  for (unsigned i = 0; i < 10 && !redirected; ++i, ++launches) {
    ASSERT_EQ(mode.next_aside_launch(), stream_mode::aside_step::probe);
    redirected = mode.probed(writes_buffer(0x1000));
  }
  EXPECT_FALSE(redirected) << "a chain is no parallelism";
  for (unsigned branch = 0; branch < 3 && !redirected; ++branch) {
    for (unsigned k = 0; k < 3 && !redirected; ++k, ++launches) {
      ASSERT_EQ(mode.next_aside_launch(), stream_mode::aside_step::probe);
      redirected = mode.probed(writes_buffer(0x10000 * (branch + 2)));
    }
  }
  EXPECT_TRUE(redirected);
  EXPECT_EQ(launches, 10u + 3u + 3u + 1u);
  EXPECT_EQ(mode.mode(), stream_mode_kind::redirect);
}

TEST(stream_mode_policy, with_need_backlog_only_launches_onto_a_busy_stream_count) {
  stream_mode_policy p;
  p.start_aside = true;
  p.need_backlog = true;
  stream_mode mode(p);
  // Independent launches onto an idle stream: the first probe finds nothing, and ends when it
  // can no longer find enough (after 30 of its 32 launches).
  for (unsigned i = 0; i < hopeless_after(p.first_probe_burst, p.first_probe_independent); ++i) {
    ASSERT_EQ(mode.next_aside_launch(), stream_mode::aside_step::probe) << i;
    EXPECT_FALSE(mode.probed(writes_buffer(i % 2 ? 0x9000 : 0x1000), /*stream_busy=*/false)) << i;
  }
  EXPECT_EQ(mode.mode(), stream_mode_kind::aside);
  EXPECT_EQ(mode.next_aside_launch(), stream_mode::aside_step::direct);
  // The same launches onto a busy stream count: a fresh stream is redirected at the 3rd.
  stream_mode busy(p);
  unsigned launches = 0;
  bool redirected = false;
  while (!redirected && launches < p.first_probe_burst) {
    ASSERT_EQ(busy.next_aside_launch(), stream_mode::aside_step::probe);
    redirected = busy.probed(writes_buffer(launches++ % 2 ? 0x9000 : 0x1000), /*stream_busy=*/true);
  }
  EXPECT_TRUE(redirected);
  EXPECT_EQ(launches, p.first_probe_independent + 1);
  // Without the policy, whether the stream is busy does not matter.
  p.need_backlog = false;
  stream_mode either(p);
  launches = 0;
  redirected = false;
  while (!redirected && launches < p.first_probe_burst) {
    ASSERT_EQ(either.next_aside_launch(), stream_mode::aside_step::probe);
    redirected = either.probed(writes_buffer(launches++ % 2 ? 0x9000 : 0x1000), /*stream_busy=*/false);
  }
  EXPECT_TRUE(redirected);
  EXPECT_EQ(launches, p.first_probe_independent + 1);
}

// [launch_bound] With graph replay, a launch onto an idle stream counts where the host's time
// since the previous launch returned is shorter than that launch's time in the hook: such a host
// is slow in its launches, which graphs amortise. A host busy between launches (operator
// dispatch) stays aside, as does any host without the policy.
namespace {
// One probe burst on an idle stream, each launch `inside` ns in the hook and `between` ns apart
// (`pause_after`: the gap after that launch is a second); returns the launches it took to
// redirect the stream (0: never).
unsigned idle_probe(stream_mode_policy p, std::uint64_t inside, std::uint64_t between, unsigned pause_after = ~0u) {
  stream_mode mode(p);
  std::uint64_t clock = 1000;
  for (unsigned i = 0; i < p.first_probe_burst; ++i) {
    if (mode.next_aside_launch() != stream_mode::aside_step::probe) return 0;
    if (mode.times_probes()) mode.probe_began(clock);
    if (mode.probed(writes_buffer(i % 2 ? 0x9000 : 0x1000), /*stream_busy=*/false)) return i + 1;
    clock += inside;
    if (mode.times_probes()) mode.probe_ended(clock);
    clock += i + 1 == pause_after ? 1000000000 : between;
  }
  return 0;
}
}  // namespace

TEST(stream_mode_policy, with_graphs_a_launch_bound_host_counts_on_an_idle_stream) {
  stream_mode_policy p;
  p.start_aside = true;
  p.need_backlog = true;
  p.launch_bound_counts = true;
  // 4 us launches 0.2 us apart: the burst's first launch has no gap measured (nor a
  // predecessor to be independent of), so the 2nd, 3rd and 4th count.
  EXPECT_EQ(idle_probe(p, 4000, 200), 4u);
  // A pause of a second after the 2nd launch (a sync, a read-back): only the 3rd does not count.
  EXPECT_EQ(idle_probe(p, 4000, 200, 2), 5u);
  // 4 us launches 12 us apart (PyTorch's dispatch between them): none counts.
  EXPECT_EQ(idle_probe(p, 4000, 12000), 0u);
  // Equal times are not launch-bound.
  EXPECT_EQ(idle_probe(p, 4000, 4000), 0u);
  // Without the policy, only a backlog counts.
  p.launch_bound_counts = false;
  EXPECT_FALSE(stream_mode(p).times_probes());
  EXPECT_EQ(idle_probe(p, 4000, 200), 0u);
}

TEST(stream_mode_policy, a_probes_timing_starts_afresh_with_each_burst) {
  stream_mode_policy p;
  p.start_aside = true;
  p.need_backlog = true;
  p.launch_bound_counts = true;
  stream_mode mode(p);
  std::uint64_t clock = 1000;
  // The first probe: launch-bound timings, but every launch conflicts with the one before.
  for (unsigned i = 0; i < hopeless_after(p.first_probe_burst, p.first_probe_independent); ++i) {
    ASSERT_EQ(mode.next_aside_launch(), stream_mode::aside_step::probe);
    mode.probe_began(clock);
    EXPECT_FALSE(mode.probed(writes_buffer(0x1000), false));
    mode.probe_ended(clock += 4000);
    clock += 100;
  }
  EXPECT_TRUE(mode.launch_bound());
  while (mode.next_aside_launch() == stream_mode::aside_step::direct) {
  }
  // The next burst has timed nothing yet: not launch-bound until a gap is measured.
  EXPECT_FALSE(mode.launch_bound());
  mode.probe_began(clock += 1000000);  // a long gap since the last probe: not counted
  EXPECT_FALSE(mode.probed(writes_buffer(0x1000), false));
  mode.probe_ended(clock += 4000);
  EXPECT_FALSE(mode.launch_bound());
}

// [relay] ACS_RELAY=auto: a probe that leaves its stream aside decides whether its launches are
// relayed to an issuing thread from then on: where at least half of the gaps between its launches
// (the program's own time) were relay_gap_ns or more. A chain probed in bursts (every launch
// conflicts with the one before), each launch `inside` ns in the hook and `between` ns apart, the
// gaps after the launches in `pauses` a second long; returns relaying() after each burst.
namespace {
// `device` (optional): the device's relay record, which the caller advances between bursts.
// `wait_every` (0: never): the program waits for the GPU after every wait_every-th launch.
std::vector<bool> relay_after_bursts(stream_mode& mode, const std::vector<std::uint64_t>& between, bool may_relay = true,
                                     std::uint64_t inside = 3000, const relay_record* device = nullptr,
                                     unsigned wait_every = 0) {
  std::vector<bool> relaying;
  std::uint64_t clock = 1000;
  std::uint64_t gpu_waits = 0;
  unsigned launches = 0;
  for (const std::uint64_t gap : between) {
    while (mode.next_aside_launch() == stream_mode::aside_step::direct) {
    }
    clock += 1000000;  // the burst's first gap is since the last burst: never timed
    for (bool more = true; more;) {
      if (mode.times_probes()) mode.probe_began(clock);
      EXPECT_FALSE(mode.probed(writes_buffer(0x1000), false, may_relay, device != nullptr ? *device : relay_record{},
                               gpu_waits));
      if (mode.times_probes()) mode.probe_ended(clock += inside);
      if (wait_every != 0 && ++launches % wait_every == 0) ++gpu_waits;
      clock += gap;
      more = mode.next_aside_launch() == stream_mode::aside_step::probe;
    }
    relaying.push_back(mode.relaying());
  }
  return relaying;
}
stream_mode_policy relay_policy() {
  stream_mode_policy p;
  p.start_aside = true;
  p.need_backlog = true;
  p.relay = true;
  return p;
}
}  // namespace

TEST(stream_mode_policy, a_probe_relays_a_stream_whose_program_is_busy_between_launches) {
  stream_mode mode(relay_policy());
  EXPECT_TRUE(mode.times_probes());
  EXPECT_FALSE(mode.relaying());  // nothing before its first probe ends
  // 12 us of the program's own work between launches (eager PyTorch), then a tight loop (0.1 us),
  // then the work again: relayed, made on the program's thread, relayed.
  EXPECT_EQ(relay_after_bursts(mode, {12000, 100, 12000}), (std::vector<bool>{true, false, true}));
  // A relaying stream counts among the redirected ones once seen (the bypass stays closed).
  EXPECT_FALSE(mode.counted());
  (void)mode.first_launch();
  EXPECT_TRUE(mode.counted());
  // Exactly at the threshold counts as busy; just under it does not.
  const std::uint64_t at = relay_policy().relay_gap_ns;
  stream_mode edge(relay_policy());
  EXPECT_EQ(relay_after_bursts(edge, {at, at - 1}), (std::vector<bool>{true, false}));
  // Launches further apart than the issuing thread spins for: not relayed (each would wake it).
  const std::uint64_t most = relay_policy().relay_gap_max_ns;
  stream_mode sparse(relay_policy());
  EXPECT_EQ(relay_after_bursts(sparse, {most, most + 1, 12000}), (std::vector<bool>{true, false, true}));
}

// [relay] A probe whose program waits for the GPU (a synchronize) at least once per
// relay_waits_per launches starts no relay, however busy its gaps: each wait would wait for acs's
// thread too (radixSortThrust: a sync or two per launch). One wait per relay_waits_per launches or
// fewer still relays; and a relaying stream whose program starts waiting that often stops at the
// next probe's end.
TEST(stream_mode_policy, a_probe_starts_no_relay_where_the_program_waits_for_its_launches) {
  const stream_mode_policy p = relay_policy();
  ASSERT_EQ(p.relay_waits_per, 4u);
  for (const unsigned every : {1u, 2u, 3u}) {
    stream_mode mode(p);
    EXPECT_EQ(relay_after_bursts(mode, {12000, 12000}, true, 3000, nullptr, every), (std::vector<bool>{false, false}))
        << "a wait after every " << every << " launches";
  }
  for (const unsigned every : {5u, 8u, 0u}) {
    stream_mode mode(p);
    EXPECT_EQ(relay_after_bursts(mode, {12000, 12000}, true, 3000, nullptr, every), (std::vector<bool>{true, true}))
        << "a wait after every " << every << " launches";
  }
  // Relaying, then waiting after each launch: stops at the next probe's end.
  stream_mode mode(p);
  EXPECT_EQ(relay_after_bursts(mode, {12000}), (std::vector<bool>{true}));
  EXPECT_EQ(relay_after_bursts(mode, {12000}, true, 3000, nullptr, 1), (std::vector<bool>{false}));
}

// [relay] A relaying stream keeps relaying only where the program seldom waits for a relayed
// launch not yet made (a copy, sync or query right after its launch settles the relay: an
// iterative solver's read-back). Each burst below has the program busy between its launches (the
// gaps say relay); between bursts, while it relays, the stream relays 256 launches (as the device
// does) and the program waits `waits` times per 64 of them, evenly. Returns, per burst, whether
// it relays after the burst, with '|' where a relayed launch stopped the relay.
namespace {
std::string relay_with_waits(const stream_mode_policy& p, std::uint64_t waits, unsigned bursts) {
  stream_mode mode(p);
  relay_record device;
  std::string out;
  for (unsigned i = 0; i < bursts; ++i) {
    const bool relays = relay_after_bursts(mode, {12000}, true, 3000, &device).front();
    out += relays ? 'R' : '-';
    for (unsigned n = 0; relays && n < 256; ++n) {
      device.relayed += 1;
      if (n % 64 < waits) device.waited += 1;
      if (mode.relay_check_due(device.waited) && mode.relay_judged(device)) {
        EXPECT_FALSE(mode.relaying());
        out += '|';
        break;
      }
    }
  }
  return out;
}
}  // namespace

TEST(stream_mode_policy, a_relay_the_program_keeps_waiting_for_stops_and_backs_off) {
  const stream_mode_policy p = relay_policy();
  ASSERT_EQ(p.relay_waits_per, 4u);
  ASSERT_EQ(p.relay_checked_after, 64u);
  // A wait after most relayed launches (jacobiCudaGraphs: a launch, a read-back, a sync): stopped
  // after 64 relayed launches; the gaps are not heard at the next probe's end, then relayed again,
  // stopped again, not heard for 2, then 4.
  EXPECT_EQ(relay_with_waits(p, 60, 12), "R|-R|--R|----R|-");
  // At the threshold (one wait in four) it stops; just under it, it goes on.
  EXPECT_EQ(relay_with_waits(p, 16, 3), "R|-R|");
  EXPECT_EQ(relay_with_waits(p, 15, 3), "RRR");
  // Eager PyTorch waited once per 56 relayed launches: it keeps relaying.
  EXPECT_EQ(relay_with_waits(p, 1, 6), "RRRRRR");
  // The back-off stops doubling at its limit.
  stream_mode_policy capped = p;
  capped.max_relay_backoff = 1;
  EXPECT_EQ(relay_with_waits(capped, 60, 7), "R|-R|-R|-R|");
  // Judged after relay_checked_after relayed launches of the stream, not before, unless the
  // program waited relay_checked_after / relay_waits_per times meanwhile (128 here: 30 per 64).
  stream_mode_policy patient = p;
  patient.relay_checked_after = 512;
  EXPECT_EQ(relay_with_waits(patient, 14, 4), "RRRR");  // 14 per 64: 56 in 256, under 512 / 4
  EXPECT_EQ(relay_with_waits(patient, 30, 4), "RR|-R");
  // A wait after every relayed launch: stopped once the program waited 64 / 4 = 16 times, not
  // after 64 launches (radixSortThrust waited for each of its 41 relayed launches).
  {
    stream_mode mode(p);
    relay_record device;
    ASSERT_TRUE(relay_after_bursts(mode, {12000}, true, 3000, &device).front());
    unsigned relayed = 0;
    for (bool stopped = false; !stopped && relayed < 64;) {
      device.relayed += 1;
      device.waited += 1;
      ++relayed;
      stopped = mode.relay_check_due(device.waited) && mode.relay_judged(device);
    }
    EXPECT_EQ(relayed, 16u);
    EXPECT_FALSE(mode.relaying());
  }
  // ACS_RELAY=always: whatever the waits.
  stream_mode_policy always = p;
  always.relay_always = true;
  EXPECT_EQ(relay_with_waits(always, 64, 4), "RRRR");
}

namespace {
unsigned fake_cgroup_limit = 0;  // whole CPUs, 0: none set
std::atomic<unsigned> cgroup_asked{0};
unsigned cgroup_limit() noexcept {
  cgroup_asked.fetch_add(1);
  return fake_cgroup_limit;
}
}  // namespace

// The cgroup CPU limit is asked only when a relay would start, never at a launch that merely
// probes (its files are read on acs's background thread meanwhile: start.cpp), and a limit under
// two CPUs keeps the relay off; none, or two and more, let it start.
TEST(stream_mode_policy, a_relay_starts_only_where_the_cgroup_leaves_its_thread_a_cpu) {
  stream_mode_policy p = relay_policy();
  p.relay_cgroup_limit = &cgroup_limit;
  for (const unsigned limit : {0u, 1u, 2u, 8u}) {
    fake_cgroup_limit = limit;
    cgroup_asked = 0;
    stream_mode mode(p);
    EXPECT_EQ(cgroup_asked.load(), 0u) << "asked at the stream's start";
    const bool starts = limit != 1;
    EXPECT_EQ(relay_after_bursts(mode, {12000}), (std::vector<bool>{starts})) << "limit " << limit;
    EXPECT_EQ(cgroup_asked.load(), 1u) << "limit " << limit;
    // Gaps too short to relay: the limit is not asked again.
    (void)relay_after_bursts(mode, {100});
    EXPECT_EQ(cgroup_asked.load(), 1u) << "limit " << limit;
  }
  // A relay that runs is not asked again at the next probe's end.
  fake_cgroup_limit = 0;
  cgroup_asked = 0;
  stream_mode running(p);
  EXPECT_EQ(relay_after_bursts(running, {12000, 12000}), (std::vector<bool>{true, true}));
  EXPECT_EQ(cgroup_asked.load(), 1u);
}

TEST(stream_mode_policy, the_relay_follows_the_policy_and_the_stream) {
  // Without the policy: never, whatever the gaps, and probes are not timed for it.
  stream_mode_policy off = relay_policy();
  off.relay = false;
  stream_mode plain(off);
  EXPECT_FALSE(plain.times_probes());
  EXPECT_EQ(relay_after_bursts(plain, {12000}), (std::vector<bool>{false}));
  // ACS_RELAY=always: whatever the gaps.
  stream_mode_policy always = relay_policy();
  always.relay_always = true;
  stream_mode every(always);
  EXPECT_TRUE(every.relaying());  // from its first launch, before any probe
  EXPECT_EQ(relay_after_bursts(every, {100, 12000}), (std::vector<bool>{true, true}));
  // ...and again as soon as it steps aside from the pool.
  stream_mode_policy from_pool = always;
  from_pool.start_aside = false;
  stream_mode pooled(from_pool);
  EXPECT_FALSE(pooled.relaying());
  EXPECT_GT(launches_until_aside(pooled, {writes_buffer(0x1000)}, 100), 0u);
  EXPECT_TRUE(pooled.relaying());
  // A thread-relative stream (only its own thread may issue on it): never.
  stream_mode own(relay_policy());
  EXPECT_EQ(relay_after_bursts(own, {12000}, /*may_relay=*/false), (std::vector<bool>{false}));
  // A probe that redirects the stream ends its relay: the pool takes its launches.
  stream_mode_policy p = relay_policy();
  p.need_backlog = false;
  stream_mode mode(p);
  EXPECT_EQ(relay_after_bursts(mode, {12000}), (std::vector<bool>{true}));
  while (mode.next_aside_launch() == stream_mode::aside_step::direct) {
  }
  bool redirected = false;
  for (unsigned i = 0; i < 16 && !redirected; ++i) redirected = mode.probed(writes_buffer(i % 2 ? 0x9000 : 0x1000));
  ASSERT_TRUE(redirected);
  EXPECT_FALSE(mode.relaying());
  // And a reset stream starts without it.
  stream_mode again(relay_policy());
  EXPECT_EQ(relay_after_bursts(again, {12000}), (std::vector<bool>{true}));
  again.reset();
  EXPECT_FALSE(again.relaying());
}

TEST(stream_mode_policy, a_new_streams_first_probe_may_wait_for_its_first_launches) {
  stream_mode_policy p;
  p.start_aside = true;
  p.first_probe_after = 5;
  stream_mode mode(p);
  EXPECT_EQ(mode.mode(), stream_mode_kind::aside);
  for (unsigned i = 0; i < p.first_probe_after; ++i)
    ASSERT_EQ(mode.next_aside_launch(), stream_mode::aside_step::direct) << i;
  // Then the first probe, as long and as easy to pass as without the wait: the 3rd independent
  // launch redirects the stream.
  unsigned launches = 0;
  bool redirected = false;
  while (!redirected && launches < p.first_probe_burst) {
    ASSERT_EQ(mode.next_aside_launch(), stream_mode::aside_step::probe) << launches;
    redirected = mode.probed(writes_buffer(launches++ % 2 ? 0x9000 : 0x1000));
  }
  EXPECT_TRUE(redirected);
  EXPECT_EQ(launches, p.first_probe_independent + 1);
  // A chain after the wait: the first probe runs until it cannot pass (30 of its 32 launches).
  stream_mode chain(p);
  for (unsigned i = 0; i < p.first_probe_after; ++i) ASSERT_EQ(chain.next_aside_launch(), stream_mode::aside_step::direct);
  for (unsigned i = 0; i < hopeless_after(p.first_probe_burst, p.first_probe_independent); ++i) {
    ASSERT_EQ(chain.next_aside_launch(), stream_mode::aside_step::probe) << i;
    EXPECT_FALSE(chain.probed(writes_buffer(0x1000)));
  }
  EXPECT_EQ(chain.next_aside_launch(), stream_mode::aside_step::direct);
}

TEST(stream_mode_policy, a_new_chain_stays_aside_and_is_probed_again_after_the_first_gap) {
  stream_mode_policy p;
  p.start_aside = true;
  stream_mode mode(p);
  for (unsigned i = 0; i < hopeless_after(p.first_probe_burst, p.first_probe_independent); ++i) {
    ASSERT_EQ(mode.next_aside_launch(), stream_mode::aside_step::probe) << i;
    EXPECT_FALSE(mode.probed(writes_buffer(0x1000)));
  }
  unsigned direct = 0;
  while (mode.next_aside_launch() == stream_mode::aside_step::direct) ++direct;
  EXPECT_EQ(direct, p.first_probe_gap);
}

// A probed launch whose footprint is not settled (its kernel's layout being read on acs's thread)
// pauses the burst: the next unsettled_pause - 1 launches go direct, with or without the bypass's
// batches, and the burst then goes on where it was, its next launch compared with none before.
TEST(stream_mode_policy, an_unsettled_probe_pauses_its_burst) {
  stream_mode_policy p;
  p.start_aside = true;
  p.unsettled_pause = 10;
  stream_mode mode(p);
  ASSERT_EQ(mode.next_aside_launch(), stream_mode::aside_step::probe);
  EXPECT_FALSE(mode.probed(writes_buffer(0x1000)));  // settled: the burst's first
  ASSERT_EQ(mode.next_aside_launch(), stream_mode::aside_step::probe);
  mode.probe_unsettled(0);
  for (int i = 0; i < 9; ++i) EXPECT_EQ(mode.next_aside_launch(), stream_mode::aside_step::direct) << i;
  ASSERT_EQ(mode.next_aside_launch(), stream_mode::aside_step::probe);
  // Compared with none: not independent although it shares nothing with 0x1000. Then three
  // independent ones redirect the stream, as the first probe's 3rd does.
  EXPECT_FALSE(mode.probed(writes_buffer(0x2000)));
  bool redirected = false;
  for (address base = 0x3000; base <= 0x5000 && !redirected; base += 0x1000) {
    ASSERT_EQ(mode.next_aside_launch(), stream_mode::aside_step::probe);
    redirected = mode.probed(writes_buffer(base));
  }
  EXPECT_TRUE(redirected);
  // After unsettled_pauses pauses in which the background thread began no job, a burst's probed
  // launch may read its layout itself; a thread that made progress is waited for.
  stream_mode waiting(p);
  ASSERT_EQ(waiting.next_aside_launch(), stream_mode::aside_step::probe);
  for (unsigned pause = 0; pause < p.unsettled_pauses; ++pause) {
    EXPECT_FALSE(waiting.probe_waited_enough(7)) << pause;
    waiting.probe_unsettled(7);
    for (unsigned i = 0; i + 1 < p.unsettled_pause; ++i) ASSERT_EQ(waiting.next_aside_launch(), stream_mode::aside_step::direct);
    ASSERT_EQ(waiting.next_aside_launch(), stream_mode::aside_step::probe);
  }
  EXPECT_TRUE(waiting.probe_waited_enough(7));
  EXPECT_FALSE(waiting.probe_waited_enough(8)) << "the background thread began a job meanwhile";
  // A batch of bypassed launches as long as the pause ends it at once.
  stream_mode batched(p);
  ASSERT_EQ(batched.next_aside_launch(), stream_mode::aside_step::probe);
  batched.probe_unsettled(0);
  EXPECT_EQ(batched.next_aside_launch(9), stream_mode::aside_step::direct);
  EXPECT_EQ(batched.next_aside_launch(65), stream_mode::aside_step::probe);
}

// A thread that bypassed acs (src/support/bypass.hpp) brings its launches along: the next probe
// comes after as many launches as without the bypass, give or take one sampled batch.
TEST(stream_mode_policy, launches_bypassed_count_towards_the_next_probe) {
  stream_mode_policy p;
  p.start_aside = true;
  p.first_probe_after = 1000;
  stream_mode mode(p);
  unsigned sampled = 0;
  while (mode.next_aside_launch(65) == stream_mode::aside_step::direct) ++sampled;
  EXPECT_EQ(sampled, 1000u / 65 + 1);  // the first batch that reaches 1000 is still direct
}

TEST(stream_mode_policy, probes_that_find_nothing_back_off_exponentially) {
  stream_mode_policy p;
  p.first_probe_gap = 4;
  p.probe_burst = 2;
  p.probe_independent = 1;  // a burst of 2 that could pass: both its launches are probed
  p.max_probe_gap = 32;
  stream_mode mode(p);
  ASSERT_NE(launches_until_aside(mode, {writes_buffer(0x1000)}, 100), 0u);
  std::vector<unsigned> gaps;
  for (int probe = 0; probe < 6; ++probe) {
    unsigned direct = 0;
    while (mode.next_aside_launch() == stream_mode::aside_step::direct) ++direct;
    gaps.push_back(direct);
    EXPECT_FALSE(mode.probed(writes_buffer(0x1000)));
    ASSERT_EQ(mode.next_aside_launch(), stream_mode::aside_step::probe);
    EXPECT_FALSE(mode.probed(writes_buffer(0x1000)));
  }
  EXPECT_EQ(gaps, (std::vector<unsigned>{4, 8, 16, 32, 32, 32}));
  EXPECT_EQ(mode.mode(), stream_mode_kind::aside);
}

TEST(stream_mode_policy, a_probe_ends_once_it_cannot_find_enough_and_not_before) {
  // The default burst of 16 needs 6 independent launches. Starting with 10 that each conflict
  // with the one before, exactly enough are left: the probe goes on, and its 16th launch, the
  // 6th independent one, redirects the stream.
  const stream_mode_policy p;
  ASSERT_EQ(p.probe_burst, 16u);
  ASSERT_EQ(p.probe_independent, 6u);
  auto probe = [&](unsigned conflicting) {
    stream_mode mode(p);
    EXPECT_NE(launches_until_aside(mode, {writes_buffer(0x1000)}, 100), 0u);
    while (mode.next_aside_launch() == stream_mode::aside_step::direct) {
    }
    unsigned launches = 0;
    for (;;) {
      const bool independent_now = launches >= conflicting;
      ++launches;
      if (mode.probed(writes_buffer(independent_now && launches % 2 ? 0x9000 : 0x1000))) return launches;
      if (mode.next_aside_launch() != stream_mode::aside_step::probe) return 100 + launches;  // ended
    }
  };
  EXPECT_EQ(probe(10), 16u);
  // One more conflict, and 6 can no longer be found: the probe ends at its 11th launch.
  EXPECT_EQ(probe(11), 100u + 11u);
}

// Probes until the stream is redirected (a burst of alternating buffers); returns the direct
// launches before the successful probe.
unsigned redirect_by_probe(stream_mode& mode, const stream_mode_policy& p) {
  unsigned direct = 0;
  while (mode.next_aside_launch() == stream_mode::aside_step::direct) ++direct;
  for (unsigned i = 0; i < p.probe_burst; ++i) {
    if (mode.probed(writes_buffer(i % 2 ? 0x9000 : 0x1000))) return direct;
    EXPECT_EQ(mode.next_aside_launch(), stream_mode::aside_step::probe);
  }
  ADD_FAILURE() << "the probe did not redirect the stream";
  return direct;
}

// Runs the direct launches up to the next probe and a whole burst that finds nothing (every
// launch the same buffer); returns the direct launches before it.
unsigned fail_probe(stream_mode& mode, const stream_mode_policy& p) {
  unsigned direct = 0;
  while (mode.next_aside_launch() == stream_mode::aside_step::direct) ++direct;
  const unsigned launches = hopeless_after(p.probe_burst, p.probe_independent);
  for (unsigned i = 0; i < launches; ++i) {
    EXPECT_FALSE(mode.probed(writes_buffer(0x1000)));
    if (i + 1 < launches) {
      EXPECT_EQ(mode.next_aside_launch(), stream_mode::aside_step::probe);
    }
  }
  return direct;
}

TEST(stream_mode_policy, parallelism_after_a_long_serial_phase_is_found_within_the_gap_limit) {
  // A warm-up or profiling pass (a sync after every kernel) fails probe after probe; the gap
  // stops doubling at max_probe_gap, so the loop that follows is probed again within it.
  const stream_mode_policy p;
  stream_mode mode(p);
  ASSERT_NE(launches_until_aside(mode, {writes_buffer(0x1000)}, 100), 0u);
  unsigned direct = 0;
  for (int probe = 0; probe < 40; ++probe) direct = fail_probe(mode, p);
  EXPECT_LE(direct, 1024u);
  EXPECT_EQ(direct, p.max_probe_gap);
  // Parallelism now: the next probe redirects the stream.
  EXPECT_LE(redirect_by_probe(mode, p), 1024u);
  EXPECT_EQ(mode.mode(), stream_mode_kind::redirect);
}

TEST(stream_mode_policy, a_redirected_stream_steps_aside_again_after_another_run) {
  stream_mode_policy p;
  p.first_probe_gap = 8;
  stream_mode mode(p);
  ASSERT_NE(launches_until_aside(mode, {writes_buffer(0x1000)}, 100), 0u);
  redirect_by_probe(mode, p);
  // Redirected again: the count of conflicting launches starts over.
  EXPECT_EQ(launches_until_aside(mode, {writes_buffer(0x1000)}, 100), 32u);
}

TEST(stream_mode_policy, returns_to_the_pool_that_do_not_last_are_probed_ever_less_often) {
  stream_mode_policy p;
  p.first_probe_gap = 64;  // more than the 32 launches each return to the pool lasts
  stream_mode mode(p);
  ASSERT_NE(launches_until_aside(mode, {writes_buffer(0x1000)}, 100), 0u);
  std::vector<unsigned> gaps;
  for (int i = 0; i < 4; ++i) {
    gaps.push_back(redirect_by_probe(mode, p));
    ASSERT_NE(launches_until_aside(mode, {writes_buffer(0x1000)}, 100), 0u);
  }
  EXPECT_EQ(gaps, (std::vector<unsigned>{64, 128, 256, 512}));
}

TEST(stream_mode_policy, returns_that_do_not_last_lengthen_the_gap_past_the_probe_limit) {
  // Each return costs a fork, a join and launches on the pool: their gap grows past
  // max_probe_gap (up to max_return_gap), and a failed probe after them does not shorten it.
  stream_mode_policy p;
  p.first_probe_gap = 64;
  p.max_probe_gap = 128;
  p.max_return_gap = 1024;
  stream_mode mode(p);
  ASSERT_NE(launches_until_aside(mode, {writes_buffer(0x1000)}, 100), 0u);
  std::vector<unsigned> gaps;
  for (int i = 0; i < 6; ++i) {
    gaps.push_back(redirect_by_probe(mode, p));
    ASSERT_NE(launches_until_aside(mode, {writes_buffer(0x1000)}, 100), 0u);
  }
  EXPECT_EQ(gaps, (std::vector<unsigned>{64, 128, 256, 512, 1024, 1024}));
  // A probe that finds nothing now keeps the gap of 1024.
  EXPECT_EQ(fail_probe(mode, p), 1024u);
  unsigned direct = 0;
  while (mode.next_aside_launch() == stream_mode::aside_step::direct) ++direct;
  EXPECT_EQ(direct, 1024u);
}

// Several threads feeding one stream a chain (one buffer): it steps aside, and stays aside
// through its probes. Run under TSan by CI (label threads is not needed: the unit label is).
TEST(stream_mode_policy, threads_sharing_a_stream_step_it_aside_together) {
  stream_mode mode;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&mode] {
      const access_set mine = writes_buffer(0x1000);
      for (int i = 0; i < 20000; ++i) {
        if (mode.mode() == stream_mode_kind::redirect)
          mode.redirected(mine);
        else if (mode.next_aside_launch() == stream_mode::aside_step::probe)
          mode.probed(mine);
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(mode.mode(), stream_mode_kind::aside);
}

}  // namespace
}  // namespace acs
