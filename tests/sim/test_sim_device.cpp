// The simulated device itself: its stream, event, legacy-stream and timing
// semantics, and that its race checker does report races. The rule tests rely
// on all of this; a checker that could not fail would prove nothing.
#include <gtest/gtest.h>

#include "footprint.hpp"
#include "sim_device.hpp"

namespace acs::sim {
namespace {

constexpr nanos long_time = 100'000;
constexpr nanos short_time = 1'000;

struct device_test : ::testing::Test {
  sim_device sim{device_config{}};
  std::uint64_t next_id = 1;

  kernel make(nanos duration, std::vector<cell> reads, std::vector<cell> writes) {
    return {next_id++, duration, std::move(reads), std::move(writes)};
  }
  event_handle new_event() {
    event_handle e = 0;
    EXPECT_EQ(sim.create_event(&e), 0);
    return e;
  }
  stream_handle pool_stream() {
    stream_handle s = 0;
    EXPECT_EQ(sim.create_stream(&s), 0);
    return s;
  }
};

TEST_F(device_test, stream_order_serialises_conflicting_kernels) {
  const stream_handle s = sim.create_app_stream(stream_kind::non_blocking);
  const kernel a = make(long_time, {}, {0});
  const kernel b = make(short_time, {0}, {1});
  ASSERT_EQ(sim.launch(&a, s), 0);
  ASSERT_EQ(sim.launch(&b, s), 0);
  sim.synchronize_device();
  EXPECT_TRUE(sim.races().empty());
  EXPECT_GE(sim.kernel_span(b.id)->start, sim.kernel_span(a.id)->end);
}

TEST_F(device_test, unordered_streams_race_in_every_direction) {
  struct conflict {
    std::vector<cell> first_reads, first_writes, second_reads, second_writes;
  };
  const conflict cases[] = {
      {{}, {0}, {0}, {1}},  // read after write
      {{0}, {1}, {}, {0}},  // write after read
      {{}, {0}, {}, {0}},   // write after write
  };
  for (const conflict& c : cases) {
    sim_device fresh{device_config{}};
    stream_handle p = 0;
    stream_handle q = 0;
    ASSERT_EQ(fresh.create_stream(&p), 0);
    ASSERT_EQ(fresh.create_stream(&q), 0);
    const kernel a = make(long_time, c.first_reads, c.first_writes);
    const kernel b = make(short_time, c.second_reads, c.second_writes);
    ASSERT_EQ(fresh.launch(&a, p), 0);
    ASSERT_EQ(fresh.launch(&b, q), 0);
    fresh.synchronize_device();
    ASSERT_EQ(fresh.races().size(), 1u);
    const race r = fresh.races().front();
    EXPECT_EQ(r.where, 0u);
    EXPECT_NE(r.earlier, r.later);
    EXPECT_NE(fresh.explain(r).find("race on cell 0"), std::string::npos) << fresh.explain(r);
  }
}

TEST_F(device_test, disjoint_kernels_run_concurrently_and_do_not_race) {
  const stream_handle p = pool_stream();
  const stream_handle q = pool_stream();
  const kernel a = make(long_time, {2}, {0});
  const kernel b = make(long_time, {2}, {1});
  ASSERT_EQ(sim.launch(&a, p), 0);
  ASSERT_EQ(sim.launch(&b, q), 0);
  sim.synchronize_device();
  EXPECT_TRUE(sim.races().empty());
  EXPECT_LT(sim.kernel_span(b.id)->start, sim.kernel_span(a.id)->end);
}

TEST_F(device_test, event_wait_orders_streams) {
  const stream_handle p = pool_stream();
  const stream_handle q = pool_stream();
  const event_handle e = new_event();
  const kernel a = make(long_time, {}, {0});
  const kernel b = make(short_time, {0}, {1});
  ASSERT_EQ(sim.launch(&a, p), 0);
  ASSERT_EQ(sim.record_event(e, p), 0);
  ASSERT_EQ(sim.wait_event(q, e), 0);
  ASSERT_EQ(sim.launch(&b, q), 0);
  sim.synchronize_device();
  EXPECT_TRUE(sim.races().empty()) << sim.explain_races();
  EXPECT_GE(sim.kernel_span(b.id)->start, sim.kernel_span(a.id)->end);
}

TEST_F(device_test, wait_binds_to_the_record_current_at_the_call) {
  const stream_handle p = pool_stream();
  const stream_handle q = pool_stream();
  const event_handle e = new_event();
  const kernel a = make(short_time, {}, {0});
  const kernel later_writer = make(long_time, {}, {1});
  const kernel reader = make(short_time, {1}, {2});
  ASSERT_EQ(sim.launch(&a, p), 0);
  ASSERT_EQ(sim.record_event(e, p), 0);
  ASSERT_EQ(sim.wait_event(q, e), 0);  // binds to the record after a only
  ASSERT_EQ(sim.launch(&later_writer, p), 0);
  ASSERT_EQ(sim.record_event(e, p), 0);  // too late for the wait above
  ASSERT_EQ(sim.launch(&reader, q), 0);
  sim.synchronize_device();
  ASSERT_EQ(sim.races().size(), 1u);
  EXPECT_EQ(sim.races().front().where, 1u);
}

TEST_F(device_test, waiting_on_a_never_recorded_event_is_a_no_op) {
  const stream_handle p = pool_stream();
  const stream_handle q = pool_stream();
  const event_handle e = new_event();
  const kernel a = make(long_time, {}, {0});
  const kernel b = make(short_time, {0}, {1});
  ASSERT_EQ(sim.launch(&a, p), 0);
  ASSERT_EQ(sim.wait_event(q, e), 0);
  ASSERT_EQ(sim.launch(&b, q), 0);
  EXPECT_EQ(sim.query_event(e), event_state::complete);
  sim.synchronize_device();
  EXPECT_EQ(sim.races().size(), 1u);
}

TEST_F(device_test, legacy_stream_synchronises_with_blocking_streams_only) {
  for (const stream_kind kind : {stream_kind::blocking, stream_kind::non_blocking}) {
    for (const bool legacy_first : {false, true}) {
      sim_device fresh{device_config{}};
      const stream_handle other = fresh.create_app_stream(kind);
      const stream_handle first = legacy_first ? sim_device::legacy_stream : other;
      const stream_handle second = legacy_first ? other : sim_device::legacy_stream;
      const kernel a = make(long_time, {}, {0});
      const kernel b = make(short_time, {0}, {1});
      ASSERT_EQ(fresh.launch(&a, first), 0);
      ASSERT_EQ(fresh.launch(&b, second), 0);
      fresh.synchronize_device();
      EXPECT_EQ(fresh.races().empty(), kind == stream_kind::blocking)
          << (kind == stream_kind::blocking ? "blocking" : "non-blocking")
          << ", legacy first: " << legacy_first << "\n"
          << fresh.explain_races();
    }
  }
}

TEST_F(device_test, pool_streams_do_not_synchronise_with_the_legacy_stream) {
  const stream_handle p = pool_stream();
  const kernel a = make(long_time, {}, {0});
  const kernel b = make(short_time, {0}, {1});
  ASSERT_EQ(sim.launch(&a, sim_device::legacy_stream), 0);
  ASSERT_EQ(sim.launch(&b, p), 0);
  sim.synchronize_device();
  EXPECT_EQ(sim.races().size(), 1u);
}

TEST_F(device_test, host_sync_orders_the_host_and_later_work) {
  const stream_handle p = pool_stream();
  const stream_handle q = pool_stream();
  const kernel a = make(long_time, {}, {0});
  const kernel b = make(short_time, {0}, {1});
  ASSERT_EQ(sim.launch(&a, p), 0);
  EXPECT_LT(sim.now(), long_time);
  ASSERT_EQ(sim.synchronize(p), 0);
  EXPECT_GE(sim.now(), sim.kernel_span(a.id)->end);
  EXPECT_EQ(sim.kernel_span(a.id)->end - sim.kernel_span(a.id)->start, long_time);
  sim.host_read(0);
  ASSERT_EQ(sim.launch(&b, q), 0);
  sim.synchronize_device();
  EXPECT_TRUE(sim.races().empty()) << sim.explain_races();
}

TEST_F(device_test, host_read_without_sync_races) {
  const stream_handle p = pool_stream();
  const kernel a = make(short_time, {}, {0});
  ASSERT_EQ(sim.launch(&a, p), 0);
  sim.host_read(0);
  ASSERT_EQ(sim.races().size(), 1u);
  EXPECT_EQ(sim.races().front().later, sim_device::host_op);
}

TEST_F(device_test, queries_see_progress_as_host_time_passes) {
  const stream_handle p = pool_stream();
  const event_handle e = new_event();
  const kernel a = make(long_time, {}, {0});
  ASSERT_EQ(sim.launch(&a, p), 0);
  ASSERT_EQ(sim.record_event(e, p), 0);
  EXPECT_EQ(sim.query_event(e), event_state::pending);
  EXPECT_FALSE(sim.query_stream(p));
  unsigned polls = 0;
  while (sim.query_event(e) != event_state::complete) ++polls;
  EXPECT_GT(polls, 10u);  // each call costs host time, so the kernel finishes eventually
  EXPECT_TRUE(sim.query_stream(p));
  sim.host_read(0);  // the completed query ordered the host after the kernel
  EXPECT_TRUE(sim.races().empty()) << sim.explain_races();
}

TEST_F(device_test, concurrency_limit_queues_kernels) {
  sim_device narrow{device_config{.cells = 8, .concurrency = 2}};
  std::vector<kernel> ks;
  for (cell c = 0; c < 4; ++c) ks.push_back(make(long_time, {}, {c}));
  for (const kernel& k : ks) {
    stream_handle s = 0;
    ASSERT_EQ(narrow.create_stream(&s), 0);
    ASSERT_EQ(narrow.launch(&k, s), 0);
  }
  const nanos start = narrow.kernel_span(ks[0].id)->start;
  narrow.synchronize_device();
  EXPECT_EQ(narrow.peak_concurrency(), 2u);
  EXPECT_GE(narrow.last_completion() - start, 2 * long_time);
  EXPECT_LT(narrow.last_completion() - start, 3 * long_time);
}

TEST_F(device_test, memory_follows_the_effects) {
  const stream_handle s = sim.create_app_stream(stream_kind::blocking);
  const kernel a = make(short_time, {0}, {1, 2});
  ASSERT_EQ(sim.launch(&a, s), 0);
  ASSERT_EQ(sim.copy(s, 4, 1, 2, short_time), 0);
  ASSERT_EQ(sim.fill(s, 6, 2, 42, short_time), 0);
  ASSERT_EQ(sim.host_function(s, make(0, {4}, {7})), 0);
  sim.synchronize_device();
  serial_memory expected(64);
  for (const memory_effect& e : sim.issued_effects()) expected.apply(e);
  EXPECT_EQ(sim.memory(), expected.cells());
  EXPECT_EQ(sim.memory()[4], sim.memory()[1]);
  EXPECT_EQ(sim.memory()[6], 42u);
  EXPECT_NE(sim.memory()[1], initial_value(1));
  EXPECT_EQ(sim.issued_effects().size(), 4u);
}

TEST_F(device_test, invalid_handles_and_injected_failures_return_errors) {
  const kernel a = make(short_time, {}, {0});
  const kernel out_of_range = make(short_time, {}, {64});
  EXPECT_EQ(sim.launch(&a, 99), status_invalid_handle);
  EXPECT_EQ(sim.launch(nullptr, sim_device::legacy_stream), status_invalid_value);
  EXPECT_EQ(sim.launch(&out_of_range, sim_device::legacy_stream), status_invalid_value);
  EXPECT_EQ(sim.record_event(0, sim_device::legacy_stream), status_invalid_handle);
  EXPECT_EQ(sim.query_event(77), event_state::error);
  EXPECT_EQ(sim.synchronize(99), status_invalid_handle);
  sim.fail_calls(api_call::launch, 1, 98);
  EXPECT_EQ(sim.launch(&a, sim_device::legacy_stream), 98);
  EXPECT_EQ(sim.launch(&a, sim_device::legacy_stream), 0);
  EXPECT_EQ(sim.launches(a.id), 1u);
  sim.fail_calls(api_call::record_event, 1, 700);
  EXPECT_EQ(sim.record_event(new_event(), sim_device::legacy_stream), 700);
}

// The device's model of a kernel that spins on a flag another kernel sets (rule 12's tests).
TEST_F(device_test, cross_stream_spin_a_spinner_finishes_after_the_kernel_it_waits_for) {
  const stream_handle a = sim.create_app_stream(stream_kind::non_blocking);
  const stream_handle b = sim.create_app_stream(stream_kind::non_blocking);
  const kernel setter = make(long_time, {}, {1});
  kernel spinner = make(short_time, {}, {0});
  spinner.waits_for = setter.id;
  ASSERT_EQ(sim.launch(&spinner, b), 0);
  ASSERT_EQ(sim.launch(&setter, a), 0);
  sim.synchronize_device();
  EXPECT_FALSE(sim.deadlocked()) << sim.deadlock_report();
  EXPECT_EQ(sim.kernel_span(spinner.id)->end, sim.kernel_span(setter.id)->end);
  EXPECT_LT(sim.kernel_span(spinner.id)->start, sim.kernel_span(setter.id)->start);
}

TEST_F(device_test, cross_stream_spin_a_setter_queued_behind_its_spinner_is_a_deadlock) {
  const stream_handle p = pool_stream();
  const kernel setter = make(short_time, {}, {1});
  kernel spinner = make(short_time, {}, {0});
  spinner.waits_for = setter.id;
  ASSERT_EQ(sim.launch(&spinner, p), 0);
  ASSERT_EQ(sim.launch(&setter, p), 0);
  EXPECT_EQ(sim.synchronize(p), 0);
  EXPECT_TRUE(sim.deadlocked());
  EXPECT_NE(sim.deadlock_report().find("spins for kernel " + std::to_string(setter.id)), std::string::npos)
      << sim.deadlock_report();
  const auto pairs = sim.queued_behind();
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].earlier, spinner.id);
  EXPECT_EQ(pairs[0].later, setter.id);
}

