// docs/design.md rule 1: kernels of one virtual stream may run out of order or
// together only when their footprints do not conflict. Each conflict test
// fails (a race, a wrong final state, or a wrong order) if the scheduler skips
// that check; each independence test fails if it serialises without cause.
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "scenario.hpp"

namespace acs::sim {
namespace {

// Every test runs with cells packed into one address bucket of the
// scheduler's index, and spread one per bucket (a kernel's reads and writes
// then fall into different ones).
using rule1_param = std::tuple<stream_kind, bool>;

class rule1 : public ::testing::TestWithParam<rule1_param> {
 protected:
  scenario s{
      {}, roomy, std::get<1>(GetParam()) ? address_layout{.stride = 2u << 20, .width = 64} : default_layout};
  virtual_stream vs = s.stream(std::get<0>(GetParam()));
};

TEST_P(rule1, read_after_write_waits_for_the_writer) {
  const kernel& writer = s.make_kernel(long_kernel, {}, {0});
  const kernel& reader = s.make_kernel(short_kernel, {0}, {1});
  ASSERT_EQ(s.launch(vs, writer), 0);
  ASSERT_EQ(s.launch(vs, reader), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_GE(s.span(reader).start, s.span(writer).end);
}

TEST_P(rule1, write_after_read_waits_for_the_reader) {
  const kernel& reader = s.make_kernel(long_kernel, {0}, {1});
  const kernel& writer = s.make_kernel(short_kernel, {}, {0});
  ASSERT_EQ(s.launch(vs, reader), 0);
  ASSERT_EQ(s.launch(vs, writer), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_GE(s.span(writer).start, s.span(reader).end);
}

TEST_P(rule1, write_after_write_keeps_the_last_value) {
  const kernel& first = s.make_kernel(long_kernel, {}, {0});
  const kernel& second = s.make_kernel(short_kernel, {}, {0});
  ASSERT_EQ(s.launch(vs, first), 0);
  ASSERT_EQ(s.launch(vs, second), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_GE(s.span(second).start, s.span(first).end);
}

// The dependency is on the oldest of several kernels in the window, with
// unrelated ones in between: the check must scan the whole window.
TEST_P(rule1, dependency_on_an_older_kernel_behind_unrelated_ones) {
  const kernel& writer = s.make_kernel(long_kernel, {}, {0});
  ASSERT_EQ(s.launch(vs, writer), 0);
  for (cell c = 10; c < 16; ++c) ASSERT_EQ(s.launch(vs, s.make_kernel(short_kernel, {}, {c})), 0);
  const kernel& reader = s.make_kernel(short_kernel, {0}, {1});
  ASSERT_EQ(s.launch(vs, reader), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_GE(s.span(reader).start, s.span(writer).end);
}

TEST_P(rule1, independent_kernels_overlap) {
  const kernel& a = s.make_kernel(long_kernel, {5}, {0});
  const kernel& b = s.make_kernel(long_kernel, {5}, {1});  // both only read cell 5
  ASSERT_EQ(s.launch(vs, a), 0);
  ASSERT_EQ(s.launch(vs, b), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(overlap(s.span(a), s.span(b)));
}

INSTANTIATE_TEST_SUITE_P(all, rule1,
                         ::testing::Combine(::testing::Values(stream_kind::legacy, stream_kind::blocking,
                                                              stream_kind::non_blocking),
                                            ::testing::Bool()),
                         [](const ::testing::TestParamInfo<rule1_param>& param) {
                           return std::string(name(std::get<0>(param.param))) +
                                  (std::get<1>(param.param) ? "_spread" : "_packed");
                         });

// Range boundaries: sharing one byte is a conflict, touching ends is not.
TEST(rule1_ranges, ranges_sharing_one_byte_conflict) {
  scenario s({}, roomy);
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  const kernel& writer = s.make_kernel(long_kernel, {}, cells(0, 4));     // cells 0..3
  const kernel& reader = s.make_kernel(short_kernel, cells(3, 4), {10});  // cells 3..6
  ASSERT_EQ(s.launch(vs, writer), 0);
  ASSERT_EQ(s.launch(vs, reader), 0);
  EXPECT_TRUE(s.matches_serial());
}

TEST(rule1_ranges, adjacent_ranges_do_not_conflict) {
  scenario s({}, roomy);
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  const kernel& writer = s.make_kernel(long_kernel, {}, cells(0, 4));
  const kernel& reader = s.make_kernel(long_kernel, cells(4, 4), {10});
  ASSERT_EQ(s.launch(vs, writer), 0);
  ASSERT_EQ(s.launch(vs, reader), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(overlap(s.span(writer), s.span(reader)));
}

// What acs is told, not what the kernel happens to touch, decides.
TEST(rule1_declared, a_declared_superset_orders_kernels) {
  scenario s({}, roomy);
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  const kernel& a = s.make_kernel(long_kernel, {}, {0});
  const kernel& b = s.make_kernel(short_kernel, {7}, {8});
  access_set wide;
  wide.write(address_of(0), 8);  // cells 0..7, of which only 0 is written
  ASSERT_EQ(s.launch(vs, a, wide), 0);
  ASSERT_EQ(s.launch(vs, b), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_GE(s.span(b).start, s.span(a).end);
}

TEST(rule1_declared, an_unknown_footprint_conflicts_both_ways) {
  scenario s({}, roomy);
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  const kernel& before = s.make_kernel(long_kernel, {}, {0});
  const kernel& unknown = s.make_kernel(long_kernel, {1}, {2});
  const kernel& after = s.make_kernel(short_kernel, {}, {9});
  ASSERT_EQ(s.launch(vs, before), 0);
  ASSERT_EQ(s.launch(vs, unknown, access_set::everything()), 0);
  ASSERT_EQ(s.launch(vs, after), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_GE(s.span(unknown).start, s.span(before).end);
  EXPECT_GE(s.span(after).start, s.span(unknown).end);
}

TEST(rule1_declared, an_empty_footprint_conflicts_with_nothing) {
  scenario s({}, roomy);
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  const kernel& a = s.make_kernel(long_kernel, {}, {0});
  const kernel& b = s.make_kernel(long_kernel, {}, {});
  ASSERT_EQ(s.launch(vs, a), 0);
  ASSERT_EQ(s.launch(vs, b), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(overlap(s.span(a), s.span(b)));
}

// An annotation scope: its kernels pass a temporary through cell 20, which
// neither declares. Only the shared group keeps them in order.
TEST(rule1_groups, kernels_of_one_group_keep_their_order) {
  scenario s({}, roomy);
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  const kernel& produce = s.make_kernel(long_kernel, {0}, {1, 20});
  const kernel& consume = s.make_kernel(short_kernel, {20}, {2});
  access_set produce_declared;
  produce_declared.read(address_of(0), 1);
  produce_declared.write(address_of(1), 1);
  access_set consume_declared;
  consume_declared.write(address_of(2), 1);
  ASSERT_EQ(s.launch(vs, produce, produce_declared, 7), 0);
  ASSERT_EQ(s.launch(vs, consume, consume_declared, 7), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_GE(s.span(consume).start, s.span(produce).end);
}

TEST(rule1_groups, different_groups_do_not_order_independent_kernels) {
  scenario s({}, roomy);
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  const kernel& a = s.make_kernel(long_kernel, {}, {0});
  const kernel& b = s.make_kernel(long_kernel, {}, {1});
  ASSERT_EQ(s.launch(vs, a, footprint_of(a), 1), 0);
  ASSERT_EQ(s.launch(vs, b, footprint_of(b), 2), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(overlap(s.span(a), s.span(b)));
}

// Dependencies are kept per virtual stream; across streams the application
// orders work itself (rule 2, events), so independent streams overlap.
TEST(rule1_streams, kernels_of_different_streams_overlap) {
  scenario s({}, roomy);
  const virtual_stream p = s.stream(stream_kind::non_blocking);
  const virtual_stream q = s.stream(stream_kind::non_blocking);
  const kernel& a = s.make_kernel(long_kernel, {}, {0});
  const kernel& b = s.make_kernel(long_kernel, {}, {1});
  ASSERT_EQ(s.launch(p, a), 0);
  ASSERT_EQ(s.launch(q, b), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(overlap(s.span(a), s.span(b)));
}

}  // namespace
}  // namespace acs::sim
