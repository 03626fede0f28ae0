// Per-kernel rules: registered once, evaluated from each launch's arguments.
#include <stdexcept>
#include <thread>

#include "support.hpp"

namespace acs::testing {
namespace {

using rules = annotation_test;

constexpr address in_base = 0x7f10'0000'0000ULL;
constexpr address out_base = 0x7f20'0000'0000ULL;

// A rule for kernels (float* out, const float* in, uint64 n): reads n floats
// of `in`, writes n floats of `out`.
void copy_rule(acs_footprint* fp, void* const* args, void* user) {
  const auto out = *static_cast<const std::uint64_t*>(args[0]);
  const auto in = *static_cast<const std::uint64_t*>(args[1]);
  const auto n = *static_cast<const std::uint64_t*>(args[2]);
  acs_v1_footprint_read(fp, ptr(in), n * sizeof(float));
  acs_v1_footprint_write(fp, ptr(out), n * sizeof(float));
  if (user != nullptr) ++*static_cast<int*>(user);
}

struct registered {
  explicit registered(CUfunction f, acs_kernel_rule rule = copy_rule, void* user = nullptr,
                      unsigned flags = ACS_EXACT)
      : f_(f) {
    EXPECT_EQ(acs_v1_register_kernel(f, rule, user, flags), ACS_OK);
  }
  ~registered() { EXPECT_EQ(acs_v1_register_kernel(f_, nullptr, nullptr, 0), ACS_OK); }
  CUfunction f_;
};

TEST_F(rules, a_rule_computes_the_footprint_from_the_launch_arguments) {
  int calls = 0;
  const registered r(function_handle(10), copy_rule, &calls);
  launch_args args({out_base + 64, in_base, 100});
  const auto f = take(function_handle(10), args.get());
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(f.declared);
  EXPECT_TRUE(f.exact);
  EXPECT_EQ(f.group, 0u);
  EXPECT_EQ(f.access.reads, (std::vector<byte_range>{{in_base, in_base + 399}}));
  EXPECT_EQ(f.access.writes, (std::vector<byte_range>{{out_base + 64, out_base + 64 + 399}}));
  EXPECT_FALSE(take(function_handle(11), args.get()).declared) << "another kernel has no rule";
  EXPECT_EQ(calls, 1);
}

TEST_F(rules, per_launch_and_scope_declarations_take_precedence_over_the_rule) {
  int calls = 0;
  const registered r(function_handle(10), copy_rule, &calls);
  launch_args args({out_base, in_base, 4});
  const acs_range decl[] = {range(in_base + 0x1000, 8)};
  ASSERT_EQ(acs_v1_next_launch(nullptr, 0, decl, 1, ACS_EXACT), ACS_OK);
  const auto per_launch = take(function_handle(10), args.get());
  ASSERT_EQ(acs_v1_scope_begin(decl, 1, nullptr, 0, ACS_EXACT), ACS_OK);
  const auto scoped = take(function_handle(10), args.get());
  ASSERT_EQ(acs_v1_scope_end(), ACS_OK);
  const auto by_rule = take(function_handle(10), args.get());
  EXPECT_EQ(per_launch.access.writes, (std::vector<byte_range>{{in_base + 0x1000, in_base + 0x1007}}));
  EXPECT_EQ(scoped.access.reads, (std::vector<byte_range>{{in_base + 0x1000, in_base + 0x1007}}));
  EXPECT_EQ(calls, 1) << "only the launch outside both ran the rule";
  EXPECT_EQ(by_rule.access.writes, (std::vector<byte_range>{{out_base, out_base + 15}}));
}

TEST_F(rules, a_rule_can_be_replaced_and_removed) {
  const CUfunction f = function_handle(12);
  launch_args args({out_base, in_base, 4});
  EXPECT_EQ(acs_v1_register_kernel(f, copy_rule, nullptr, ACS_DEFAULT), ACS_OK);
  EXPECT_FALSE(take(f, args.get()).exact);
  EXPECT_EQ(acs_v1_register_kernel(f, copy_rule, nullptr, ACS_EXACT), ACS_OK);
  EXPECT_TRUE(take(f, args.get()).exact);
  EXPECT_EQ(acs_v1_register_kernel(f, nullptr, nullptr, 0), ACS_OK);
  EXPECT_FALSE(take(f, args.get()).declared);
}

TEST_F(rules, rules_are_shared_by_all_threads) {
  const registered r(function_handle(13));
  bool declared_there = false;
  std::thread([&] {
    launch_args args({out_base, in_base, 4});
    declared::launch_footprint f;
    annotations::take(function_handle(13), args.get(), nullptr, f, view);
    declared_there = f.declared;
  }).join();
  EXPECT_TRUE(declared_there);
}

TEST_F(rules, a_launch_without_a_parameter_array_falls_back_to_inference_with_one_warning) {
  view.names[function_handle(14)] = "no_params_kernel";
  const registered r(function_handle(14));
  ::testing::internal::CaptureStderr();
  const auto f = take(function_handle(14), nullptr);
  const auto g = take(function_handle(14), nullptr);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(f.declared);
  EXPECT_FALSE(g.declared);
  EXPECT_EQ(occurrences(err, "kernel no_params_kernel cannot run: the launch passed no parameter array"), 1u)
      << err;
}

void throwing_rule(acs_footprint* fp, void* const* args, void*) {
  acs_v1_footprint_write(fp, ptr(*static_cast<const std::uint64_t*>(args[0])), 4);
  throw std::runtime_error("rule failed");
}

TEST_F(rules, a_rule_that_throws_makes_the_launch_touch_everything) {
  const registered r(function_handle(15), throwing_rule);
  launch_args args({out_base, in_base, 4});
  ::testing::internal::CaptureStderr();
  const auto f = take(function_handle(15), args.get());
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(f.declared);
  EXPECT_EQ(f.access.writes, std::vector<byte_range>{whole_address_space});
  EXPECT_TRUE(f.access.reads.empty());
  EXPECT_EQ(occurrences(err, "threw an exception"), 1u) << err;
}

void null_rule(acs_footprint* fp, void* const*, void*) { acs_v1_footprint_read(fp, nullptr, 16); }

TEST_F(rules, bad_ranges_in_a_rule_make_the_launch_touch_everything) {
  const registered r(function_handle(16), null_rule);
  launch_args args({out_base, in_base, 4});
  const auto f = take(function_handle(16), args.get());
  EXPECT_EQ(f.access.writes, std::vector<byte_range>{whole_address_space});
}

acs_footprint* kept_footprint = nullptr;
void keeping_rule(acs_footprint* fp, void* const* args, void* user) {
  kept_footprint = fp;
  copy_rule(fp, args, user);
}

TEST_F(rules, footprint_calls_outside_a_rule_are_ignored_with_one_warning) {
  const registered r(function_handle(17), keeping_rule);
  launch_args args({out_base, in_base, 4});
  (void)take(function_handle(17), args.get());
  ::testing::internal::CaptureStderr();
  acs_v1_footprint_write(kept_footprint, ptr(out_base), 4);  // dangling: must not be touched
  acs_v1_footprint_read(nullptr, ptr(out_base), 4);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(occurrences(err, "called outside a kernel rule"), 1u) << err;
  EXPECT_EQ(take(function_handle(17), args.get()).access.writes,
            (std::vector<byte_range>{{out_base, out_base + 15}}));
}

TEST_F(rules, registering_a_null_handle_is_rejected) {
  EXPECT_EQ(acs_v1_register_kernel(nullptr, copy_rule, nullptr, ACS_EXACT), ACS_INVALID);
}

TEST_F(rules, registration_is_ignored_when_acs_is_disabled) {
  annotations::override_options({.enabled = false, .infer_alloc = true, .check = false});
  EXPECT_EQ(acs_v1_register_kernel(function_handle(18), copy_rule, nullptr, ACS_EXACT), ACS_IGNORED);
  annotations::override_options({.enabled = true, .infer_alloc = true, .check = false});
  launch_args args({out_base, in_base, 4});
  EXPECT_FALSE(take(function_handle(18), args.get()).declared);
}

// The C++ header's typed rules: the trampoline unpacks the kernel's own argument types.
void typed(acs::footprint& fp, float* out, const float* in, int n, double) {
  fp.reads(in, static_cast<std::size_t>(n));
  fp.writes(out, static_cast<std::size_t>(n));
}

TEST_F(rules, a_typed_cxx_rule_receives_the_kernel_arguments_by_type) {
  using trampoline_args = acs::detail::identity<acs::typed_rule<float*, const float*, int, double>>;
  const trampoline_args::type rule = typed;
  const CUfunction f = function_handle(19);
  ASSERT_EQ(acs_v1_register_kernel(f, &acs::detail::typed_trampoline<float*, const float*, int, double>,
                                   reinterpret_cast<void*>(rule), ACS_EXACT),
            ACS_OK);
  float* out = reinterpret_cast<float*>(out_base);
  const float* in = reinterpret_cast<const float*>(in_base);
  int n = 10;
  double unused = 1.5;
  void* params[] = {&out, &in, &n, &unused};
  const auto fp = take(f, params);
  EXPECT_EQ(fp.access.reads, (std::vector<byte_range>{{in_base, in_base + 39}}));
  EXPECT_EQ(fp.access.writes, (std::vector<byte_range>{{out_base, out_base + 39}}));
  EXPECT_EQ(acs_v1_register_kernel(f, nullptr, nullptr, 0), ACS_OK);
}

}  // namespace
}  // namespace acs::testing
