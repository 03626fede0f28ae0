// The entry points the runtime calls (declared.hpp), with the process's own
// view of launches (inference through the driver, the process's allocation
// map) and the services the runtime installs with declared::connect.
#include <cstdio>

#include "support.hpp"

namespace acs::testing {
namespace {

using runtime_entry = annotation_test;

TEST_F(runtime_entry, take_returns_the_declaration_and_leaves_undeclared_launches_to_inference) {
  const acs_range out[] = {range(0x7f70'0000'0000ULL, 64)};
  ASSERT_EQ(acs_v1_next_launch(nullptr, 0, out, 1, ACS_DEFAULT), ACS_OK);
  ASSERT_EQ(acs_v1_barrier(), ACS_OK);
  declared::launch_footprint fp;
  fp.group = 99;  // stale values from a previous launch are reset
  fp.access.reads.push_back({1, 2});
  EXPECT_TRUE(declared::take(function_handle(50), nullptr, fp));
  EXPECT_TRUE(fp.declared);
  EXPECT_TRUE(fp.barrier_before);
  EXPECT_EQ(fp.group, 0u);
  EXPECT_TRUE(fp.access.reads.empty());
  EXPECT_EQ(fp.access.writes, (std::vector<byte_range>{{0x7f70'0000'0000ULL, 0x7f70'0000'003fULL}}));
  EXPECT_FALSE(declared::take(function_handle(50), nullptr, fp));
  EXPECT_FALSE(fp.declared);
  EXPECT_FALSE(fp.barrier_before);
  EXPECT_TRUE(fp.access.empty());
}

TEST_F(runtime_entry, check_names_the_kernel_through_the_runtime_service) {
  annotations::override_options({.enabled = true, .infer_alloc = true, .check = true});
  declared::connect({.capture_in_progress = nullptr,
                     .kernel_name = [](CUfunction) noexcept -> const char* { return "named_by_runtime"; }});
  const acs_range out[] = {range(0x7f71'0000'0000ULL, 64)};  // in no allocation the process knows
  ASSERT_EQ(acs_v1_next_launch(nullptr, 0, out, 1, ACS_EXACT), ACS_OK);
  declared::launch_footprint fp;
  ::testing::internal::CaptureStderr();
  EXPECT_TRUE(declared::take(function_handle(51), nullptr, fp));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(occurrences(err, "ACS_CHECK: kernel named_by_runtime: the declared range"), 1u) << err;
}

TEST_F(runtime_entry, without_a_name_service_the_handle_is_printed) {
  annotations::override_options({.enabled = true, .infer_alloc = true, .check = true});
  declared::connect({});
  const acs_range out[] = {range(0x7f72'0000'0000ULL, 64)};
  ASSERT_EQ(acs_v1_next_launch(nullptr, 0, out, 1, ACS_EXACT), ACS_OK);
  declared::launch_footprint fp;
  ::testing::internal::CaptureStderr();
  EXPECT_TRUE(declared::take(function_handle(52), nullptr, fp));
  const std::string err = ::testing::internal::GetCapturedStderr();
  char expected[96];
  std::snprintf(expected, sizeof expected, "ACS_CHECK: kernel at %p: the declared range",
                static_cast<const void*>(function_handle(52)));
  EXPECT_EQ(occurrences(err, expected), 1u) << err;
}

TEST_F(runtime_entry, discard_pending_is_what_a_passed_through_launch_calls) {
  const acs_range out[] = {range(0x7f73'0000'0000ULL, 64)};
  ASSERT_EQ(acs_v1_next_launch(nullptr, 0, out, 1, ACS_EXACT), ACS_OK);
  declared::discard_pending();
  declared::launch_footprint fp;
  EXPECT_FALSE(declared::take(function_handle(53), nullptr, fp)) << "the declaration belonged to that launch";
}

}  // namespace
}  // namespace acs::testing
