// acs_suballocation (include/acs/acs.h): what the call accepts, and what the completion of a
// non-exact declaration adds once a caching allocator's blocks are registered (the acs.torch
// integration declares each operator's tensors and relies on it for outputs and workspaces).
#include "annotations/inferred/suballocations.hpp"
#include "support.hpp"

extern "C" acs_status acs_v1_suballocation(const void*, size_t, int) noexcept;

namespace acs::testing {
namespace {

constexpr address segment = 0x7f50'0000'0000ULL;  // one 2 MiB segment holding several tensors
constexpr std::uint64_t segment_bytes = 2 << 20;
const byte_range whole_segment{segment, segment + segment_bytes - 1};
constexpr address input = segment;                 // a tensor the operator reads (declared)
constexpr address output = segment + 0x1000;       // allocated inside the operator (not declared)
constexpr address workspace = segment + 0x2000;    // a library's workspace (not declared)
constexpr address unregistered = segment + 0x8000; // in the segment, in no registered block

class annotations_suballocation : public annotation_test {
 protected:
  void SetUp() override {
    annotation_test::SetUp();
    device_suballocations().clear();
    view.allocations.insert(segment, segment_bytes);
    view.word_params(f, 3);
  }
  void TearDown() override {
    device_suballocations().clear();
    annotation_test::TearDown();
  }
  const CUfunction f = function_handle(40);
};

TEST_F(annotations_suballocation, registers_and_drops_blocks) {
  EXPECT_EQ(acs_v1_suballocation(ptr(output), 0x1000, 1), ACS_OK);
  EXPECT_EQ(device_suballocations().find(output + 0xfff), (byte_range{output, output + 0xfff}));
  EXPECT_EQ(acs_v1_suballocation(ptr(output), 0x1000, 0), ACS_OK);
  EXPECT_FALSE(device_suballocations().find(output).has_value());
  EXPECT_EQ(acs_v1_suballocation(ptr(output), 0, 0), ACS_OK);  // nothing there: not an error
  EXPECT_EQ(acs_v1_suballocation(nullptr, 0, 1), ACS_OK);      // zero bytes: nothing to record
}

TEST_F(annotations_suballocation, bad_input_is_reported_and_made_conservative) {
  EXPECT_EQ(acs_v1_suballocation(nullptr, 64, 1), ACS_INVALID);
  EXPECT_TRUE(device_suballocations().empty());
  EXPECT_EQ(acs_v1_suballocation(ptr(address_max - 15), 64, 1), ACS_INVALID);  // wraps: clamped
  EXPECT_EQ(device_suballocations().find(address_max), (byte_range{address_max - 15, address_max}));
}

TEST_F(annotations_suballocation, ignored_when_acs_is_disabled) {
  annotations::override_options({.enabled = false, .infer_alloc = true, .check = false});
  EXPECT_EQ(acs_v1_suballocation(ptr(output), 0x1000, 1), ACS_IGNORED);
  EXPECT_TRUE(device_suballocations().empty());
}

TEST_F(annotations_suballocation, completion_adds_the_undeclared_blocks_not_the_segment) {
  // The operator's scope declares its input; the kernel also writes the output and a
  // workspace, both blocks of the same segment. Without the blocks the input's range would
  // touch the segment and neither would be added at all.
  ASSERT_EQ(acs_v1_suballocation(ptr(input), 0x1000, 1), ACS_OK);
  ASSERT_EQ(acs_v1_suballocation(ptr(output), 0x1000, 1), ACS_OK);
  ASSERT_EQ(acs_v1_suballocation(ptr(workspace), 0x800, 1), ACS_OK);
  const acs_range reads[] = {range(input, 0x400)};
  ASSERT_EQ(acs_v1_scope_begin(reads, 1, nullptr, 0, ACS_DEFAULT), ACS_OK);
  launch_args args({input, output + 0x10, workspace});
  const auto fp = take(f, args.get());
  ASSERT_EQ(acs_v1_scope_end(), ACS_OK);
  const byte_range out_block{output, output + 0xfff}, ws_block{workspace, workspace + 0x7ff};
  EXPECT_EQ(fp.access.reads, (std::vector<byte_range>{{input, input + 0x3ff}, out_block, ws_block}));
  EXPECT_EQ(fp.access.writes, (std::vector<byte_range>{out_block, ws_block}));
}

TEST_F(annotations_suballocation, an_uncharted_pointer_adds_the_whole_segment_though_a_range_touches_it) {
  // A block the integration never saw (allocated before it was enabled): the declared input
  // touches the segment, yet the pointer may be anything in it, so the segment is added.
  ASSERT_EQ(acs_v1_suballocation(ptr(input), 0x1000, 1), ACS_OK);
  const acs_range reads[] = {range(input, 0x400)};
  ASSERT_EQ(acs_v1_next_launch(reads, 1, nullptr, 0, ACS_DEFAULT), ACS_OK);
  launch_args args({input, unregistered, 7});
  const auto fp = take(f, args.get());
  EXPECT_EQ(fp.access.writes, std::vector<byte_range>{whole_segment});
}

TEST_F(annotations_suballocation, without_blocks_the_old_rule_holds) {
  // No acs_suballocation anywhere: an allocation a declared range touches is not added
  // (a base pointer passed with an offset), exactly as before sub-allocations existed.
  const acs_range reads[] = {range(input, 0x400)};
  ASSERT_EQ(acs_v1_next_launch(reads, 1, nullptr, 0, ACS_DEFAULT), ACS_OK);
  launch_args args({input, unregistered, 7});
  const auto fp = take(f, args.get());
  EXPECT_TRUE(fp.access.writes.empty());
  EXPECT_EQ(fp.access.reads, (std::vector<byte_range>{{input, input + 0x3ff}}));
}

TEST_F(annotations_suballocation, the_header_wrappers_reach_the_implementation) {
  EXPECT_EQ(acs_suballocation(ptr(output), 0x1000, 1), ACS_OK);
  EXPECT_TRUE(device_suballocations().find(output).has_value());
  EXPECT_EQ(acs::suballocation(acs::bytes(ptr(output), 0x1000), false), ACS_OK);
  EXPECT_FALSE(device_suballocations().find(output).has_value());
}

}  // namespace
}  // namespace acs::testing