// What a kernel enqueued on a pool stream waits behind: unfinished kernels there, and the
// kernels that waits there are for; nothing once they finished, nothing on other streams.
TEST_F(device_test, cross_stream_spin_queued_behind_lists_unfinished_work_on_pool_streams) {
  const stream_handle p = pool_stream();
  const stream_handle q = pool_stream();
  const stream_handle app = sim.create_app_stream(stream_kind::non_blocking);
  const kernel running = make(long_time, {}, {0});
  const kernel behind = make(short_time, {}, {1});
  const kernel on_q = make(long_time, {}, {2});
  const kernel after_wait = make(short_time, {}, {3});
  const kernel on_app = make(short_time, {}, {4});
  ASSERT_EQ(sim.launch(&running, p), 0);
  ASSERT_EQ(sim.launch(&behind, p), 0);
  ASSERT_EQ(sim.launch(&on_q, q), 0);
  const event_handle e = new_event();
  ASSERT_EQ(sim.record_event(e, q), 0);
  const stream_handle r = pool_stream();
  ASSERT_EQ(sim.wait_event(r, e), 0);
  ASSERT_EQ(sim.launch(&after_wait, r), 0);
  ASSERT_EQ(sim.launch(&on_app, app), 0);
  sim.synchronize_device();
  const kernel later = make(short_time, {}, {5});
  ASSERT_EQ(sim.launch(&later, p), 0);  // everything before it there has finished
  sim.synchronize_device();
  const auto pairs = sim.queued_behind();
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0].earlier, running.id);
  EXPECT_EQ(pairs[0].later, behind.id);
  EXPECT_EQ(pairs[1].earlier, on_q.id);
  EXPECT_EQ(pairs[1].later, after_wait.id);
}

