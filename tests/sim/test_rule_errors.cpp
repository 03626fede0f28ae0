// docs/design.md rule 6 and "never break the host program": a failed launch
// returns the backend's error unchanged, and when acs's own calls (stream,
// event, record, wait) fail, the program must still run as written.
#include <gtest/gtest.h>

#include "scenario.hpp"

namespace acs::sim {
namespace {

constexpr backend_status launch_error = 98;   // cudaErrorInvalidDeviceFunction
constexpr backend_status own_call_error = 2;  // cudaErrorMemoryAllocation

TEST(rule6, a_failed_launch_returns_the_backend_error) {
  scenario s({}, roomy);
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  ASSERT_EQ(s.launch(vs, s.make_kernel(short_kernel, {}, {0})), 0);
  const kernel& failing = s.make_kernel(short_kernel, {0}, {1});
  s.sim.fail_calls(api_call::launch, 1, launch_error);
  EXPECT_EQ(s.launch(vs, failing), launch_error);
  EXPECT_EQ(s.sim.launches(failing.id), 0u);
  ASSERT_EQ(s.launch(vs, s.make_kernel(short_kernel, {0}, {1})), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_EQ(s.acs.stats().launch_errors, 1u);
}

// acs's own calls fail; the kernels must still see the program's order.
struct own_failure {
  const char* name;
  api_call which;
  unsigned count;
};

class own_calls_fail : public ::testing::TestWithParam<own_failure> {};

TEST_P(own_calls_fail, the_program_still_runs_in_order) {
  const own_failure f = GetParam();
  scenario s({}, roomy);
  const virtual_stream vs = s.stream(stream_kind::non_blocking);
  // A first kernel, so that later failures hit a stream acs already knows.
  ASSERT_EQ(s.launch(vs, s.make_kernel(short_kernel, {}, {9})), 0);
  s.sim.fail_calls(f.which, f.count, own_call_error);
  ASSERT_EQ(s.launch(vs, s.make_kernel(long_kernel, {}, {0})), 0);
  s.sim.fail_calls(f.which, 0, 0);
  ASSERT_EQ(s.launch(vs, s.make_kernel(short_kernel, {0}, {1})), 0);
  s.copy(vs, 2, 0, 1, short_kernel);
  EXPECT_TRUE(s.matches_serial());
}

INSTANTIATE_TEST_SUITE_P(all, own_calls_fail,
                         ::testing::Values(own_failure{"record_event", api_call::record_event, 1},
                                           own_failure{"wait_event", api_call::wait_event, 1},
                                           own_failure{"every_record_event", api_call::record_event, 100},
                                           own_failure{"every_wait_event", api_call::wait_event, 100},
                                           own_failure{"create_event", api_call::create_event, 100}),
                         [](const ::testing::TestParamInfo<own_failure>& param) { return param.param.name; });

// No pool at all, or only part of one: kernels still run, in order.
TEST(rule6_pool, failing_stream_creation_keeps_the_program_correct) {
  for (const unsigned created : {0u, 1u, 2u}) {
    scenario s({}, roomy);
    const virtual_stream vs = s.stream(stream_kind::non_blocking);
    s.sim.fail_calls(api_call::create_stream, 100, own_call_error, created);
    const kernel& writer = s.make_kernel(long_kernel, {}, {0});
    const kernel& reader = s.make_kernel(short_kernel, {0}, {1});
    ASSERT_EQ(s.launch(vs, writer), 0);
    ASSERT_EQ(s.launch(vs, s.make_kernel(long_kernel, {}, {5})), 0);
    ASSERT_EQ(s.launch(vs, reader), 0);
    s.copy(vs, 2, 1, 1, short_kernel);
    EXPECT_TRUE(s.matches_serial()) << created << " pool stream(s) created";
    EXPECT_GE(s.span(reader).start, s.span(writer).end);
  }
}

}  // namespace
}  // namespace acs::sim
