// docs/design.md rule 3: stream syncs and queries, and events recorded on a
// stream, account for the stream's redirected kernels.
#include <gtest/gtest.h>

#include "scenario.hpp"

namespace acs::sim {
namespace {

class rule3 : public ::testing::TestWithParam<stream_kind> {};

TEST_P(rule3, stream_sync_waits_for_redirected_kernels) {
  scenario s({}, roomy);
  const virtual_stream vs = s.stream(GetParam());
  const kernel& k = s.make_kernel(long_kernel, {}, {0});
  ASSERT_EQ(s.launch(vs, k), 0);
  s.sync_stream(vs);
  EXPECT_GE(s.sim.now(), s.span(k).end);
  EXPECT_TRUE(s.host_reads_serial_value(0));
  // Another stream relies on the host sync alone.
  ASSERT_EQ(s.launch(s.stream(stream_kind::non_blocking), s.make_kernel(short_kernel, {0}, {1})), 0);
  EXPECT_TRUE(s.matches_serial());
}

TEST_P(rule3, stream_query_reports_idle_only_after_redirected_kernels) {
  scenario s({}, roomy);
  const virtual_stream vs = s.stream(GetParam());
  const kernel& k = s.make_kernel(long_kernel, {}, {0});
  ASSERT_EQ(s.launch(vs, k), 0);
  // A query joins the stream first (interpose: the query hooks), as a sync does.
  std::uint64_t point = 0;
  do {
    point = s.acs.join(vs);
  } while (!s.sim.query_stream(vs.handle));
  s.acs.synchronized(vs.key, point);
  EXPECT_GE(s.sim.now(), s.span(k).end);
  EXPECT_TRUE(s.host_reads_serial_value(0));
  EXPECT_TRUE(s.matches_serial());
}

TEST_P(rule3, event_recorded_after_redirected_kernels_covers_them) {
  scenario s({}, roomy);
  const virtual_stream vs = s.stream(GetParam());
  for (cell c = 0; c < 4; ++c) ASSERT_EQ(s.launch(vs, s.make_kernel(long_kernel, {}, {c})), 0);
  const event_handle e = s.record(vs);
  s.sim.synchronize_event(e);
  for (cell c = 0; c < 4; ++c) EXPECT_TRUE(s.host_reads_serial_value(c));
  EXPECT_TRUE(s.matches_serial());
}

TEST_P(rule3, event_query_reports_complete_only_after_redirected_kernels) {
  scenario s({}, roomy);
  const virtual_stream vs = s.stream(GetParam());
  const kernel& k = s.make_kernel(long_kernel, {}, {0});
  ASSERT_EQ(s.launch(vs, k), 0);
  const event_handle e = s.record(vs);
  EXPECT_EQ(s.sim.query_event(e), event_state::pending);
  while (s.sim.query_event(e) != event_state::complete) {
  }
  EXPECT_TRUE(s.host_reads_serial_value(0));
  EXPECT_TRUE(s.matches_serial());
}

TEST_P(rule3, device_sync_waits_for_everything) {
  scenario s({}, roomy);
  const virtual_stream vs = s.stream(GetParam());
  ASSERT_EQ(s.launch(vs, s.make_kernel(long_kernel, {}, {0})), 0);
  s.sync_device();
  EXPECT_TRUE(s.host_reads_serial_value(0));
  EXPECT_TRUE(s.matches_serial());
}

// Telling the scheduler that one stream was synced must not make it forget
// the kernels of another.
TEST_P(rule3, syncing_one_stream_keeps_the_dependencies_of_another) {
  scenario s({}, roomy);
  const virtual_stream vs = s.stream(GetParam());
  const virtual_stream other = s.stream(stream_kind::non_blocking);
  const kernel& writer = s.make_kernel(long_kernel, {}, {0});
  ASSERT_EQ(s.launch(vs, writer), 0);
  ASSERT_EQ(s.launch(other, s.make_kernel(short_kernel, {}, {5})), 0);
  s.sync_stream(other);
  const kernel& reader = s.make_kernel(short_kernel, {0}, {1});
  ASSERT_EQ(s.launch(vs, reader), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_GE(s.span(reader).start, s.span(writer).end);
}

INSTANTIATE_TEST_SUITE_P(all_kinds, rule3,
                         ::testing::Values(stream_kind::legacy, stream_kind::blocking,
                                           stream_kind::non_blocking),
                         kind_name);

// Rule 8 meets rule 3: thread A's cudaStreamSynchronize returns, thread B
// launches on the same stream, and only then does A's hook report the sync.
// The report must not cover B's kernel, which is still running: the sync
// point taken before the sync tells them apart. The interleaving is replayed
// here deterministically, on one thread.
TEST(rule3_threads, a_launch_between_a_stream_sync_and_its_report_is_kept) {
  scenario s({}, roomy);
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  const kernel& writer = s.make_kernel(long_kernel, {}, {0});
  const kernel& reader = s.make_kernel(short_kernel, {0}, {1});
  ASSERT_EQ(s.launch(vs, s.make_kernel(short_kernel, {}, {5})), 0);
  const std::uint64_t point = scheduler::sync_point();  // thread A's hook
  ASSERT_EQ(s.sim.synchronize(vs.handle), 0);           // thread A
  ASSERT_EQ(s.launch(vs, writer), 0);                   // thread B
  s.acs.synchronized(vs.key, point);                    // thread A's hook, after its sync returned
  ASSERT_EQ(s.launch(vs, reader), 0);                   // thread B
  EXPECT_TRUE(s.matches_serial());
  EXPECT_GE(s.span(reader).start, s.span(writer).end);
}

TEST(rule3_threads, a_launch_between_a_device_sync_and_its_report_is_kept) {
  scenario s({}, roomy);
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  const kernel& writer = s.make_kernel(long_kernel, {}, {0});
  const kernel& reader = s.make_kernel(short_kernel, {0}, {1});
  ASSERT_EQ(s.launch(vs, s.make_kernel(short_kernel, {}, {5})), 0);
  const std::uint64_t point = scheduler::sync_point();  // thread A's hook
  s.sim.synchronize_device();                           // thread A
  ASSERT_EQ(s.launch(vs, writer), 0);                   // thread B
  s.acs.device_synchronized(point);                     // thread A's hook
  ASSERT_EQ(s.launch(vs, reader), 0);                   // thread B
  EXPECT_TRUE(s.matches_serial());
  EXPECT_GE(s.span(reader).start, s.span(writer).end);
}

// The same interleaving, then work issued on the stream directly: the stream
// must still join the kernel launched after the device sync's point.
TEST(rule3_threads, a_device_sync_report_leaves_later_kernels_to_be_joined) {
  scenario s({}, roomy);
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  ASSERT_EQ(s.launch(vs, s.make_kernel(short_kernel, {}, {5})), 0);
  const std::uint64_t point = scheduler::sync_point();           // thread A's hook
  s.sim.synchronize_device();                                    // thread A
  ASSERT_EQ(s.launch(vs, s.make_kernel(long_kernel, {}, {0})), 0);  // thread B
  s.acs.device_synchronized(point);                              // thread A's hook
  s.copy(vs, 1, 0, 1, short_kernel);                             // thread B: reads the kernel's output
  EXPECT_TRUE(s.matches_serial());
}

}  // namespace
}  // namespace acs::sim