// A kernel waiting for an execution slot starts before waiting kernels of less urgent
// streams; equals keep their order.
TEST_F(device_test, stream_priority_orders_kernels_waiting_for_a_slot) {
  sim_device one{device_config{.concurrency = 1}};
  stream_handle low_a = 0, low_b = 0, low_c = 0, high = 0;
  ASSERT_EQ(one.create_stream_with_priority(&low_a, 0), 0);
  ASSERT_EQ(one.create_stream_with_priority(&low_b, 0), 0);
  ASSERT_EQ(one.create_stream(&low_c), 0);
  ASSERT_EQ(one.create_stream_with_priority(&high, -2), 0);
  EXPECT_EQ(one.priority(high), -2);
  const stream_handle app = one.create_app_stream(stream_kind::non_blocking, -4);
  EXPECT_EQ(one.priority(app), -4);
  const kernel first = make(long_time, {}, {0});
  const kernel second = make(long_time, {}, {1});
  const kernel third = make(long_time, {}, {2});
  const kernel urgent = make(long_time, {}, {3});
  ASSERT_EQ(one.launch(&first, low_a), 0);
  ASSERT_EQ(one.launch(&second, low_b), 0);
  ASSERT_EQ(one.launch(&third, low_c), 0);
  ASSERT_EQ(one.launch(&urgent, high), 0);
  one.synchronize_device();
  EXPECT_EQ(one.kernel_span(urgent.id)->start, one.kernel_span(first.id)->end);
  EXPECT_EQ(one.kernel_span(second.id)->start, one.kernel_span(urgent.id)->end);
  EXPECT_EQ(one.kernel_span(third.id)->start, one.kernel_span(second.id)->end);
  EXPECT_EQ(*one.kernel_stream(urgent.id), high);
}

