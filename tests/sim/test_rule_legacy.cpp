// docs/design.md rule 4: work on the legacy default stream waits for earlier
// work of blocking streams, and later blocking-stream work waits for it. Pool
// streams are non-blocking, so acs must reproduce this for redirected kernels;
// non-blocking application streams must not be made to wait.
#include <gtest/gtest.h>

#include "scenario.hpp"

namespace acs::sim {
namespace {

TEST(rule4, legacy_kernel_waits_for_a_blocking_streams_direct_work) {
  scenario s({}, roomy);
  const virtual_stream b = s.stream(stream_kind::blocking);
  s.fill(b, 0, 1, 42, long_kernel);
  ASSERT_EQ(s.launch(s.legacy(), s.make_kernel(short_kernel, {0}, {1})), 0);
  EXPECT_TRUE(s.matches_serial());
}

TEST(rule4, legacy_kernel_waits_for_a_blocking_streams_redirected_kernel) {
  scenario s({}, roomy);
  const virtual_stream b = s.stream(stream_kind::blocking);
  const kernel& writer = s.make_kernel(long_kernel, {}, {0});
  const kernel& reader = s.make_kernel(short_kernel, {0}, {1});
  ASSERT_EQ(s.launch(s.legacy(), s.make_kernel(short_kernel, {}, {7})), 0);  // the legacy stream is in use
  ASSERT_EQ(s.launch(b, writer), 0);
  ASSERT_EQ(s.launch(s.legacy(), reader), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_GE(s.span(reader).start, s.span(writer).end);
}

TEST(rule4, blocking_kernel_waits_for_legacy_direct_work) {
  scenario s({}, roomy);
  const virtual_stream b = s.stream(stream_kind::blocking);
  ASSERT_EQ(s.launch(b, s.make_kernel(short_kernel, {}, {7})), 0);  // b is in use
  s.fill(s.legacy(), 0, 1, 42, long_kernel);
  ASSERT_EQ(s.launch(b, s.make_kernel(short_kernel, {0}, {1})), 0);
  EXPECT_TRUE(s.matches_serial());
}

TEST(rule4, blocking_kernel_waits_for_a_redirected_legacy_kernel) {
  scenario s({}, roomy);
  const virtual_stream b = s.stream(stream_kind::blocking);
  const kernel& writer = s.make_kernel(long_kernel, {}, {0});
  const kernel& reader = s.make_kernel(short_kernel, {0}, {1});
  ASSERT_EQ(s.launch(b, s.make_kernel(short_kernel, {}, {7})), 0);
  ASSERT_EQ(s.launch(s.legacy(), writer), 0);
  ASSERT_EQ(s.launch(b, reader), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_GE(s.span(reader).start, s.span(writer).end);
}

// A blocking stream forgotten with kernels still unjoined (destroyed, or the
// per-thread default stream of a thread that ended): legacy-stream work must
// still wait for them, as it waits for the stream's work natively.
TEST(rule4, legacy_work_waits_for_a_forgotten_blocking_streams_kernels) {
  scenario s({}, roomy);
  const virtual_stream b = s.stream(stream_kind::blocking);
  ASSERT_EQ(s.launch(b, s.make_kernel(long_kernel, {}, {0})), 0);
  s.acs.forget(b.key);
  s.copy(s.legacy(), 1, 0, 1, short_kernel);
  EXPECT_TRUE(s.matches_serial());
}

TEST(rule4, blocking_direct_work_waits_for_a_redirected_legacy_kernel) {
  scenario s({}, roomy);
  const virtual_stream b = s.stream(stream_kind::blocking);
  ASSERT_EQ(s.launch(s.legacy(), s.make_kernel(long_kernel, {}, {0})), 0);
  s.copy(b, 1, 0, 1, short_kernel);
  EXPECT_TRUE(s.matches_serial());
}

// The implicit synchronisation is not about data: independent kernels are
// ordered too, in both directions.
TEST(rule4, independent_legacy_and_blocking_kernels_are_ordered) {
  for (const bool legacy_first : {true, false}) {
    scenario s({}, roomy);
    const virtual_stream b = s.stream(stream_kind::blocking);
    const kernel& first = s.make_kernel(long_kernel, {}, {0});
    const kernel& second = s.make_kernel(short_kernel, {}, {1});
    ASSERT_EQ(s.launch(legacy_first ? s.legacy() : b, first), 0);
    ASSERT_EQ(s.launch(legacy_first ? b : s.legacy(), second), 0);
    EXPECT_TRUE(s.matches_serial());
    EXPECT_GE(s.span(second).start, s.span(first).end) << "legacy first: " << legacy_first;
  }
}

// Through the legacy stream, one blocking stream's kernel orders another's.
TEST(rule4, ordering_through_the_legacy_stream_is_transitive) {
  scenario s({}, roomy);
  const virtual_stream b1 = s.stream(stream_kind::blocking);
  const virtual_stream b2 = s.stream(stream_kind::blocking);
  ASSERT_EQ(s.launch(b2, s.make_kernel(short_kernel, {}, {7})), 0);
  ASSERT_EQ(s.launch(b1, s.make_kernel(long_kernel, {}, {0})), 0);
  ASSERT_EQ(s.launch(s.legacy(), s.make_kernel(short_kernel, {}, {5})), 0);
  ASSERT_EQ(s.launch(b2, s.make_kernel(short_kernel, {0}, {1})), 0);
  EXPECT_TRUE(s.matches_serial());
}

// Waits on every blocking stream, not just the last one used.
TEST(rule4, legacy_kernel_waits_for_every_blocking_stream) {
  scenario s({}, roomy);
  const virtual_stream b1 = s.stream(stream_kind::blocking);
  const virtual_stream b2 = s.stream(stream_kind::blocking);
  ASSERT_EQ(s.launch(b1, s.make_kernel(long_kernel, {}, {0})), 0);
  ASSERT_EQ(s.launch(b2, s.make_kernel(short_kernel, {}, {1})), 0);
  ASSERT_EQ(s.launch(s.legacy(), s.make_kernel(short_kernel, {0, 1}, {2})), 0);
  EXPECT_TRUE(s.matches_serial());
}

TEST(rule4, non_blocking_streams_are_not_made_to_wait) {
  for (const bool legacy_first : {true, false}) {
    scenario s({}, roomy);
    const virtual_stream n = s.stream(stream_kind::non_blocking);
    const kernel& first = s.make_kernel(long_kernel, {}, {0});
    const kernel& second = s.make_kernel(long_kernel, {}, {1});
    ASSERT_EQ(s.launch(legacy_first ? s.legacy() : n, first), 0);
    ASSERT_EQ(s.launch(legacy_first ? n : s.legacy(), second), 0);
    EXPECT_TRUE(s.matches_serial());
    EXPECT_TRUE(overlap(s.span(first), s.span(second))) << "legacy first: " << legacy_first;
  }
}

// Two blocking streams do not synchronise with each other.
TEST(rule4, blocking_streams_do_not_wait_for_each_other) {
  scenario s({}, roomy);
  const virtual_stream b1 = s.stream(stream_kind::blocking);
  const virtual_stream b2 = s.stream(stream_kind::blocking);
  const kernel& a = s.make_kernel(long_kernel, {}, {0});
  const kernel& b = s.make_kernel(long_kernel, {}, {1});
  ASSERT_EQ(s.launch(b1, a), 0);
  ASSERT_EQ(s.launch(b2, b), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(overlap(s.span(a), s.span(b)));
}

}  // namespace
}  // namespace acs::sim
