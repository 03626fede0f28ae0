// Measured figures (achieved concurrency, busy fraction, top kernels) on
// synthetic intervals whose answers are worked out by hand.
#include <gtest/gtest.h>

#include "synthetic_trace.hpp"
#include "src/trace/join.hpp"
#include "src/trace/measure.hpp"

namespace acs::trace {
namespace {

using testing::launch;
using testing::synthetic;

TEST(trace_sweep, no_intervals_give_zeros) {
  const occupancy o = sweep({});
  EXPECT_EQ(o.kernel_ns, 0u);
  EXPECT_EQ(o.busy_ns, 0u);
  EXPECT_EQ(o.peak, 0u);
}

TEST(trace_sweep, identical_intervals_run_two_at_once) {
  const occupancy o = sweep({{0, 100}, {0, 100}});
  EXPECT_EQ(o.kernel_ns, 200u);
  EXPECT_EQ(o.busy_ns, 100u);
  EXPECT_EQ(o.peak, 2u);
}

TEST(trace_sweep, touching_intervals_do_not_overlap) {
  const occupancy o = sweep({{100, 200}, {0, 100}});
  EXPECT_EQ(o.kernel_ns, 200u);
  EXPECT_EQ(o.busy_ns, 200u);
  EXPECT_EQ(o.peak, 1u);
}

TEST(trace_sweep, partial_overlap_counts_the_union_once) {
  const occupancy o = sweep({{0, 100}, {50, 150}});
  EXPECT_EQ(o.kernel_ns, 200u);
  EXPECT_EQ(o.busy_ns, 150u);
  EXPECT_EQ(o.peak, 2u);
}

TEST(trace_sweep, idle_gaps_are_not_busy) {
  const occupancy o = sweep({{0, 100}, {300, 400}});
  EXPECT_EQ(o.busy_ns, 200u);
  EXPECT_EQ(o.peak, 1u);
}

TEST(trace_sweep, nested_intervals_peak_at_their_depth) {
  const occupancy o = sweep({{0, 400}, {100, 200}, {150, 180}});
  EXPECT_EQ(o.kernel_ns, 400u + 100u + 30u);
  EXPECT_EQ(o.busy_ns, 400u);
  EXPECT_EQ(o.peak, 3u);
}

TEST(trace_sweep, empty_and_inverted_intervals_are_ignored) {
  const occupancy o = sweep({{50, 50}, {90, 10}, {0, 10}});
  EXPECT_EQ(o.kernel_ns, 10u);
  EXPECT_EQ(o.busy_ns, 10u);
  EXPECT_EQ(o.peak, 1u);
}

TEST(trace_measure, concurrency_is_kernel_time_over_busy_time_and_span_includes_copies) {
  synthetic t;
  t.direct("a", 0, 7, 100, 200);
  t.direct("b", 0, 8, 150, 250);
  t.copy(copy_kind::memcpy, "memcpy HtoD", 0, 7, 0, 50, 4096);
  t.copy(copy_kind::memset, "memset", 0, 7, 300, 400, 4096);
  const measured m = measure(join(t.data));
  EXPECT_EQ(m.kernels, 2u);
  EXPECT_EQ(m.kernel_ns, 200u);
  EXPECT_EQ(m.busy_ns, 150u);
  EXPECT_EQ(m.span_ns, 400u);
  EXPECT_DOUBLE_EQ(m.achieved_concurrency, 200.0 / 150.0);
  EXPECT_DOUBLE_EQ(m.busy_fraction, 150.0 / 400.0);
  EXPECT_EQ(m.peak_concurrency, 2u);
  EXPECT_EQ(m.devices, 1u);
}

TEST(trace_measure, a_serial_program_has_concurrency_one_whatever_its_gaps) {
  synthetic t;
  for (std::uint64_t i = 0; i < 10; ++i) t.direct("k", 0, 7, i * 1000, i * 1000 + 300);
  const measured m = measure(join(t.data));
  EXPECT_DOUBLE_EQ(m.achieved_concurrency, 1.0);
  EXPECT_DOUBLE_EQ(m.busy_fraction, 3000.0 / 9300.0);
  EXPECT_EQ(m.peak_concurrency, 1u);
}

TEST(trace_measure, devices_do_not_add_to_each_others_concurrency) {
  synthetic t;
  t.direct("a", 0, 7, 0, 100);
  t.direct("b", 1, 7, 0, 100);
  const measured m = measure(join(t.data));
  EXPECT_EQ(m.devices, 2u);
  EXPECT_DOUBLE_EQ(m.achieved_concurrency, 1.0);
  EXPECT_EQ(m.peak_concurrency, 1u);
  EXPECT_DOUBLE_EQ(m.busy_fraction, 1.0);
}

TEST(trace_measure, kernels_without_timestamps_are_left_out) {
  synthetic t;
  t.direct("a", 0, 7, 0, 100);
  t.direct("unfinished", 0, 8, 50, 0);
  const measured m = measure(join(t.data));
  EXPECT_EQ(m.kernels, 1u);
  EXPECT_DOUBLE_EQ(m.achieved_concurrency, 1.0);
}

TEST(trace_measure, nothing_recorded_gives_zero_figures) {
  synthetic t;
  t.copy(copy_kind::memcpy, "memcpy HtoD", 0, 7, 0, 50, 16);
  const measured m = measure(join(t.data));
  EXPECT_EQ(m.kernels, 0u);
  EXPECT_EQ(m.achieved_concurrency, 0.0);
  EXPECT_EQ(m.busy_fraction, 0.0);
  EXPECT_TRUE(m.top.empty());
}

TEST(trace_measure, top_kernels_are_sorted_by_time_and_carry_their_dependency_waits) {
  synthetic t;
  // "_Z4stepPf" twice through acs: the second waited for two kernels.
  t.dispatched("_Z4stepPf", launch{.id = 1, .pool = 0, .stream = 13}, 0, 100);
  t.dispatched("_Z4stepPf", launch{.id = 2, .pool = 1, .stream = 14, .waits = {1, 3}}, 100, 250);
  t.dispatched("small", launch{.id = 3, .pool = 2, .stream = 15}, 0, 10);
  t.direct("library_gemm", 0, 7, 300, 700);  // passed through: no waits known
  const measured m = measure(join(t.data), 2);
  ASSERT_EQ(m.top.size(), 2u);
  EXPECT_EQ(m.top[0].name, "library_gemm");
  EXPECT_EQ(m.top[0].total_ns, 400u);
  EXPECT_EQ(m.top[0].dispatched, 0u);
  EXPECT_EQ(m.top[0].dependency_waits, 0u);
  EXPECT_EQ(m.top[1].name, "step(float*)");  // demangled
  EXPECT_EQ(m.top[1].launches, 2u);
  EXPECT_EQ(m.top[1].total_ns, 250u);
  EXPECT_EQ(m.top[1].dispatched, 2u);
  EXPECT_EQ(m.top[1].dependency_waits, 2u);
  EXPECT_EQ(m.top[1].waiting_launches, 1u);
  EXPECT_EQ(m.dispatched, 3u);
}

TEST(trace_measure, machine_fields_name_every_figure) {
  EXPECT_EQ(machine_fields(nullptr), " measured=0");
  measured m;
  m.achieved_concurrency = 4.0 / 3.0;
  m.busy_fraction = 0.375;
  m.peak_concurrency = 2;
  m.kernels = 2;
  m.span_ns = 400;
  EXPECT_EQ(
      machine_fields(&m),
      " measured=1 achieved_concurrency=1.333 busy_fraction=0.375 peak_concurrency=2 measured_kernels=2 "
      "measured_span_us=0.4");
}

TEST(trace_measure, human_lines_list_the_top_kernels) {
  synthetic t;
  t.dispatched("_Z4stepPf", launch{.id = 1, .stream = 13}, 0, 100);
  t.dispatched("_Z4stepPf", launch{.id = 2, .pool = 1, .stream = 14, .waits = {1}}, 100, 200);
  const std::string text = human_lines(measure(join(t.data)));
  EXPECT_NE(text.find("achieved concurrency 1.00"), std::string::npos) << text;
  EXPECT_NE(text.find("2, 2, 1  step(float*)"), std::string::npos) << text;
}

}  // namespace
}  // namespace acs::trace