// ---- several devices ---------------------------------------------------------------------

// Two devices: cells 0-7 on device 0, 8-15 on device 1, 16-31 on none.
struct multigpu_test : device_test {
  sim_device two{device_config{.cells = 32, .concurrency = 1, .devices = 2}};
  multigpu_test() {
    two.assign_cells(0, 8, 0);
    two.assign_cells(8, 8, 1);
  }
  event_handle event_on(unsigned device) {
    event_handle e = 0;
    EXPECT_EQ(two.create_event_on(device, &e), 0);
    return e;
  }
};

TEST_F(multigpu_test, multigpu_each_device_has_its_own_legacy_stream) {
  // A blocking stream waits for its own device's legacy stream, not for another device's.
  const stream_handle same = two.create_app_stream(stream_kind::blocking, 0, 0);
  const stream_handle other = two.create_app_stream(stream_kind::blocking, 0, 1);
  const kernel a = make(long_time, {}, {16});
  const kernel b = make(short_time, {16}, {17});
  const kernel c = make(short_time, {16}, {18});
  ASSERT_EQ(two.launch(&a, sim_device::legacy_stream_of(0)), 0);
  ASSERT_EQ(two.launch(&b, same), 0);
  ASSERT_EQ(two.launch(&c, other), 0);
  two.synchronize_device();
  ASSERT_EQ(two.races().size(), 1u) << two.explain_races();
  EXPECT_NE(two.explain(two.races().front()).find("of device 1"), std::string::npos) << two.explain_races();
  EXPECT_EQ(two.device_of(sim_device::legacy_stream_of(1)), 1u);
}

