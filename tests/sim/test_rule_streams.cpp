// docs/design.md rule 12: streams stay apart. A kernel is never queued behind a kernel of
// another application stream on a pool stream: a kernel on stream B may legally spin until a
// kernel on stream A has run, and would then never finish. And a kernel runs on a pool
// stream of its own stream's priority. The spin tests deadlock (the simulated device reports
// it) when pool streams are shared across application streams; the priority tests fail when
// pool streams are made without the application stream's priority.
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "scenario.hpp"

namespace acs::sim {
namespace {

// Pool streams, issuing threads.
using spin_param = std::tuple<unsigned, unsigned>;

class rule12_cross_stream_spin_pool : public ::testing::TestWithParam<spin_param> {
 protected:
  unsigned pool() const { return std::get<0>(GetParam()); }
  scenario s{{.concurrency = 16},
             {.window = 32, .streams = std::get<0>(GetParam()), .issue_threads = std::get<1>(GetParam())}};
};

// As many spinning kernels on B as there are pool streams: independent, acs spreads them over
// the pool. Then A's kernel that they wait for. Natively B's kernels run one after the other,
// the first spins until A's kernel has run, and all finish.
TEST_P(rule12_cross_stream_spin_pool, kernels_spinning_for_another_streams_kernel_finish) {
  for (const stream_kind kind : {stream_kind::non_blocking, stream_kind::blocking, stream_kind::legacy}) {
    SCOPED_TRACE(name(kind));
    const virtual_stream b = s.stream(stream_kind::non_blocking);
    const virtual_stream a = s.stream(kind);
    const kernel& setter = s.make_kernel(short_kernel, {}, {40});
    std::vector<const kernel*> spinners;
    for (cell c = 0; c < pool(); ++c) spinners.push_back(&s.make_spinner(setter, short_kernel, {}, {c}));
    for (const kernel* k : spinners) ASSERT_EQ(s.launch(b, *k), 0);
    ASSERT_EQ(s.launch(a, setter), 0);
    ASSERT_TRUE(s.matches_serial());
    for (const kernel* k : spinners) EXPECT_GE(s.span(*k).end, s.span(setter).end);
  }
}

// The same with the kernel it waits for depending on earlier work of its own stream, which
// acs put on the pool: that kernel follows its producer, never B's spinner.
TEST_P(rule12_cross_stream_spin_pool, a_spinner_does_not_block_the_setters_own_chain) {
  const virtual_stream a = s.stream(stream_kind::non_blocking);
  const virtual_stream b = s.stream(stream_kind::non_blocking);
  const kernel& producer = s.make_kernel(long_kernel, {}, {20});
  const kernel& setter = s.make_kernel(short_kernel, {20}, {21});
  ASSERT_EQ(s.launch(a, producer), 0);
  for (cell c = 0; c < pool(); ++c) ASSERT_EQ(s.launch(b, s.make_spinner(setter, short_kernel, {}, {c})), 0);
  ASSERT_EQ(s.launch(a, setter), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_GE(s.span(setter).start, s.span(producer).end);
}

std::string spin_name(const ::testing::TestParamInfo<spin_param>& p) {
  return std::to_string(std::get<0>(p.param)) + "_streams_" + std::to_string(std::get<1>(p.param)) + "_issue_threads";
}

INSTANTIATE_TEST_SUITE_P(sizes, rule12_cross_stream_spin_pool,
                         ::testing::Combine(::testing::Values(1u, 2u, 4u), ::testing::Values(0u, 2u)),
                         spin_name);

// Several streams interleaving independent and dependent kernels on a small pool: whenever
// a kernel was queued behind unfinished work on its pool stream, that work was its own
// stream's.
TEST(rule12_cross_stream_spin, no_kernel_queues_behind_another_streams_work) {
  scenario s({.concurrency = 4}, {.window = 8, .streams = 3});
  std::vector<virtual_stream> streams;
  for (const stream_kind kind : {stream_kind::non_blocking, stream_kind::blocking, stream_kind::legacy})
    streams.push_back(s.stream(kind));
  std::vector<std::uintptr_t> stream_of{0};  // by kernel id
  for (unsigned i = 0; i < 60; ++i) {
    const auto v = i % 3;
    const cell own = 10 * v + i % 4;  // chains of 4 cells per stream: some dependent, some not
    const kernel& k = s.make_kernel(i % 5 == 0 ? long_kernel : short_kernel, {own}, {own});
    stream_of.push_back(streams[v].key);
    ASSERT_EQ(s.launch(streams[v], k), 0);
  }
  EXPECT_TRUE(s.matches_serial());
  const auto pairs = s.sim.queued_behind();
  EXPECT_FALSE(pairs.empty()) << "no kernel ever queued behind another: the test proves nothing";
  for (const sim_device::queued_pair& q : pairs)
    EXPECT_EQ(stream_of.at(q.earlier), stream_of.at(q.later))
        << "kernel " << q.later << " was queued behind kernel " << q.earlier << " of another stream";
}

// A launch that fails after acs issued its waits leaves them queued on its pool stream,
// behind no kernel: there they wait for the failed launch's producer. That stream must stay
// its stream's until they are known done, even once its kernels are: here B's kernel would
// otherwise queue behind a wait for A's spinner, which spins until B's kernel has run.
TEST(rule12_cross_stream_spin, a_failed_launch_keeps_its_pool_stream_until_its_waits_are_done) {
  scenario s({}, {.window = 3, .streams = 2});
  const virtual_stream a = s.stream(stream_kind::non_blocking);
  const virtual_stream b = s.stream(stream_kind::non_blocking);
  const kernel& setter = s.make_kernel(short_kernel, {}, {10});
  const kernel& spinner = s.make_spinner(setter, long_kernel, {}, {0});
  ASSERT_EQ(s.launch(a, spinner), 0);                                 // pool stream 0
  ASSERT_EQ(s.launch(a, s.make_kernel(short_kernel, {}, {1})), 0);    // pool stream 1
  ASSERT_EQ(s.launch(a, s.make_kernel(short_kernel, {}, {2})), 0);    // 0 again; the spinner is folded
  s.sim.fail_calls(api_call::launch, 1, 9);  // a bad configuration: the launch itself fails
  const kernel& rejected = s.make_kernel(short_kernel, {0}, {3});     // on 1, after a wait for the spinner
  ASSERT_EQ(s.acs.launch(a, footprint_of(rejected, s.layout), &rejected), 9);
  // A chain on 0: the full window has stream 1's kernel asked about, and finds it done.
  for (cell c = 4; c < 7; ++c) ASSERT_EQ(s.launch(a, s.make_kernel(short_kernel, {c == 4 ? cell{2} : c - 1}, {c})), 0);
  ASSERT_EQ(s.launch(b, setter), 0);
  EXPECT_TRUE(s.matches_serial());
  for (const sim_device::queued_pair& q : s.sim.queued_behind())
    EXPECT_NE(q.later, setter.id) << "the setter was queued behind kernel " << q.earlier;
}

// Held pool streams come back: once a stream's work there is done (a host sync, or a query of
// an event behind it), another stream's kernel may use them, instead of running in place.
TEST(rule12_cross_stream_spin, a_pool_stream_serves_another_stream_once_its_work_is_done) {
  scenario s({}, {.window = 32, .streams = 1});
  const virtual_stream a = s.stream(stream_kind::non_blocking);
  const virtual_stream b = s.stream(stream_kind::non_blocking);
  const kernel& first = s.make_kernel(long_kernel, {}, {0});
  ASSERT_EQ(s.launch(a, first), 0);
  s.sync_stream(a);
  const kernel& after_sync = s.make_kernel(long_kernel, {}, {1});
  const std::uint64_t queries = s.sim.calls().query;
  ASSERT_EQ(s.launch(b, after_sync), 0);
  EXPECT_TRUE(s.sim.is_pool_stream(*s.sim.kernel_stream(after_sync.id))) << "a's sync freed the pool stream";
  EXPECT_EQ(s.sim.calls().query, queries) << "known from the sync, without asking";
  // b's kernel is still running: a's next one runs in place, on a itself.
  const kernel& starved = s.make_kernel(short_kernel, {}, {2});
  ASSERT_EQ(s.launch(a, starved), 0);
  EXPECT_EQ(*s.sim.kernel_stream(starved.id), a.handle);
  EXPECT_EQ(s.acs.stats().starved, 1u);
  // Once b's kernel has finished (the host waited for other work meanwhile), a query shows it.
  const virtual_stream other = s.stream(stream_kind::non_blocking);
  s.library_call(other, s.make_kernel(2 * long_kernel, {}, {5}));
  s.sync_stream(other);
  const kernel& after_query = s.make_kernel(short_kernel, {}, {4});
  ASSERT_EQ(s.launch(a, after_query), 0);
  EXPECT_TRUE(s.sim.is_pool_stream(*s.sim.kernel_stream(after_query.id))) << "b's work there was done";
  EXPECT_TRUE(s.matches_serial());
}

// A destroyed stream's kernels still run; a new stream that reuses its handle (and so its
// key) is another stream, which must not queue behind them.
TEST(rule12_cross_stream_spin, a_stream_reusing_a_destroyed_streams_handle_is_another_stream) {
  scenario s({}, {.window = 32, .streams = 1});
  const virtual_stream old_stream = s.stream(stream_kind::non_blocking);
  const kernel& setter = s.make_kernel(short_kernel, {}, {1});
  ASSERT_EQ(s.launch(old_stream, s.make_spinner(setter, short_kernel, {}, {0})), 0);
  s.acs.forget(old_stream.key);  // destroyed, its kernel still spinning
  const virtual_stream reused{old_stream.key, s.sim.create_app_stream(stream_kind::non_blocking),
                              stream_kind::non_blocking};
  ASSERT_EQ(s.launch(reused, setter), 0);
  EXPECT_TRUE(s.matches_serial());
}

// Pool streams are made with the priority of the application stream whose kernels they run.
TEST(rule12_stream_priority, kernels_run_on_pool_streams_of_their_streams_priority) {
  scenario s({}, roomy);
  const std::vector<virtual_stream> streams = {s.legacy(), s.stream(stream_kind::non_blocking, -2),
                                               s.stream(stream_kind::blocking, -5),
                                               s.stream(stream_kind::non_blocking, 0)};
  std::vector<std::pair<const kernel*, int>> launched;
  for (unsigned i = 0; i < 32; ++i) {
    const virtual_stream& vs = streams[i % streams.size()];
    const cell c = static_cast<cell>(10 * (i % streams.size()) + i % 3);
    const kernel& k = s.make_kernel(short_kernel, {c}, {c});
    ASSERT_EQ(s.launch(vs, k), 0);
    launched.emplace_back(&k, vs.priority);
  }
  EXPECT_TRUE(s.matches_serial());
  for (const auto& [k, priority] : launched) {
    const stream_handle ran_on = *s.sim.kernel_stream(k->id);
    EXPECT_TRUE(s.sim.is_pool_stream(ran_on)) << "kernel " << k->id << " ran in place";
    EXPECT_EQ(s.sim.priority(ran_on), priority) << "kernel " << k->id;
  }
}

// What priorities are for: with the GPU busy, a kernel of an urgent stream starts before the
// queued kernels of a less urgent one, as it does without acs.
TEST(rule12_stream_priority, an_urgent_streams_kernel_overtakes_queued_work) {
  scenario s({.concurrency = 1}, {.window = 32, .streams = 8});  // room on the pool for both streams
  const virtual_stream low = s.stream(stream_kind::non_blocking, 0);
  const virtual_stream high = s.stream(stream_kind::non_blocking, -3);
  std::vector<const kernel*> queued;
  for (cell c = 0; c < 6; ++c) {
    queued.push_back(&s.make_kernel(long_kernel, {}, {c}));
    ASSERT_EQ(s.launch(low, *queued.back()), 0);
  }
  const kernel& urgent = s.make_kernel(short_kernel, {}, {10});
  ASSERT_EQ(s.launch(high, urgent), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(s.sim.is_pool_stream(*s.sim.kernel_stream(urgent.id)));
  EXPECT_EQ(s.span(urgent).start, s.span(*queued.front()).end) << "it takes the first slot that frees";
  for (std::size_t i = 1; i < queued.size(); ++i) EXPECT_LT(s.span(urgent).start, s.span(*queued[i]).start);
}

}  // namespace
}  // namespace acs::sim
