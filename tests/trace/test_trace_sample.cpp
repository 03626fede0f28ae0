// The committed sample trace (tests/data/trace_small.json) is what the plot
// test draws: it must be valid JSON with the structure acs writes. It holds
// equally for a trace recorded on the GPU machine that replaces it.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "json_reader.hpp"

#ifndef ACS_SAMPLE_TRACE
#error "ACS_SAMPLE_TRACE must name tests/data/trace_small.json"
#endif

namespace {

using acs::test_json::value;

value load() {
  std::ifstream in(ACS_SAMPLE_TRACE);
  std::stringstream text;
  text << in.rdbuf();
  std::string error;
  auto doc = acs::test_json::parse(text.str(), &error);
  EXPECT_TRUE(doc.has_value()) << ACS_SAMPLE_TRACE << ": " << error;
  return doc ? std::move(*doc) : value{};
}

TEST(trace_sample, is_a_valid_trace_with_dispatched_kernels_on_pool_lanes) {
  const value doc = load();
  ASSERT_TRUE(doc["traceEvents"].is_array());
  std::map<std::pair<double, double>, std::string> lanes;
  std::size_t dispatched = 0, copies = 0, flows = 0, counters = 0;
  std::set<std::string> vstreams;
  for (const value& e : doc["traceEvents"].items) {
    const std::string ph = e.str("ph");
    if (ph == "M" && e.str("name") == "thread_name")
      lanes[{e.num("pid"), e.num("tid")}] = e["args"].str("name");
    if (ph == "X" && e.str("cat") == "kernel") {
      EXPECT_GE(e.num("ts", -1), 0.0);
      EXPECT_GT(e.num("dur"), 0.0);
      if (e["args"].str("acs") == "dispatched") {
        ++dispatched;
        vstreams.insert(e["args"].str("vstream"));
        const std::string& lane = lanes[{e.num("pid"), e.num("tid")}];
        EXPECT_EQ(lane.rfind("pool stream ", 0), 0u) << e.str("name") << " on " << lane;
      }
    }
    if (ph == "X" && (e.str("cat") == "memcpy" || e.str("cat") == "memset")) ++copies;
    flows += ph == "s";
    counters += ph == "C";
  }
  EXPECT_GE(dispatched, 2u);
  EXPECT_GE(vstreams.size(), 1u);
  EXPECT_GE(copies, 1u);
  EXPECT_GE(flows, 1u);
  EXPECT_GE(counters, 1u);
}

}  // namespace