TEST_F(multigpu_test, multigpu_an_event_of_one_device_orders_a_wait_on_another) {
  const stream_handle s0 = two.create_app_stream(stream_kind::non_blocking, 0, 0);
  const stream_handle s1 = two.create_app_stream(stream_kind::non_blocking, 0, 1);
  const event_handle e0 = event_on(0);
  EXPECT_EQ(two.record_event(e0, s1), status_invalid_handle) << "CUDA records an event only on its own device";
  const kernel producer = make(long_time, {}, {16});
  const kernel consumer = make(short_time, {16}, {17});
  ASSERT_EQ(two.launch(&producer, s0), 0);
  ASSERT_EQ(two.record_event(e0, s0), 0);
  ASSERT_EQ(two.wait_event(s1, e0), 0);
  ASSERT_EQ(two.launch(&consumer, s1), 0);
  two.synchronize_device();
  EXPECT_TRUE(two.races().empty()) << two.explain_races();
  EXPECT_GE(two.kernel_span(consumer.id)->start, two.kernel_span(producer.id)->end);
}

TEST_F(multigpu_test, multigpu_kernels_need_peer_access_for_another_devices_cells) {
  const stream_handle s0 = two.create_app_stream(stream_kind::non_blocking, 0, 0);
  const kernel reads_peer = make(short_time, {8}, {0});
  const kernel unowned = make(short_time, {16}, {1});
  EXPECT_EQ(two.launch(&reads_peer, s0), status_invalid_value);
  EXPECT_EQ(two.launch(&unowned, s0), 0);
  two.enable_peer_access(0, 1);
  EXPECT_EQ(two.launch(&reads_peer, s0), 0);
  const stream_handle s1 = two.create_app_stream(stream_kind::non_blocking, 0, 1);
  const kernel back = make(short_time, {0}, {9});
  EXPECT_EQ(two.launch(&back, s1), status_invalid_value) << "peer access is one way";
  two.synchronize_device();
}

