// The per-thread state machine behind acs_next_launch, acs_scope_begin/end and
// acs_barrier, as the runtime sees it through take(). Each bad input gets its
// test: it must stay conservative (never lose ordering) and warn once.
#include <atomic>
#include <thread>

#include "support.hpp"

namespace acs::testing {
namespace {

using state_machine = annotation_test;

constexpr address a = 0x7f00'0000'0000ULL;
constexpr address b = 0x7f00'0010'0000ULL;
constexpr address c = 0x7f00'0020'0000ULL;

const byte_range ra{a, a + 0xff};
const byte_range rb{b, b + 0xff};
const byte_range rc{c, c + 0xff};

bool is_everything(const declared::launch_footprint& f) {
  return f.declared && f.access.reads.empty() && f.access.writes.size() == 1 &&
         f.access.writes[0] == whole_address_space;
}

TEST_F(state_machine, next_launch_declares_exactly_the_next_launch) {
  const acs_range in[] = {range(a, 0x100)};
  const acs_range out[] = {range(b, 0x100)};
  ASSERT_EQ(acs_v1_next_launch(in, 1, out, 1, ACS_EXACT), ACS_OK);
  const auto first = take(function_handle(1));
  EXPECT_TRUE(first.declared);
  EXPECT_TRUE(first.exact);
  EXPECT_EQ(first.group, 0u);
  EXPECT_FALSE(first.barrier_before);
  EXPECT_EQ(first.access.reads, std::vector<byte_range>{ra});
  EXPECT_EQ(first.access.writes, std::vector<byte_range>{rb});
  const auto second = take(function_handle(1));
  EXPECT_FALSE(second.declared) << "a per-launch declaration must be used once";
  EXPECT_TRUE(second.access.empty());
}

TEST_F(state_machine, zero_size_ranges_declare_nothing_and_are_not_errors) {
  const acs_range in[] = {range(a, 0), {nullptr, 0}};
  ASSERT_EQ(acs_v1_next_launch(in, 2, nullptr, 0, ACS_EXACT), ACS_OK);
  const auto f = take(function_handle(1));
  EXPECT_TRUE(f.declared);
  EXPECT_TRUE(f.access.empty()) << "a kernel declared to touch nothing";
}

TEST_F(state_machine, declarations_belong_to_the_declaring_thread) {
  const acs_range out[] = {range(a, 0x100)};
  ASSERT_EQ(acs_v1_next_launch(nullptr, 0, out, 1, ACS_EXACT), ACS_OK);
  ASSERT_EQ(acs_v1_scope_begin(nullptr, 0, out, 1, ACS_EXACT), ACS_OK);
  bool other_declared = true;
  std::uint64_t other_group = 1;
  std::thread([&] {
    declared::launch_footprint f;
    annotations::take(function_handle(1), nullptr, nullptr, f, view);
    other_declared = f.declared;
    other_group = f.group;
  }).join();
  EXPECT_FALSE(other_declared);
  EXPECT_EQ(other_group, 0u);
  EXPECT_TRUE(take(function_handle(1)).declared);
  EXPECT_EQ(acs_v1_scope_end(), ACS_OK);
}

TEST_F(state_machine, a_second_next_launch_before_a_launch_is_merged_and_warned_once) {
  const acs_range ia[] = {range(a, 0x100)};
  const acs_range ib[] = {range(b, 0x100)};
  const acs_range ic[] = {range(c, 0x100)};
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(acs_v1_next_launch(ia, 1, nullptr, 0, ACS_EXACT), ACS_OK);
  EXPECT_EQ(acs_v1_next_launch(nullptr, 0, ib, 1, ACS_DEFAULT), ACS_INVALID);
  const auto f = take(function_handle(1));
  EXPECT_EQ(acs_v1_next_launch(ia, 1, nullptr, 0, ACS_EXACT), ACS_OK);
  EXPECT_EQ(acs_v1_next_launch(nullptr, 0, ic, 1, ACS_EXACT), ACS_INVALID);
  const auto g = take(function_handle(1));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(occurrences(err, "called again before any launch"), 1u) << err;
  // The union: both declarations' ranges; exact only if both were.
  EXPECT_EQ(f.access.reads, std::vector<byte_range>{ra});
  EXPECT_EQ(f.access.writes, std::vector<byte_range>{rb});
  EXPECT_FALSE(f.exact);
  EXPECT_EQ(g.access.writes, std::vector<byte_range>{rc});
  EXPECT_TRUE(g.exact);
}

TEST_F(state_machine, per_launch_declaration_wins_over_the_scope) {
  const acs_range sa[] = {range(a, 0x100)};
  const acs_range lb[] = {range(b, 0x100)};
  ASSERT_EQ(acs_v1_scope_begin(nullptr, 0, sa, 1, ACS_EXACT), ACS_OK);
  ASSERT_EQ(acs_v1_next_launch(nullptr, 0, lb, 1, ACS_EXACT), ACS_OK);
  const auto first = take(function_handle(1));
  const auto second = take(function_handle(1));
  ASSERT_EQ(acs_v1_scope_end(), ACS_OK);
  EXPECT_EQ(first.access.writes, std::vector<byte_range>{rb});
  EXPECT_EQ(second.access.writes, std::vector<byte_range>{ra});
  EXPECT_NE(first.group, 0u) << "inside a scope, a per-launch declaration is still part of its task";
  EXPECT_EQ(first.group, second.group);
}

TEST_F(state_machine, a_scope_covers_every_launch_inside_as_one_task) {
  const acs_range in[] = {range(a, 0x100)};
  const acs_range out[] = {range(b, 0x100)};
  ASSERT_EQ(acs_v1_scope_begin(in, 1, out, 1, ACS_EXACT), ACS_OK);
  std::vector<declared::launch_footprint> inside;
  for (int i = 0; i < 3; ++i) inside.push_back(take(function_handle(i)));
  ASSERT_EQ(acs_v1_scope_end(), ACS_OK);
  const auto after = take(function_handle(1));
  for (const auto& f : inside) {
    EXPECT_TRUE(f.declared);
    EXPECT_TRUE(f.exact);
    EXPECT_EQ(f.access.reads, std::vector<byte_range>{ra});
    EXPECT_EQ(f.access.writes, std::vector<byte_range>{rb});
    EXPECT_NE(f.group, 0u);
    EXPECT_EQ(f.group, inside[0].group);
  }
  EXPECT_FALSE(after.declared);
  EXPECT_EQ(after.group, 0u);
}

TEST_F(state_machine, each_scope_is_its_own_task) {
  const acs_range out[] = {range(a, 0x100)};
  ASSERT_EQ(acs_v1_scope_begin(nullptr, 0, out, 1, ACS_EXACT), ACS_OK);
  const auto first = take(function_handle(1));
  ASSERT_EQ(acs_v1_scope_end(), ACS_OK);
  ASSERT_EQ(acs_v1_scope_begin(nullptr, 0, out, 1, ACS_EXACT), ACS_OK);
  const auto second = take(function_handle(1));
  ASSERT_EQ(acs_v1_scope_end(), ACS_OK);
  EXPECT_NE(first.group, 0u);
  EXPECT_NE(second.group, 0u);
  EXPECT_NE(first.group, second.group);
}

TEST_F(state_machine, nested_scopes_use_the_innermost_ranges_and_the_outermost_task) {
  const acs_range oa[] = {range(a, 0x100)};
  const acs_range ib[] = {range(b, 0x100)};
  ASSERT_EQ(acs_v1_scope_begin(nullptr, 0, oa, 1, ACS_EXACT), ACS_OK);
  const auto outer_before = take(function_handle(1));
  ASSERT_EQ(acs_v1_scope_begin(ib, 1, nullptr, 0, ACS_DEFAULT), ACS_OK);
  const auto inner = take(function_handle(1));
  ASSERT_EQ(acs_v1_scope_end(), ACS_OK);
  const auto outer_after = take(function_handle(1));
  ASSERT_EQ(acs_v1_scope_end(), ACS_OK);
  EXPECT_EQ(outer_before.access.writes, std::vector<byte_range>{ra});
  EXPECT_EQ(inner.access.reads, std::vector<byte_range>{rb});
  EXPECT_TRUE(inner.access.writes.empty());
  EXPECT_FALSE(inner.exact);
  EXPECT_EQ(outer_after.access.writes, std::vector<byte_range>{ra});
  EXPECT_EQ(inner.group, outer_before.group);
  EXPECT_EQ(outer_after.group, outer_before.group);
}

TEST_F(state_machine, scope_end_without_begin_warns_once_and_changes_nothing) {
  const acs_range out[] = {range(a, 0x100)};
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(acs_v1_scope_end(), ACS_INVALID);
  ASSERT_EQ(acs_v1_scope_begin(nullptr, 0, out, 1, ACS_EXACT), ACS_OK);
  EXPECT_EQ(acs_v1_scope_end(), ACS_OK);
  EXPECT_EQ(acs_v1_scope_end(), ACS_INVALID);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(occurrences(err, "acs_scope_end without a matching acs_scope_begin"), 1u) << err;
  EXPECT_FALSE(take(function_handle(1)).declared);
}

TEST_F(state_machine, a_barrier_comes_with_the_next_launch_only) {
  ASSERT_EQ(acs_v1_barrier(), ACS_OK);
  ASSERT_EQ(acs_v1_barrier(), ACS_OK);  // two barriers before a launch are one
  const auto first = take(function_handle(1));
  EXPECT_TRUE(first.barrier_before);
  EXPECT_FALSE(first.declared) << "a barrier declares no footprint";
  EXPECT_FALSE(take(function_handle(1)).barrier_before);
}

TEST_F(state_machine, discard_pending_drops_the_declaration_and_barrier_but_keeps_scopes) {
  const acs_range sa[] = {range(a, 0x100)};
  const acs_range lb[] = {range(b, 0x100)};
  ASSERT_EQ(acs_v1_scope_begin(nullptr, 0, sa, 1, ACS_EXACT), ACS_OK);
  ASSERT_EQ(acs_v1_next_launch(nullptr, 0, lb, 1, ACS_EXACT), ACS_OK);
  ASSERT_EQ(acs_v1_barrier(), ACS_OK);
  declared::discard_pending();  // the launch passed straight through
  const auto f = take(function_handle(1));
  ASSERT_EQ(acs_v1_scope_end(), ACS_OK);
  EXPECT_FALSE(f.barrier_before);
  EXPECT_EQ(f.access.writes, std::vector<byte_range>{ra}) << "the scope still applies";
}

TEST_F(state_machine, annotations_during_a_capture_are_ignored_with_one_warning) {
  const acs_range sa[] = {range(a, 0x100)};
  const acs_range lb[] = {range(b, 0x100)};
  ASSERT_EQ(acs_v1_scope_begin(nullptr, 0, sa, 1, ACS_EXACT), ACS_OK);  // before the capture
  ::testing::internal::CaptureStderr();
  capture_flag() = true;
  EXPECT_EQ(acs_v1_next_launch(nullptr, 0, lb, 1, ACS_EXACT), ACS_IGNORED);
  EXPECT_EQ(acs_v1_scope_begin(nullptr, 0, lb, 1, ACS_EXACT), ACS_IGNORED);
  EXPECT_EQ(acs_v1_barrier(), ACS_OK) << "a barrier is kept: dropping it could lose an ordering";
  capture_flag() = false;
  const auto inside = take(function_handle(1));  // a launch outside the capture
  EXPECT_EQ(acs_v1_scope_end(), ACS_OK) << "an ignored scope_begin still opens a scope to pair with";
  const auto after = take(function_handle(1));
  EXPECT_EQ(acs_v1_scope_end(), ACS_OK);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(occurrences(err, "while a stream capture is in progress"), 1u) << err;
  EXPECT_TRUE(inside.barrier_before);
  EXPECT_EQ(inside.access.writes, std::vector<byte_range>{ra}) << "the inert scope defers to the outer one";
  EXPECT_EQ(after.access.writes, std::vector<byte_range>{ra});
  EXPECT_EQ(inside.group, after.group);
}

TEST_F(state_machine, everything_is_ignored_when_acs_is_disabled) {
  annotations::override_options({.enabled = false, .infer_alloc = true, .check = false});
  const acs_range out[] = {range(a, 0x100)};
  EXPECT_EQ(acs_v1_next_launch(nullptr, 0, out, 1, ACS_EXACT), ACS_IGNORED);
  EXPECT_EQ(acs_v1_scope_begin(nullptr, 0, out, 1, ACS_EXACT), ACS_IGNORED);
  EXPECT_EQ(acs_v1_scope_end(), ACS_IGNORED);
  EXPECT_EQ(acs_v1_barrier(), ACS_IGNORED);
  const auto f = take(function_handle(1));
  EXPECT_FALSE(f.declared);
  EXPECT_FALSE(f.barrier_before);
}

TEST_F(state_machine, a_null_array_with_a_count_makes_the_launch_touch_everything) {
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(acs_v1_next_launch(nullptr, 3, nullptr, 0, ACS_EXACT), ACS_INVALID);
  const auto f = take(function_handle(1));
  EXPECT_EQ(acs_v1_next_launch(nullptr, 0, nullptr, 1, ACS_EXACT), ACS_INVALID);
  const auto g = take(function_handle(1));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(is_everything(f));
  EXPECT_TRUE(is_everything(g));
  EXPECT_EQ(occurrences(err, "a NULL range array with a non-zero count"), 1u) << err;
}

TEST_F(state_machine, a_null_pointer_with_a_size_makes_the_launch_touch_everything) {
  const acs_range bad[] = {range(a, 0x100), {nullptr, 64}};
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(acs_v1_next_launch(bad, 2, nullptr, 0, ACS_EXACT), ACS_INVALID);
  const auto f = take(function_handle(1));
  EXPECT_EQ(acs_v1_next_launch(nullptr, 0, bad, 2, ACS_EXACT), ACS_INVALID);
  const auto g = take(function_handle(1));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(is_everything(f));
  EXPECT_TRUE(is_everything(g));
  EXPECT_EQ(occurrences(err, "a range with a NULL pointer and a non-zero size"), 1u) << err;
}

TEST_F(state_machine, a_range_past_the_end_of_the_address_space_is_clamped) {
  const address top = address_max - 0xfff;
  const acs_range bad[] = {range(top, 0x2000)};
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(acs_v1_next_launch(nullptr, 0, bad, 1, ACS_EXACT), ACS_INVALID);
  const auto f = take(function_handle(1));
  EXPECT_EQ(acs_v1_next_launch(bad, 1, nullptr, 0, ACS_EXACT), ACS_INVALID);
  const auto g = take(function_handle(1));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(f.access.writes, (std::vector<byte_range>{{top, address_max}}));
  EXPECT_EQ(g.access.reads, (std::vector<byte_range>{{top, address_max}}));
  EXPECT_EQ(occurrences(err, "runs past the end of the address space"), 1u) << err;
}

TEST_F(state_machine, too_many_ranges_make_the_launch_touch_everything_without_reading_them) {
  std::vector<acs_range> many(ACS_MAX_RANGES, range(a, 16));
  EXPECT_EQ(acs_v1_next_launch(many.data(), many.size(), nullptr, 0, ACS_EXACT), ACS_OK);
  const auto at_limit = take(function_handle(1));
  EXPECT_EQ(at_limit.access.reads.size(), std::size_t{ACS_MAX_RANGES});
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(acs_v1_next_launch(many.data(), many.size(), many.data(), 1, ACS_EXACT), ACS_INVALID);
  const auto over = take(function_handle(1));
  // An absurd count over a small array: it must not be read.
  const acs_range one[] = {range(a, 16)};
  EXPECT_EQ(acs_v1_next_launch(one, std::size_t{1} << 40, nullptr, 0, ACS_EXACT), ACS_INVALID);
  const auto absurd = take(function_handle(1));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(is_everything(over));
  EXPECT_TRUE(is_everything(absurd));
  EXPECT_EQ(occurrences(err, "more than 4096 ranges"), 1u) << err;
}

TEST_F(state_machine, unknown_flags_are_ignored_and_drop_exact) {
  const acs_range out[] = {range(a, 0x100)};
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(acs_v1_next_launch(nullptr, 0, out, 1, ACS_EXACT | 0x80u), ACS_INVALID);
  const auto f = take(function_handle(1));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(f.declared);
  EXPECT_FALSE(f.exact);
  EXPECT_EQ(f.access.writes, std::vector<byte_range>{ra});
  EXPECT_EQ(occurrences(err, "unknown flag bits"), 1u) << err;
}

TEST_F(state_machine, a_scope_with_bad_input_covers_all_its_launches_with_everything) {
  const acs_range bad[] = {{nullptr, 8}};
  EXPECT_EQ(acs_v1_scope_begin(bad, 1, nullptr, 0, ACS_EXACT), ACS_INVALID);
  const auto first = take(function_handle(1));
  const auto second = take(function_handle(2));
  EXPECT_EQ(acs_v1_scope_end(), ACS_OK);
  EXPECT_TRUE(is_everything(first));
  EXPECT_TRUE(is_everything(second));
  EXPECT_EQ(first.group, second.group);
}

TEST_F(state_machine, scopes_nested_too_deep_are_everything_and_still_balance) {
  const acs_range out[] = {range(a, 0x100)};
  const std::size_t depth = annotations::max_scope_depth + 44;
  ::testing::internal::CaptureStderr();
  std::size_t invalid = 0;
  for (std::size_t i = 0; i < depth; ++i)
    invalid += acs_v1_scope_begin(nullptr, 0, out, 1, ACS_EXACT) == ACS_INVALID;
  const auto deepest = take(function_handle(1));
  for (std::size_t i = 0; i < 44; ++i) EXPECT_EQ(acs_v1_scope_end(), ACS_OK);
  const auto recorded = take(function_handle(1));
  for (std::size_t i = 44; i < depth; ++i) EXPECT_EQ(acs_v1_scope_end(), ACS_OK);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(invalid, 44u);
  EXPECT_TRUE(is_everything(deepest));
  EXPECT_EQ(recorded.access.writes, std::vector<byte_range>{ra});
  EXPECT_EQ(deepest.group, recorded.group);
  EXPECT_EQ(occurrences(err, "scopes nested more than 256 deep"), 1u) << err;
  EXPECT_FALSE(take(function_handle(1)).declared);
}

TEST(state_machine_threads, a_thread_that_exits_with_open_annotations_warns_and_frees_them) {
  annotations::override_options({.enabled = true, .infer_alloc = true, .check = false});
  annotations::forget_reports();
  ::testing::internal::CaptureStderr();
  std::thread([] {
    std::vector<acs_range> ranges(100, range(a, 0x100));  // heap-held state: a leak would show under ASan
    EXPECT_EQ(acs_v1_scope_begin(ranges.data(), ranges.size(), nullptr, 0, ACS_EXACT), ACS_OK);
    EXPECT_EQ(acs_v1_scope_begin(ranges.data(), ranges.size(), nullptr, 0, ACS_EXACT), ACS_OK);
    EXPECT_EQ(acs_v1_next_launch(ranges.data(), ranges.size(), nullptr, 0, ACS_EXACT), ACS_OK);
  }).join();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(occurrences(err, "a thread exited inside 2 acs scope(s)"), 1u) << err;
  EXPECT_EQ(occurrences(err, "a thread exited with an acs_next_launch declaration that no launch used"), 1u)
      << err;
  annotations::override_options({});
}

// A thread_local destroyed after the annotation state (constructed before it)
// that still annotates and launches: it must see no state, not a destroyed one.
std::atomic<int> late_status{-1};
std::atomic<int> late_declared{-1};
struct late_user {
  ~late_user() {
    const acs_range out[] = {range(a, 0x100)};
    late_status = acs_v1_next_launch(nullptr, 0, out, 1, ACS_EXACT);
    declared::launch_footprint f;
    fake_view view;
    annotations::take(function_handle(1), nullptr, nullptr, f, view);
    late_declared = f.declared ? 1 : 0;
  }
};
thread_local late_user late;

TEST(state_machine_threads, annotations_after_the_thread_state_is_destroyed_are_ignored_safely) {
  annotations::override_options({.enabled = true, .infer_alloc = true, .check = false});
  std::thread([] {
    (void)&late;  // constructed first, so destroyed last
    EXPECT_EQ(acs_v1_barrier(), ACS_OK);
  }).join();
  EXPECT_EQ(late_status.load(), ACS_IGNORED);
  EXPECT_EQ(late_declared.load(), 0);
  annotations::override_options({});
}

}  // namespace
}  // namespace acs::testing

