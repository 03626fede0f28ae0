// Joining kernel records to acs's launches through external correlations.
#include <gtest/gtest.h>

#include "synthetic_trace.hpp"
#include "src/trace/join.hpp"

namespace acs::trace {
namespace {

using testing::launch;
using testing::synthetic;

TEST(trace_join, a_dispatched_kernel_is_linked_to_its_launch) {
  synthetic t;
  const auto k = t.dispatched("k", launch{.id = 5, .pool = 3, .stream = 16, .vstream = 0xabc}, 10, 20);
  const trace_view v = join(t.data);
  ASSERT_NE(v.kernel_dispatch[k], no_index);
  const dispatch_entry& d = t.data.dispatches[v.kernel_dispatch[k]];
  EXPECT_EQ(launch_of(d.external), 5u);
  EXPECT_EQ(d.pool_stream, 3u);
  EXPECT_EQ(d.vstream, 0xabcu);
  EXPECT_EQ(v.kernel_external[k], external_id(1, 5));
  EXPECT_EQ(v.kernel_of_external.at(external_id(1, 5)), k);
  EXPECT_EQ(v.dispatched_without_kernel, 0u);
}

TEST(trace_join, a_kernel_acs_did_not_dispatch_stays_unlinked) {
  synthetic t;
  const auto k = t.direct("passed_through", 0, 7, 10, 20);
  const trace_view v = join(t.data);
  EXPECT_EQ(v.kernel_dispatch[k], no_index);
  EXPECT_EQ(v.kernel_external[k], 0u);
}

TEST(trace_join, launch_ids_of_different_observers_do_not_collide) {
  synthetic t;
  const auto a = t.dispatched("a", launch{.tag = 1, .id = 1, .stream = 13}, 0, 10);
  const auto b = t.dispatched("b", launch{.tag = 2, .id = 1, .device = 1, .stream = 13}, 0, 10);
  const trace_view v = join(t.data);
  EXPECT_EQ(v.kernel_dispatch[a], 0u);
  EXPECT_EQ(v.kernel_dispatch[b], 1u);
}

TEST(trace_join, a_launch_whose_kernel_record_is_missing_is_counted) {
  synthetic t;
  t.dispatched("k", launch{.id = 1, .stream = 13}, 0, 10);
  t.data.kernels.clear();  // e.g. still running at the final flush
  const trace_view v = join(t.data);
  EXPECT_EQ(v.dispatched_without_kernel, 1u);
}

TEST(trace_join, a_correlated_kernel_without_dispatch_entry_keeps_its_launch_id) {
  synthetic t;
  const auto k = t.dispatched("k", launch{.id = 9, .stream = 13}, 0, 10);
  t.data.dispatches.clear();  // the observer dropped it (over its cap)
  const trace_view v = join(t.data);
  EXPECT_EQ(v.kernel_dispatch[k], no_index);
  EXPECT_EQ(launch_of(v.kernel_external[k]), 9u);
}

TEST(trace_join, correlations_of_other_api_calls_are_harmless) {
  synthetic t;
  t.data.correlations.push_back({12345, external_id(1, 77)});  // an API call with no kernel
  const auto k = t.direct("k", 0, 7, 0, 10);
  const trace_view v = join(t.data);
  EXPECT_EQ(v.kernel_dispatch[k], no_index);
  EXPECT_EQ(v.kernel_external[k], 0u);
}

TEST(trace_join, base_is_the_earliest_record_of_any_kind) {
  synthetic t;
  t.direct("k", 0, 7, 5000, 6000);
  t.copy(copy_kind::memcpy, "memcpy HtoD", 0, 7, 3000, 3500, 64);
  t.dispatched("d", launch{.id = 1, .stream = 13, .host_ns = 2500}, 4000, 4100);
  EXPECT_EQ(join(t.data).base_ns, 2500u);
}

TEST(trace_join, names_are_demangled_for_display) {
  EXPECT_EQ(
      demangle("_Z9timed_rmwPjPKjS1_jiyPy"),
      "timed_rmw(unsigned int*, unsigned int const*, unsigned int const*, unsigned int, int, unsigned long "
      "long, unsigned long long*)");
  EXPECT_EQ(demangle("_ZN5layer6reduceILi256EfEEvPKT0_PS1_i"),
            "void layer::reduce<256, float>(float const*, float*, int)");
  EXPECT_EQ(demangle("plain_c_kernel"), "plain_c_kernel");
  EXPECT_EQ(demangle("_Znot a mangled name"), "_Znot a mangled name");
}

}  // namespace
}  // namespace acs::trace

namespace acs::trace {
namespace {

// Launches made inside a statically linked runtime carry no correlation: the
// kernels on each pool stream are matched to its dispatches in issue order.
TEST(trace_join, without_correlations_pool_stream_order_links_kernels) {
  synthetic t;
  const auto k1 = t.dispatched("first", launch{.id = 1, .stream = 16}, 0, 10);
  const auto k2 = t.dispatched("second", launch{.id = 2, .stream = 17}, 2, 12);
  const auto k3 = t.dispatched("third", launch{.id = 3, .stream = 16}, 11, 20);
  const auto other = t.direct("not_ours", 0, 7, 0, 5);
  for (dispatch_entry& d : t.data.dispatches) d.stream_id = 0;
  t.data.dispatches[0].stream_id = 16;
  t.data.dispatches[1].stream_id = 17;
  t.data.dispatches[2].stream_id = 16;
  t.data.correlations.clear();
  const trace_view v = join(t.data);
  EXPECT_EQ(v.kernel_dispatch[k1], 0u);
  EXPECT_EQ(v.kernel_dispatch[k2], 1u);
  EXPECT_EQ(v.kernel_dispatch[k3], 2u);
  EXPECT_EQ(v.kernel_dispatch[other], no_index);
  EXPECT_EQ(v.dispatched_without_kernel, 0u);
}

TEST(trace_join, without_correlations_or_stream_ids_nothing_is_linked) {
  synthetic t;
  const auto k = t.dispatched("k", launch{.id = 1, .stream = 16}, 0, 10);
  t.data.correlations.clear();
  const trace_view v = join(t.data);
  EXPECT_EQ(v.kernel_dispatch[k], no_index);
  EXPECT_EQ(v.dispatched_without_kernel, 1u);
}

}  // namespace
}  // namespace acs::trace
