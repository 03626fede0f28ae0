// CUPTI activity records (built by hand with CUPTI's own structs) converted
// into the tracer's records, and the collector that stores them.
#include <gtest/gtest.h>

#include <cstring>

#include "src/trace/collector.hpp"
#include "src/trace/cupti_records.hpp"

namespace acs::trace {
namespace {

const CUpti_Activity& as_activity(const void* record) { return *static_cast<const CUpti_Activity*>(record); }

CUpti_ActivityKernel10 kernel(CUpti_ActivityKind kind, std::uint64_t start, std::uint64_t end,
                              const char* name) {
  CUpti_ActivityKernel10 k;
  std::memset(&k, 0, sizeof k);
  k.kind = kind;
  k.start = start;
  k.end = end;
  k.deviceId = 2;
  k.streamId = 31;
  k.correlationId = 4242;
  k.name = name;
  return k;
}

TEST(trace_cupti_records, a_concurrent_kernel_record_becomes_a_kernel) {
  const auto k = kernel(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 1000, 5000, "_Z1kv");
  record_batch b;
  EXPECT_TRUE(convert(as_activity(&k), b));
  ASSERT_EQ(b.kernels.size(), 1u);
  EXPECT_EQ(b.kernels[0].record.start_ns, 1000u);
  EXPECT_EQ(b.kernels[0].record.end_ns, 5000u);
  EXPECT_EQ(b.kernels[0].record.device, 2u);
  EXPECT_EQ(b.kernels[0].record.stream, 31u);
  EXPECT_EQ(b.kernels[0].record.correlation, 4242u);
  EXPECT_STREQ(b.kernels[0].name, "_Z1kv");
}

TEST(trace_cupti_records, a_kernel_without_timestamps_is_counted_incomplete) {
  const auto k = kernel(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 1000, 0, "_Z1kv");
  const auto z = kernel(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 0, 0, "_Z1kv");
  record_batch b;
  EXPECT_FALSE(convert(as_activity(&k), b));
  EXPECT_FALSE(convert(as_activity(&z), b));
  EXPECT_TRUE(b.kernels.empty());
  EXPECT_EQ(b.incomplete, 2u);
}

TEST(trace_cupti_records, memcpy_and_memset_records_become_copies) {
  CUpti_ActivityMemcpy6 c;
  std::memset(&c, 0, sizeof c);
  c.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  c.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  c.bytes = 4096;
  c.start = 10;
  c.end = 20;
  c.deviceId = 1;
  c.streamId = 7;
  c.correlationId = 9;
  CUpti_ActivityMemset4 s;
  std::memset(&s, 0, sizeof s);
  s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  s.bytes = 128;
  s.start = 30;
  s.end = 31;
  s.streamId = 8;
  record_batch b;
  EXPECT_TRUE(convert(as_activity(&c), b));
  EXPECT_TRUE(convert(as_activity(&s), b));
  ASSERT_EQ(b.copies.size(), 2u);
  EXPECT_STREQ(b.copies[0].name, "memcpy DtoH");
  EXPECT_EQ(b.copies[0].record.kind, copy_kind::memcpy);
  EXPECT_EQ(b.copies[0].record.bytes, 4096u);
  EXPECT_EQ(b.copies[0].record.device, 1u);
  EXPECT_EQ(b.copies[0].record.stream, 7u);
  EXPECT_STREQ(b.copies[1].name, "memset");
  EXPECT_EQ(b.copies[1].record.kind, copy_kind::memset);
  EXPECT_EQ(b.copies[1].record.stream, 8u);
}

TEST(trace_cupti_records, only_acs_external_correlations_are_kept) {
  CUpti_ActivityExternalCorrelation ours{}, kineto{};
  ours.kind = kineto.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  ours.externalKind = acs_correlation_kind;
  ours.externalId = 77;
  ours.correlationId = 5;
  kineto.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
  kineto.externalId = 88;
  kineto.correlationId = 6;
  record_batch b;
  EXPECT_TRUE(convert(as_activity(&ours), b));
  EXPECT_FALSE(convert(as_activity(&kineto), b));
  ASSERT_EQ(b.correlations.size(), 1u);
  EXPECT_EQ(b.correlations[0].correlation, 5u);
  EXPECT_EQ(b.correlations[0].external, 77u);
}

TEST(trace_cupti_records, api_records_are_skipped) {
  CUpti_ActivityAPI api{};
  api.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  api.correlationId = 5;
  record_batch b;
  EXPECT_FALSE(convert(as_activity(&api), b));
  EXPECT_TRUE(b.kernels.empty() && b.copies.empty() && b.correlations.empty());
  EXPECT_EQ(b.incomplete, 0u);
}

TEST(trace_collector, names_are_interned_once_and_a_reused_pointer_is_rechecked) {
  collector store;
  char name[16] = "_Z1av";
  record_batch b;
  b.kernels.push_back({{1, 2, 0, 0, 1, 0}, name});
  b.kernels.push_back({{3, 4, 0, 0, 2, 0}, name});
  store.append(b);
  std::strcpy(name, "_Z1bv");  // the same pointer, another kernel (module reloaded)
  b.clear();
  b.kernels.push_back({{5, 6, 0, 0, 3, 0}, name});
  b.kernels.push_back({{7, 8, 0, 0, 4, 0}, nullptr});
  store.append(b);
  snapshot s;
  store.copy_into(s);
  ASSERT_EQ(s.kernels.size(), 4u);
  EXPECT_EQ(s.kernels[0].name, s.kernels[1].name);
  EXPECT_EQ(s.names[s.kernels[0].name], "_Z1av");
  EXPECT_EQ(s.names[s.kernels[2].name], "_Z1bv");
  EXPECT_EQ(s.names[s.kernels[3].name], "(unknown)");
}

TEST(trace_collector, records_past_the_limits_are_dropped_and_counted) {
  collector store({2, 1, 1});
  record_batch b;
  for (int i = 0; i < 3; ++i) b.kernels.push_back({{1, 2, 0, 0, 1, 0}, "k"});
  for (int i = 0; i < 2; ++i) b.copies.push_back({{1, 2, 8, 0, 0, 1, 0, copy_kind::memset}, "memset"});
  b.correlations.push_back({1, 1});
  b.correlations.push_back({2, 2});
  b.dropped = 5;  // CUPTI's own
  b.incomplete = 1;
  store.append(b);
  store.add_dropped(10);
  snapshot s;
  store.copy_into(s);
  EXPECT_EQ(s.kernels.size(), 2u);
  EXPECT_EQ(s.copies.size(), 1u);
  EXPECT_EQ(s.correlations.size(), 1u);
  EXPECT_EQ(s.dropped, 1u + 1u + 1u + 5u + 10u);
  EXPECT_EQ(s.incomplete, 1u);
}

}  // namespace
}  // namespace acs::trace