namespace acs::testing {
namespace {

// Threads annotate and launch at once while rules come and go: each thread
// sees only its own declarations and scopes (run under TSan in CI).
TEST(state_machine_threads, concurrent_threads_see_only_their_own_declarations) {
  annotations::override_options({.enabled = true, .infer_alloc = true, .check = false});
  constexpr int threads = 6, rounds = 2000;
  std::atomic<bool> stop{false};
  std::atomic<int> mismatches{0};
  std::thread registrar([&] {
    const auto rule = [](acs_footprint* fp, void* const*, void*) {
      acs_v1_footprint_write(fp, ptr(0x1000'0000), 8);
    };
    while (!stop.load()) {
      acs_v1_register_kernel(function_handle(90), rule, nullptr, ACS_EXACT);
      acs_v1_register_kernel(function_handle(90), nullptr, nullptr, 0);
    }
  });
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      fake_view view;
      const address mine = 0x7f80'0000'0000ULL + 0x1'0000ULL * static_cast<address>(t);
      const acs_range own[] = {range(mine, 64)};
      const acs_range scoped[] = {range(mine + 0x100, 64)};
      void* no_params[] = {nullptr};
      for (int i = 0; i < rounds; ++i) {
        declared::launch_footprint f;
        acs_v1_scope_begin(nullptr, 0, scoped, 1, ACS_EXACT);
        acs_v1_next_launch(nullptr, 0, own, 1, ACS_EXACT);
        annotations::take(function_handle(90), no_params, nullptr, f, view);
        if (f.access.writes != std::vector<byte_range>{{mine, mine + 63}} || f.group == 0) ++mismatches;
        annotations::take(function_handle(90), no_params, nullptr, f, view);
        if (f.access.writes != std::vector<byte_range>{{mine + 0x100, mine + 0x13f}}) ++mismatches;
        acs_v1_scope_end();
        annotations::take(function_handle(90), no_params, nullptr, f, view);  // the rule, or nothing
        if (f.declared && f.access.writes != std::vector<byte_range>{{0x1000'0000, 0x1000'0007}})
          ++mismatches;
        if (f.group != 0) ++mismatches;
      }
    });
  for (auto& w : workers) w.join();
  stop = true;
  registrar.join();
  EXPECT_EQ(mismatches.load(), 0);
  acs_v1_register_kernel(function_handle(90), nullptr, nullptr, 0);
  annotations::override_options({});
}

}  // namespace
}  // namespace acs::testing
