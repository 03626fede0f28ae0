// docs/design.md rule 2: any other operation on a virtual stream is a barrier.
// Join: it starts after all earlier work of the stream, redirected kernels
// included. Fork: later kernels of the stream start after it. Every kind of
// direct operation is tried on every kind of stream.
#include <functional>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "scenario.hpp"

namespace acs::sim {
namespace {

struct direct_op {
  const char* name;
  // Issues an operation on the stream directly (then acs's barrier) that
  // touches cell 0: reading it for the join tests, writing it for the fork tests.
  std::function<void(scenario&, const virtual_stream&)> issue;
};

const direct_op readers_of_cell_0[] = {
    {"copy", [](scenario& s, const virtual_stream& vs) { s.copy(vs, 1, 0, 1, short_kernel); }},
    {"fill", [](scenario& s, const virtual_stream& vs) { s.fill(vs, 0, 1, 42, short_kernel); }},
    {"host_function",
     [](scenario& s, const virtual_stream& vs) {
       s.host_function(vs, s.make_kernel(short_kernel, {0}, {2}));
     }},
    {"library_call",
     [](scenario& s, const virtual_stream& vs) {
       s.library_call(vs, s.make_kernel(short_kernel, {0}, {2}));
     }},
};

const direct_op writers_of_cell_0[] = {
    {"copy", [](scenario& s, const virtual_stream& vs) { s.copy(vs, 0, 5, 1, long_kernel); }},
    {"fill", [](scenario& s, const virtual_stream& vs) { s.fill(vs, 0, 1, 42, long_kernel); }},
    {"host_function",
     [](scenario& s, const virtual_stream& vs) {
       s.host_function(vs, s.make_kernel(long_kernel, {5}, {0}));
     }},
    {"library_call",
     [](scenario& s, const virtual_stream& vs) { s.library_call(vs, s.make_kernel(long_kernel, {5}, {0})); }},
};

using barrier_param = std::tuple<std::size_t, stream_kind>;

std::string param_name(const char* op, stream_kind kind) { return std::string(op) + "_on_" + name(kind); }

class rule2_join : public ::testing::TestWithParam<barrier_param> {};

// A redirected kernel writes cell 0; a direct operation then reads it.
TEST_P(rule2_join, direct_operation_waits_for_redirected_kernels) {
  const auto [op, kind] = GetParam();
  scenario s({}, roomy);
  const virtual_stream vs = s.stream(kind);
  const kernel& writer = s.make_kernel(long_kernel, {}, {0});
  ASSERT_EQ(s.launch(vs, writer), 0);
  readers_of_cell_0[op].issue(s, vs);
  EXPECT_TRUE(s.matches_serial());
}

// Several redirected kernels spread over the pool: the join covers them all.
TEST_P(rule2_join, direct_operation_waits_for_every_pool_stream) {
  const auto [op, kind] = GetParam();
  scenario s({}, roomy);
  const virtual_stream vs = s.stream(kind);
  for (cell c = 10; c < 14; ++c) ASSERT_EQ(s.launch(vs, s.make_kernel(short_kernel, {}, {c})), 0);
  ASSERT_EQ(s.launch(vs, s.make_kernel(long_kernel, {}, {0})), 0);
  readers_of_cell_0[op].issue(s, vs);
  EXPECT_TRUE(s.matches_serial());
}

INSTANTIATE_TEST_SUITE_P(all, rule2_join,
                         ::testing::Combine(::testing::Range<std::size_t>(0, std::size(readers_of_cell_0)),
                                            ::testing::Values(stream_kind::legacy, stream_kind::blocking,
                                                              stream_kind::non_blocking)),
                         [](const ::testing::TestParamInfo<barrier_param>& param) {
                           return param_name(readers_of_cell_0[std::get<0>(param.param)].name,
                                             std::get<1>(param.param));
                         });

class rule2_fork : public ::testing::TestWithParam<barrier_param> {};

// A direct operation writes cell 0; a later redirected kernel reads it.
TEST_P(rule2_fork, redirected_kernel_waits_for_direct_operation) {
  const auto [op, kind] = GetParam();
  scenario s({}, roomy);
  const virtual_stream vs = s.stream(kind);
  writers_of_cell_0[op].issue(s, vs);
  ASSERT_EQ(s.launch(vs, s.make_kernel(short_kernel, {0}, {1})), 0);
  EXPECT_TRUE(s.matches_serial());
}

// The kernel after the barrier also depends on a kernel before it: following
// that producer is not enough, it must follow the barrier too.
TEST_P(rule2_fork, kernel_with_a_window_dependency_still_follows_the_barrier) {
  const auto [op, kind] = GetParam();
  scenario s({}, roomy);
  const virtual_stream vs = s.stream(kind);
  ASSERT_EQ(s.launch(vs, s.make_kernel(short_kernel, {}, {3})), 0);
  writers_of_cell_0[op].issue(s, vs);
  ASSERT_EQ(s.launch(vs, s.make_kernel(short_kernel, {0, 3}, {1})), 0);
  EXPECT_TRUE(s.matches_serial());
}

// Kernels before the barrier have used every pool stream: each of them must
// still wait for the new barrier, whatever it waited for before.
TEST_P(rule2_fork, pool_streams_used_before_the_barrier_follow_it) {
  const auto [op, kind] = GetParam();
  scenario s({}, roomy);
  const virtual_stream vs = s.stream(kind);
  for (cell c = 10; c < 10 + 2 * roomy.streams; ++c)
    ASSERT_EQ(s.launch(vs, s.make_kernel(short_kernel, {}, {c})), 0);
  s.sync_stream(vs);
  writers_of_cell_0[op].issue(s, vs);
  for (cell c = 30; c < 30 + roomy.streams; ++c)
    ASSERT_EQ(s.launch(vs, s.make_kernel(short_kernel, {0}, {c})), 0);
  EXPECT_TRUE(s.matches_serial());
}

// Every pool stream the kernels after the barrier may land on must follow it.
TEST_P(rule2_fork, every_later_kernel_follows_the_barrier) {
  const auto [op, kind] = GetParam();
  scenario s({}, roomy);
  const virtual_stream vs = s.stream(kind);
  writers_of_cell_0[op].issue(s, vs);
  for (cell c = 10; c < 16; ++c) ASSERT_EQ(s.launch(vs, s.make_kernel(short_kernel, {0}, {c})), 0);
  EXPECT_TRUE(s.matches_serial());
}

INSTANTIATE_TEST_SUITE_P(all, rule2_fork,
                         ::testing::Combine(::testing::Range<std::size_t>(0, std::size(writers_of_cell_0)),
                                            ::testing::Values(stream_kind::legacy, stream_kind::blocking,
                                                              stream_kind::non_blocking)),
                         [](const ::testing::TestParamInfo<barrier_param>& param) {
                           return param_name(writers_of_cell_0[std::get<0>(param.param)].name,
                                             std::get<1>(param.param));
                         });

// A barrier without a memory effect (stream-ordered free, an unknown entry
// point) still separates the kernels before it from those after it.
TEST(rule2_marker, kernels_after_a_barrier_start_after_kernels_before_it) {
  scenario s({}, roomy);
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  const kernel& before = s.make_kernel(long_kernel, {}, {0});
  const kernel& after = s.make_kernel(short_kernel, {}, {1});
  ASSERT_EQ(s.launch(vs, before), 0);
  s.marker(vs);
  ASSERT_EQ(s.launch(vs, after), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_GE(s.span(after).start, s.span(before).end);
}

// A barrier fences its own stream only.
TEST(rule2_marker, a_barrier_does_not_fence_other_streams) {
  scenario s({}, roomy);
  const virtual_stream p = s.stream(stream_kind::non_blocking);
  const virtual_stream q = s.stream(stream_kind::non_blocking);
  const kernel& on_p = s.make_kernel(long_kernel, {}, {0});
  const kernel& on_q = s.make_kernel(long_kernel, {}, {1});
  ASSERT_EQ(s.launch(p, on_p), 0);
  s.marker(q);
  ASSERT_EQ(s.launch(q, on_q), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(overlap(s.span(on_p), s.span(on_q)));
}

// Rules 2 and 3 together: an event recorded on T after a redirected kernel,
// waited on by S, orders that kernel before S's later work, redirected or not.
TEST(rule2_events, event_between_streams_orders_redirected_kernels) {
  for (const stream_kind kind : {stream_kind::blocking, stream_kind::non_blocking}) {
    scenario s({}, roomy);
    const virtual_stream t = s.stream(kind);
    const virtual_stream vs = s.stream(stream_kind::non_blocking);
    const kernel& producer = s.make_kernel(long_kernel, {}, {0});
    const kernel& consumer = s.make_kernel(short_kernel, {0}, {1});
    ASSERT_EQ(s.launch(t, producer), 0);
    s.wait(vs, s.record(t));
    ASSERT_EQ(s.launch(vs, consumer), 0);
    s.copy(vs, 2, 0, 1, short_kernel);
    EXPECT_TRUE(s.matches_serial()) << name(kind);
    EXPECT_GE(s.span(consumer).start, s.span(producer).end) << name(kind);
  }
}

// The waiting stream already had kernels in flight: the one after the wait
// depends on one of them and must still follow the event.
TEST(rule2_events, event_wait_orders_a_kernel_that_also_has_a_window_dependency) {
  scenario s({}, roomy);
  const virtual_stream t = s.stream(stream_kind::non_blocking);
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  ASSERT_EQ(s.launch(vs, s.make_kernel(short_kernel, {}, {3})), 0);
  ASSERT_EQ(s.launch(t, s.make_kernel(long_kernel, {}, {0})), 0);
  s.wait(vs, s.record(t));
  ASSERT_EQ(s.launch(vs, s.make_kernel(short_kernel, {0, 3}, {1})), 0);
  EXPECT_TRUE(s.matches_serial());
}

}  // namespace
}  // namespace acs::sim
