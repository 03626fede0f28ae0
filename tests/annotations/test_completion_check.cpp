// What acs adds to a declaration without ACS_EXACT (the allocations that
// pointer arguments point into and no declared range touches), and what
// ACS_CHECK=1 reports.
#include "support.hpp"

namespace acs::testing {
namespace {

constexpr address alloc_a = 0x7f30'0000'0000ULL;  // two allocations of 64 KiB, far apart
constexpr address alloc_b = 0x7f40'0000'0000ULL;
constexpr std::uint64_t alloc_bytes = 0x10000;
const byte_range whole_a{alloc_a, alloc_a + alloc_bytes - 1};
const byte_range whole_b{alloc_b, alloc_b + alloc_bytes - 1};

class completion : public annotation_test {
 protected:
  void SetUp() override {
    annotation_test::SetUp();
    view.allocations.insert(alloc_a, alloc_bytes);
    view.allocations.insert(alloc_b, alloc_bytes);
    view.word_params(f, 3);
  }
  void options(bool infer_alloc, bool check) {
    annotations::override_options({.enabled = true, .infer_alloc = infer_alloc, .check = check});
  }
  const CUfunction f = function_handle(30);
};

TEST_F(completion, without_exact_untouched_allocations_of_arguments_are_added) {
  const acs_range out[] = {range(alloc_a, 0x100)};
  launch_args args({alloc_a, alloc_b + 0x10, 7});  // the second pointer is not declared
  ASSERT_EQ(acs_v1_next_launch(nullptr, 0, out, 1, ACS_DEFAULT), ACS_OK);
  const auto fp = take(f, args.get());
  EXPECT_TRUE(fp.declared);
  EXPECT_FALSE(fp.exact);
  EXPECT_EQ(fp.access.writes, (std::vector<byte_range>{{alloc_a, alloc_a + 0xff}, whole_b}));
  EXPECT_EQ(fp.access.reads, std::vector<byte_range>{whole_b});
}

TEST_F(completion, with_exact_nothing_is_added) {
  const acs_range out[] = {range(alloc_a, 0x100)};
  launch_args args({alloc_a, alloc_b + 0x10, 7});
  ASSERT_EQ(acs_v1_next_launch(nullptr, 0, out, 1, ACS_EXACT), ACS_OK);
  const auto fp = take(f, args.get());
  EXPECT_EQ(fp.access.writes, (std::vector<byte_range>{{alloc_a, alloc_a + 0xff}}));
  EXPECT_TRUE(fp.access.reads.empty());
}

TEST_F(completion, an_allocation_a_declared_range_touches_is_not_added_whole) {
  // Base pointer plus an offset argument: the pointer lies outside the declared
  // half, but the declaration covers that allocation.
  const acs_range out[] = {range(alloc_a + 0x8000, 0x8000)};
  launch_args args({alloc_a, 0x8000, 7});
  ASSERT_EQ(acs_v1_next_launch(nullptr, 0, out, 1, ACS_DEFAULT), ACS_OK);
  const auto fp = take(f, args.get());
  EXPECT_EQ(fp.access.writes, (std::vector<byte_range>{{alloc_a + 0x8000, alloc_a + 0xffff}}));
  EXPECT_TRUE(fp.access.reads.empty());
}

TEST_F(completion, scopes_and_rules_are_completed_too) {
  launch_args args({alloc_a, alloc_b, 7});
  const acs_range out[] = {range(alloc_a, 0x100)};
  ASSERT_EQ(acs_v1_scope_begin(nullptr, 0, out, 1, ACS_DEFAULT), ACS_OK);
  const auto scoped = take(f, args.get());
  ASSERT_EQ(acs_v1_scope_end(), ACS_OK);
  EXPECT_EQ(scoped.access.writes, (std::vector<byte_range>{{alloc_a, alloc_a + 0xff}, whole_b}));
  ASSERT_EQ(acs_v1_register_kernel(
                f,
                [](acs_footprint* fp, void* const* a, void*) {
                  acs_v1_footprint_write(fp, ptr(*static_cast<const address*>(a[0])), 16);
                },
                nullptr, ACS_DEFAULT),
            ACS_OK);
  const auto ruled = take(f, args.get());
  EXPECT_EQ(acs_v1_register_kernel(f, nullptr, nullptr, 0), ACS_OK);
  EXPECT_EQ(ruled.access.writes, (std::vector<byte_range>{{alloc_a, alloc_a + 15}, whole_b}));
}

TEST_F(completion, with_inference_off_nothing_is_added) {
  options(false, false);
  const acs_range out[] = {range(alloc_a, 0x100)};
  launch_args args({alloc_a, alloc_b + 0x10, 7});
  ASSERT_EQ(acs_v1_next_launch(nullptr, 0, out, 1, ACS_DEFAULT), ACS_OK);
  const auto fp = take(f, args.get());
  EXPECT_EQ(fp.access.writes, (std::vector<byte_range>{{alloc_a, alloc_a + 0xff}}));
}

TEST_F(completion, arguments_that_cannot_be_read_add_nothing) {
  const acs_range out[] = {range(alloc_a, 0x100)};
  launch_args args({alloc_a, alloc_b + 0x10, 7});
  ASSERT_EQ(acs_v1_next_launch(nullptr, 0, out, 1, ACS_DEFAULT), ACS_OK);
  const auto fp = take(function_handle(31), args.get());  // no layout known
  EXPECT_EQ(fp.access.writes, (std::vector<byte_range>{{alloc_a, alloc_a + 0xff}}));
}

TEST_F(completion, check_warns_once_per_kernel_about_an_argument_outside_the_declaration) {
  options(true, true);
  view.names[f] = "scale_kernel";
  const CUfunction g = function_handle(32);
  view.word_params(g, 3);
  view.names[g] = "other_kernel";
  const acs_range out[] = {range(alloc_a, 0x100)};
  launch_args args({alloc_a, alloc_b + 0x10, 7});
  ::testing::internal::CaptureStderr();
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(acs_v1_next_launch(nullptr, 0, out, 1, ACS_EXACT), ACS_OK);
    (void)take(f, args.get());
  }
  ASSERT_EQ(acs_v1_next_launch(nullptr, 0, out, 1, ACS_EXACT), ACS_OK);
  (void)take(g, args.get());
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(occurrences(err, "ACS_CHECK: kernel scale_kernel: argument 1"), 1u) << err;
  EXPECT_EQ(occurrences(err, "ACS_CHECK: kernel other_kernel: argument 1"), 1u) << err;
  EXPECT_EQ(occurrences(err, "ACS_CHECK"), 2u) << err;
}

TEST_F(completion, check_is_quiet_when_completion_covers_the_argument) {
  options(true, true);
  const acs_range out[] = {range(alloc_a, 0x100)};
  launch_args args({alloc_a, alloc_b + 0x10, 7});
  ::testing::internal::CaptureStderr();
  ASSERT_EQ(acs_v1_next_launch(nullptr, 0, out, 1, ACS_DEFAULT), ACS_OK);
  (void)take(f, args.get());
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(occurrences(err, "ACS_CHECK"), 0u) << err;
}

TEST_F(completion, check_warns_once_per_kernel_about_a_range_outside_every_allocation) {
  options(true, true);
  const CUfunction h = function_handle(33);
  view.word_params(h, 3);
  view.names[h] = "stray_kernel";
  const acs_range out[] = {range(alloc_a, 0x100)};
  const acs_range stray[] = {range(alloc_b + alloc_bytes - 8, 16)};  // runs past the end of b
  launch_args args({alloc_a, alloc_b, 7});
  ::testing::internal::CaptureStderr();
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(acs_v1_next_launch(stray, 1, out, 1, ACS_EXACT), ACS_OK);
    (void)take(h, args.get());
  }
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(occurrences(err, "ACS_CHECK: kernel stray_kernel: the declared range"), 1u) << err;
  EXPECT_EQ(occurrences(err, "lies outside every allocation acs knows"), 1u) << err;
}

TEST_F(completion, check_ignores_pointers_that_only_come_near_an_allocation) {
  options(true, true);
  const acs_range out[] = {range(alloc_a, alloc_bytes)};
  launch_args args({alloc_a, alloc_a + alloc_bytes, 7});  // one past the end
  ::testing::internal::CaptureStderr();
  ASSERT_EQ(acs_v1_next_launch(nullptr, 0, out, 1, ACS_EXACT), ACS_OK);
  (void)take(f, args.get());
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(occurrences(err, "ACS_CHECK"), 0u) << err;
}

}  // namespace
}  // namespace acs::testing
