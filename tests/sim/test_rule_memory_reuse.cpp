// docs/design.md rule 7, and the window's retire/fold: a kernel may leave the
// window only once finished, or folded into a conservative summary. With tiny
// windows and long kernels, every dependency on a kernel pushed out of the
// window must survive.
#include <random>

#include <gtest/gtest.h>

#include "scenario.hpp"

namespace acs::sim {
namespace {

class small_window : public ::testing::TestWithParam<unsigned> {
 protected:
  scenario s{device_config{.cells = 64, .concurrency = 8},
             scheduler_config{.window = GetParam(), .streams = 4}};

  // Enough independent short kernels to push everything older out of the window.
  void flood(const virtual_stream& vs) {
    for (cell c = 40; c < 40 + 3 * GetParam() + 2; ++c)
      ASSERT_EQ(s.launch(vs, s.make_kernel(short_kernel, {}, {c})), 0);
  }
};

// A caching allocator hands the block a running kernel still reads to new
// work on the same stream; the write into it must wait for that reader.
TEST_P(small_window, reuse_waits_for_a_running_reader) {
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  const kernel& reader = s.make_kernel(4 * long_kernel, {0}, {1});
  ASSERT_EQ(s.launch(vs, reader), 0);
  flood(vs);
  const kernel& reuse = s.make_kernel(short_kernel, {}, {0});
  ASSERT_EQ(s.launch(vs, reuse), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_GE(s.span(reuse).start, s.span(reader).end);
}

TEST_P(small_window, reuse_by_a_direct_operation_waits_for_a_running_reader) {
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  ASSERT_EQ(s.launch(vs, s.make_kernel(4 * long_kernel, {0}, {1})), 0);
  flood(vs);
  s.fill(vs, 0, 1, 42, short_kernel);
  EXPECT_TRUE(s.matches_serial());
}

TEST_P(small_window, read_after_a_write_pushed_out_of_the_window) {
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  const kernel& writer = s.make_kernel(4 * long_kernel, {}, {0});
  ASSERT_EQ(s.launch(vs, writer), 0);
  flood(vs);
  const kernel& reader = s.make_kernel(short_kernel, {0}, {1});
  ASSERT_EQ(s.launch(vs, reader), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_GE(s.span(reader).start, s.span(writer).end);
}

TEST_P(small_window, write_after_a_write_pushed_out_of_the_window) {
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  const kernel& first = s.make_kernel(4 * long_kernel, {}, {0});
  ASSERT_EQ(s.launch(vs, first), 0);
  flood(vs);
  const kernel& second = s.make_kernel(short_kernel, {}, {0});
  ASSERT_EQ(s.launch(vs, second), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_GE(s.span(second).start, s.span(first).end);
}

// An annotation scope spread over more launches than the window holds.
TEST_P(small_window, group_order_survives_folding) {
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  const kernel& produce = s.make_kernel(4 * long_kernel, {}, {20});  // scratch cell 20, undeclared
  const kernel& consume = s.make_kernel(short_kernel, {20}, {2});
  ASSERT_EQ(s.launch(vs, produce, {}, 9), 0);
  flood(vs);
  access_set consume_declared;
  consume_declared.write(address_of(2), 1);
  ASSERT_EQ(s.launch(vs, consume, consume_declared, 9), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_GE(s.span(consume).start, s.span(produce).end);
}

// Long chains with random lengths and reach: each kernel reads a cell written
// a few launches back, so dependencies keep crossing the window's edge while
// the producers still run; and summaries age through several generations.
TEST_P(small_window, long_chains_never_lose_a_dependency) {
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  std::mt19937 rng(GetParam());
  std::uniform_int_distribution<nanos> duration(short_kernel, 3 * long_kernel);
  std::uniform_int_distribution<cell> reach(1, 8);
  for (cell i = 0; i < 60; ++i) {
    const cell out = i % 32;
    const cell back = i >= 8 ? (i - reach(rng)) % 32 : out;
    ASSERT_EQ(s.launch(vs, s.make_kernel(duration(rng), {back}, {out})), 0);
  }
  EXPECT_TRUE(s.matches_serial());
  EXPECT_GT(s.acs.stats().folds, 0u) << "no kernel was folded: the test did not reach the retire path";
}

INSTANTIATE_TEST_SUITE_P(windows_1_to_4, small_window, ::testing::Values(1u, 2u, 3u, 4u),
                         [](const ::testing::TestParamInfo<unsigned>& param) {
                           return "window_" + std::to_string(param.param);
                         });

}  // namespace
}  // namespace acs::sim
