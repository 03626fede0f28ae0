// include/acs/acs.h's wrappers and C++ helpers, in a process where the
// implementation is present: this executable exports acs_v1_* (ENABLE_EXPORTS),
// so the header's dlsym finds them exactly as it finds libacs.so's.
#include <limits>
#include <span>

#include "support.hpp"

namespace acs::testing {
namespace {

using header = annotation_test;

constexpr address x = 0x7f50'0000'0000ULL;
constexpr address y = 0x7f60'0000'0000ULL;

TEST_F(header, the_wrappers_find_the_implementation) {
  EXPECT_EQ(acs_detail_loaded(), 1);
  EXPECT_EQ(acs_active(), acs_v1_active());
  const acs_range out[] = {range(x, 32)};
  EXPECT_EQ(acs_next_launch(nullptr, 0, out, 1, ACS_EXACT), ACS_OK);
  EXPECT_EQ(take(function_handle(40)).access.writes, (std::vector<byte_range>{{x, x + 31}}));
  EXPECT_EQ(acs_barrier(), ACS_OK);
  EXPECT_TRUE(take(function_handle(40)).barrier_before);
}

TEST_F(header, typed_next_launch_declares_elements_and_bytes) {
  const auto* in = reinterpret_cast<const double*>(x);
  auto* out = reinterpret_cast<float*>(y);
  EXPECT_EQ(acs::next_launch(acs::reads(acs::elements(in, 8), acs::bytes(ptr(y + 4096), 3)),
                             acs::writes(acs::elements(out, 5)), ACS_EXACT),
            ACS_OK);
  const auto f = take(function_handle(41));
  EXPECT_EQ(f.access.reads, (std::vector<byte_range>{{x, x + 63}, {y + 4096, y + 4098}}));
  EXPECT_EQ(f.access.writes, (std::vector<byte_range>{{y, y + 19}}));
  EXPECT_TRUE(f.exact);
}

TEST_F(header, spans_and_single_sided_declarations) {
  std::span<const int> in(reinterpret_cast<const int*>(x), 4);
  EXPECT_EQ(acs::next_launch(acs::reads(in)), ACS_OK);
  const auto r = take(function_handle(42));
  EXPECT_EQ(r.access.reads, (std::vector<byte_range>{{x, x + 15}}));
  EXPECT_TRUE(r.access.writes.empty());
  EXPECT_FALSE(r.exact);
  std::span<int> out(reinterpret_cast<int*>(y), 2);
  EXPECT_EQ(acs::next_launch(acs::writes(acs::elements(out)), ACS_EXACT), ACS_OK);
  EXPECT_EQ(take(function_handle(42)).access.writes, (std::vector<byte_range>{{y, y + 7}}));
}

TEST_F(header, the_scope_guard_covers_its_block_and_closes_it) {
  const auto* in = reinterpret_cast<const float*>(x);
  declared::launch_footprint inside;
  {
    const acs::scope s(acs::reads(acs::elements(in, 4)), acs::writes(acs::bytes(ptr(y), 8)), ACS_EXACT);
    EXPECT_EQ(s.status(), ACS_OK);
    inside = take(function_handle(43));
  }
  EXPECT_TRUE(inside.declared);
  EXPECT_NE(inside.group, 0u);
  EXPECT_EQ(inside.access.writes, (std::vector<byte_range>{{y, y + 7}}));
  EXPECT_FALSE(take(function_handle(43)).declared) << "the guard must close the scope";
}

TEST_F(header, the_scope_guard_closes_a_scope_opened_with_bad_input) {
  {
    const acs::scope s(acs::writes(acs::bytes(nullptr, 8)));
    EXPECT_EQ(s.status(), ACS_INVALID);
  }
  EXPECT_EQ(annotations::this_thread()->depth(), 0u);
}

TEST_F(header, element_counts_that_overflow_saturate_and_are_clamped) {
  const auto* in = reinterpret_cast<const double*>(x);
  const acs_range r = acs::elements(in, std::numeric_limits<std::size_t>::max() / 4);
  EXPECT_EQ(r.bytes, std::numeric_limits<std::size_t>::max());
  EXPECT_EQ(acs::next_launch(acs::reads(r)), ACS_INVALID);
  EXPECT_EQ(take(function_handle(44)).access.reads, (std::vector<byte_range>{{x, address_max}}));
}

}  // namespace
}  // namespace acs::testing