TEST_F(multigpu_test, multigpu_a_peer_copy_is_ordered_on_the_stream_it_was_issued_on) {
  // Produced on device 0, copied to device 1 on the producer's stream, consumed on device 1
  // after an event: ordered. The same consumer without the event races with the copy.
  const stream_handle s0 = two.create_app_stream(stream_kind::non_blocking, 0, 0);
  const stream_handle s1 = two.create_app_stream(stream_kind::non_blocking, 0, 1);
  const kernel producer = make(long_time, {}, {0, 1});
  const kernel consumer = make(short_time, {8, 9}, {10});
  const event_handle e = event_on(0);
  ASSERT_EQ(two.launch(&producer, s0), 0);
  ASSERT_EQ(two.copy(s0, 8, 0, 2, short_time), 0);
  ASSERT_EQ(two.record_event(e, s0), 0);
  ASSERT_EQ(two.wait_event(s1, e), 0);
  ASSERT_EQ(two.launch(&consumer, s1), 0);
  two.synchronize_device();
  EXPECT_TRUE(two.races().empty()) << two.explain_races();
  EXPECT_EQ(two.host_read(8), two.memory()[0]);

  const kernel unordered = make(short_time, {8}, {11});
  ASSERT_EQ(two.copy(s0, 8, 0, 1, long_time), 0);
  ASSERT_EQ(two.launch(&unordered, s1), 0);
  two.synchronize_device();
  EXPECT_EQ(two.races().size(), 1u) << two.explain_races();
}

TEST_F(multigpu_test, multigpu_a_device_synchronize_waits_for_its_own_device_only) {
  const stream_handle s1 = two.create_app_stream(stream_kind::non_blocking, 0, 1);
  const kernel k = make(long_time, {}, {8});
  ASSERT_EQ(two.launch(&k, s1), 0);
  ASSERT_EQ(two.synchronize_device(1), 0);
  two.host_read(8);
  EXPECT_TRUE(two.races().empty()) << two.explain_races();
  // Device 0's synchronize does not wait for device 1: the host read races with the kernel
  // (reported once the kernel's write lands).
  const kernel late = make(long_time, {}, {9});
  ASSERT_EQ(two.launch(&late, s1), 0);
  ASSERT_EQ(two.synchronize_device(0), 0);
  two.host_read(9);
  two.synchronize_device();
  EXPECT_EQ(two.races().size(), 1u) << two.explain_races();
}

TEST_F(multigpu_test, multigpu_devices_have_their_own_execution_slots) {
  // One slot per device: kernels of two devices overlap, two of one device do not.
  const kernel a = make(long_time, {}, {16});
  const kernel b = make(long_time, {}, {17});
  const kernel c = make(long_time, {}, {18});
  stream_handle p0 = 0, q0 = 0, p1 = 0;
  ASSERT_EQ(two.on(0).create_stream(&p0), 0);
  ASSERT_EQ(two.on(0).create_stream(&q0), 0);
  ASSERT_EQ(two.on(1).create_stream(&p1), 0);
  ASSERT_EQ(two.launch(&a, p0), 0);
  ASSERT_EQ(two.launch(&b, q0), 0);
  ASSERT_EQ(two.launch(&c, p1), 0);
  two.synchronize_device();
  EXPECT_EQ(two.peak_concurrency(0), 1u);
  EXPECT_EQ(two.peak_concurrency(1), 1u);
  EXPECT_LT(two.kernel_span(c.id)->start, two.kernel_span(a.id)->end);
  EXPECT_GE(two.kernel_span(b.id)->start, two.kernel_span(a.id)->end);
}

TEST_F(multigpu_test, multigpu_a_devices_backend_refuses_another_devices_streams_and_events) {
  const stream_handle s1 = two.create_app_stream(stream_kind::non_blocking, 0, 1);
  const event_handle e1 = event_on(1);
  const kernel k = make(short_time, {}, {16});
  backend& zero = two.on(0);
  EXPECT_EQ(zero.launch(&k, s1), status_invalid_handle);
  EXPECT_EQ(zero.record_event(e1, sim_device::legacy_stream_of(0)), status_invalid_handle);
  EXPECT_EQ(zero.wait_event(sim_device::legacy_stream_of(0), e1), status_invalid_handle);
  EXPECT_EQ(two.misuses().size(), 3u);
  stream_handle own = 0;
  ASSERT_EQ(zero.create_stream(&own), 0);
  EXPECT_EQ(two.device_of(own), 0u);
  EXPECT_EQ(zero.launch(&k, own), 0);
  EXPECT_EQ(two.on(1).launch(&k, s1), 0);
  EXPECT_EQ(two.misuses().size(), 3u);
  two.synchronize_device();
}

}  // namespace
}  // namespace acs::sim
