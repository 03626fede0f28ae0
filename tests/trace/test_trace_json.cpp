// The Chrome-trace JSON: valid (read back with a strict parser), escaped, and
// holding every kernel, copy, lane, dependency and counter it should.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "json_reader.hpp"
#include "synthetic_trace.hpp"
#include "src/trace/json.hpp"

namespace acs::trace {
namespace {

using test_json::value;
using testing::launch;
using testing::synthetic;

std::string quoted(std::string_view text) {
  std::string out;
  append_json_string(out, text);
  return out;
}

std::string round_trip(std::string_view text) {
  std::string error;
  const auto v = test_json::parse(quoted(text), &error);
  EXPECT_TRUE(v.has_value()) << error << " in " << quoted(text);
  return v ? v->text : std::string();
}

TEST(trace_json_string, quotes_backslashes_and_control_characters_are_escaped) {
  EXPECT_EQ(quoted("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(quoted("line\nnext\ttab\r\b\f"), R"("line\nnext\ttab\r\b\f")");
  EXPECT_EQ(quoted(std::string_view("\x01\x1f", 2)), R"("\u0001\u001f")");
  EXPECT_EQ(quoted(std::string_view("nul\0in", 6)), R"("nul\u0000in")");
  EXPECT_EQ(round_trip("void f<\"x\">(char const*, \\n)"), "void f<\"x\">(char const*, \\n)");
}

TEST(trace_json_string, valid_utf8_is_kept_and_invalid_bytes_are_replaced) {
  EXPECT_EQ(round_trip("µs \xe2\x86\x92 \xf0\x9f\x9a\x80"), "µs \xe2\x86\x92 \xf0\x9f\x9a\x80");
  EXPECT_EQ(quoted("a\xff"
                   "b"),
            R"("a\ufffdb")");
  EXPECT_EQ(quoted("\xc3"), R"("\ufffd")");                      // truncated sequence
  EXPECT_EQ(quoted("\xed\xa0\x80"), R"("\ufffd\ufffd\ufffd")");  // a UTF-16 surrogate
  EXPECT_EQ(quoted("\xc0\xaf"), R"("\ufffd\ufffd")");            // overlong
  EXPECT_EQ(round_trip("\xe0\x80\x80 ok"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd ok");
}

TEST(trace_json_time, microseconds_have_nanosecond_decimals) {
  const auto us = [](std::uint64_t ns) {
    std::string s;
    append_us(s, ns);
    return s;
  };
  EXPECT_EQ(us(0), "0.000");
  EXPECT_EQ(us(1), "0.001");
  EXPECT_EQ(us(999), "0.999");
  EXPECT_EQ(us(1234567), "1234.567");
  EXPECT_EQ(us(18446744073709551615ull), "18446744073709551.615");
}

// Two dispatched kernels on pool streams 0 and 1, the second depending on the
// first, a kernel passed through on the application's stream 7, a memcpy and
// a memset; all times offset by 1 s to show they are made relative.
struct small_trace {
  small_trace() {
    constexpr std::uint64_t t0 = 1'000'000'000;
    t.copy(copy_kind::memcpy, "memcpy HtoD", 0, 7, t0 + 0, t0 + 2000, 1 << 20);
    t.copy(copy_kind::memset, "memset", 0, 7, t0 + 2000, t0 + 2500, 4096);
    t.dispatched(
        "_Z8producerPf",
        launch{.id = 1, .pool = 0, .stream = 13, .vstream = 0x55aa, .window = 1, .host_ns = t0 + 2600},
        t0 + 3000, t0 + 10000);
    t.dispatched("_Z8consumerPKfPf",
                 launch{.id = 2,
                        .pool = 1,
                        .stream = 14,
                        .vstream = 0x55aa,
                        .waits = {1},
                        .window = 2,
                        .host_ns = t0 + 2700},
                 t0 + 10500, t0 + 12000);
    t.direct("weird \"name\"\n", 0, 7, t0 + 4000, t0 + 9000);
    view = join(t.data);
    figures = measure(view);
    write_chrome_trace(view, &figures, {"unit test"}, [&](std::string_view chunk) {
      text.append(chunk);
      ++chunks;
    });
    std::string error;
    auto parsed = test_json::parse(text, &error);
    EXPECT_TRUE(parsed.has_value()) << error;
    if (parsed) doc = std::move(*parsed);
  }
  std::vector<const value*> events(std::string_view ph, std::string_view cat = {}) const {
    std::vector<const value*> out;
    for (const value& e : doc["traceEvents"].items)
      if (e.str("ph") == ph && (cat.empty() || e.str("cat") == cat)) out.push_back(&e);
    return out;
  }
  const value* kernel(std::string_view name) const {
    for (const value* e : events("X", "kernel"))
      if (e->str("name") == name) return e;
    return nullptr;
  }

  synthetic t;
  trace_view view;
  measured figures;
  std::string text;
  int chunks = 0;
  value doc;
};

TEST(trace_json_file, is_valid_json_with_totals_and_figures) {
  small_trace s;
  ASSERT_TRUE(s.doc.is_object());
  EXPECT_EQ(s.doc.str("displayTimeUnit"), "ns");
  const value& other = s.doc["otherData"];
  EXPECT_EQ(other.str("generator"), "acs");
  EXPECT_EQ(other.str("source"), "unit test");
  EXPECT_EQ(other.num("kernels"), 3);
  EXPECT_EQ(other.num("dispatches"), 2);
  EXPECT_NEAR(other.num("achieved_concurrency"), s.figures.achieved_concurrency, 1e-4);
  EXPECT_NEAR(other.num("busy_fraction"), s.figures.busy_fraction, 1e-4);
  EXPECT_EQ(s.chunks, 1);
}

TEST(trace_json_file, every_kernel_is_a_complete_event_with_launch_details) {
  small_trace s;
  EXPECT_EQ(s.events("X", "kernel").size(), 3u);
  const value* producer = s.kernel("producer(float*)");
  const value* consumer = s.kernel("consumer(float const*, float*)");
  const value* direct = s.kernel("weird \"name\"\n");
  ASSERT_TRUE(producer && consumer && direct);
  EXPECT_EQ(producer->str("ts"), "");          // a number, not a string
  EXPECT_DOUBLE_EQ(producer->num("ts"), 3.0);  // relative to the memcpy at t0
  EXPECT_DOUBLE_EQ(producer->num("dur"), 7.0);
  EXPECT_EQ(producer->num("pid"), 0);
  EXPECT_EQ(producer->num("tid"), 13);
  const value& args = (*consumer)["args"];
  EXPECT_EQ(args.str("acs"), "dispatched");
  EXPECT_EQ(args.num("launch_id"), 2);
  EXPECT_EQ(args.str("vstream"), "0x55aa");
  EXPECT_EQ(args.num("pool_stream"), 1);
  ASSERT_EQ(args["waited_for"].items.size(), 1u);
  EXPECT_EQ(args["waited_for"].items[0].number, 1);
  EXPECT_EQ(args.num("window"), 2);
  EXPECT_EQ((*direct)["args"].str("acs"), "direct");
  EXPECT_EQ((*direct)["args"].find("launch_id"), nullptr);
}

TEST(trace_json_file, copies_appear_with_their_sizes) {
  small_trace s;
  const auto memcpys = s.events("X", "memcpy");
  const auto memsets = s.events("X", "memset");
  ASSERT_EQ(memcpys.size(), 1u);
  ASSERT_EQ(memsets.size(), 1u);
  EXPECT_EQ(memcpys[0]->str("name"), "memcpy HtoD");
  EXPECT_DOUBLE_EQ(memcpys[0]->num("ts"), 0.0);
  EXPECT_EQ((*memcpys[0])["args"].num("bytes"), 1 << 20);
  EXPECT_DOUBLE_EQ(memsets[0]->num("dur"), 0.5);
}

TEST(trace_json_file, lanes_are_named_after_pool_streams_and_other_streams) {
  small_trace s;
  std::map<double, std::string> lane;
  for (const value* e : s.events("M"))
    if (e->str("name") == "thread_name") lane[e->num("tid")] = (*e)["args"].str("name");
  EXPECT_EQ(lane[13], "pool stream 0");
  EXPECT_EQ(lane[14], "pool stream 1");
  EXPECT_EQ(lane[7], "stream 7");
  bool named_gpu = false;
  for (const value* e : s.events("M"))
    named_gpu |= e->str("name") == "process_name" && (*e)["args"].str("name") == "GPU 0";
  EXPECT_TRUE(named_gpu);
}

TEST(trace_json_file, each_dependency_is_a_flow_from_producer_to_consumer) {
  small_trace s;
  const auto starts = s.events("s");
  const auto finishes = s.events("f");
  ASSERT_EQ(starts.size(), 1u);
  ASSERT_EQ(finishes.size(), 1u);
  EXPECT_EQ(starts[0]->num("id"), finishes[0]->num("id"));
  EXPECT_EQ(finishes[0]->str("bp"), "e");
  // Each end lies inside the slice it binds to, on that slice's lane.
  EXPECT_EQ(starts[0]->num("tid"), 13);
  EXPECT_GT(starts[0]->num("ts"), 3.0);
  EXPECT_LT(starts[0]->num("ts"), 10.0);
  EXPECT_EQ(finishes[0]->num("tid"), 14);
  EXPECT_GT(finishes[0]->num("ts"), 10.5);
  EXPECT_LT(finishes[0]->num("ts"), 12.0);
}

TEST(trace_json_file, counters_track_window_occupancy_and_running_kernels) {
  small_trace s;
  std::vector<double> window, running;
  for (const value* e : s.events("C")) {
    if (e->str("name") == "window occupancy") window.push_back((*e)["args"].num("entries"));
    if (e->str("name") == "kernels running") running.push_back((*e)["args"].num("kernels"));
  }
  EXPECT_EQ(window, (std::vector<double>{1, 2}));
  // producer 3-10, direct 4-9, consumer 10.5-12 (µs).
  EXPECT_EQ(running, (std::vector<double>{1, 2, 1, 0, 1, 0}));
}

TEST(trace_json_file, large_traces_reach_the_sink_in_chunks_that_join_into_valid_json) {
  synthetic t;
  for (std::uint64_t i = 0; i < 20000; ++i)
    t.dispatched("_Z6kernelv",
                 launch{.id = i + 1,
                        .pool = static_cast<std::uint32_t>(i % 8),
                        .stream = static_cast<std::uint32_t>(13 + i % 8),
                        .waits = {},
                        .window = 8,
                        .host_ns = 1000 * i},
                 1000 * i + 500, 1000 * i + 9000);
  const trace_view v = join(t.data);
  std::string text;
  int chunks = 0;
  write_chrome_trace(v, nullptr, {"unit test"}, [&](std::string_view c) {
    text.append(c);
    ++chunks;
  });
  EXPECT_GT(chunks, 1);
  std::string error;
  const auto doc = test_json::parse(text, &error);
  ASSERT_TRUE(doc.has_value()) << error;
  std::size_t kernels = 0;
  for (const value& e : (*doc)["traceEvents"].items) kernels += e.str("cat") == "kernel";
  EXPECT_EQ(kernels, 20000u);
  EXPECT_EQ((*doc)["otherData"].find("achieved_concurrency"), nullptr);  // no figures given
}

TEST(trace_json_file, an_empty_trace_is_still_valid) {
  snapshot empty;
  empty.names.emplace_back("(unknown)");
  std::string text;
  write_chrome_trace(join(empty), nullptr, {""}, [&](std::string_view c) { text.append(c); });
  const auto doc = test_json::parse(text);
  ASSERT_TRUE(doc.has_value()) << text;
  EXPECT_TRUE((*doc)["traceEvents"].is_array());
  EXPECT_TRUE((*doc)["traceEvents"].items.empty());
}

TEST(json_reader, rejects_what_trace_viewers_would_reject) {
  EXPECT_FALSE(test_json::parse("[1,]"));
  EXPECT_FALSE(test_json::parse("{\"a\":1,}"));
  EXPECT_FALSE(test_json::parse("\"raw\ncontrol\""));
  EXPECT_FALSE(test_json::parse("\"bad \\x escape\""));
  EXPECT_FALSE(test_json::parse("\"\xff\""));
  EXPECT_FALSE(test_json::parse("NaN"));
  EXPECT_FALSE(test_json::parse("{} {}"));
  EXPECT_TRUE(test_json::parse("{\"a\":[1,2.5e3,-0.1,true,false,null,\"\\u00b5\"]}"));
}

}  // namespace
}  // namespace acs::trace
