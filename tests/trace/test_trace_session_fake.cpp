// The whole tracing session on a CPU, against libacs_fake_cupti.so (see
// fake_cupti.cpp): loading, the probe for other CUPTI clients, what gets
// enabled, launches tagged by the observer, buffers delivered and parsed, the
// trace file written at trace_flush() and again at exit, the measured figures.
// Each case runs in a child process: start() decides once per process.
#include <cupti.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "json_reader.hpp"
#include "src/trace/session.hpp"

#ifndef ACS_FAKE_CUPTI
#error "ACS_FAKE_CUPTI must name libacs_fake_cupti.so"
#endif

namespace acs::trace {
namespace {

using test_json::value;

int warnings = 0;
std::string last_warning;
void capture(bool warning, const char* message) noexcept {
  if (!warning) return;
  ++warnings;
  last_warning = message;
}

[[noreturn]] void finish(bool ok, const std::string& why) {
  if (!ok)
    std::fprintf(stderr, "child check failed: %s (last warning: %s)\n", why.c_str(), last_warning.c_str());
  std::exit(ok ? 0 : 1);
}

struct fake {
  fake() {
    handle = dlopen(ACS_FAKE_CUPTI, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) finish(false, dlerror());
    count = reinterpret_cast<int (*)(const char*)>(dlsym(handle, "fake_cupti_count"));
    launch = reinterpret_cast<void (*)(const char*, std::uint32_t, std::uint64_t, std::uint64_t)>(
        dlsym(handle, "fake_cupti_launch"));
    copy = reinterpret_cast<void (*)(std::uint32_t, std::uint64_t, std::uint64_t, std::uint64_t)>(
        dlsym(handle, "fake_cupti_memcpy"));
    other = reinterpret_cast<void (*)(const char*)>(dlsym(handle, "fake_cupti_set_other_subscriber"));
    subscribe = reinterpret_cast<decltype(&::cuptiSubscribe)>(dlsym(handle, "cuptiSubscribe"));
    if (!count || !launch || !copy || !other || !subscribe) finish(false, "fake CUPTI lacks a function");
  }
  void* handle;
  int (*count)(const char*);
  void (*launch)(const char*, std::uint32_t, std::uint64_t, std::uint64_t);
  void (*copy)(std::uint32_t, std::uint64_t, std::uint64_t, std::uint64_t);
  void (*other)(const char*);
  decltype(&::cuptiSubscribe) subscribe;
};

// One file per test: CTest runs the tests of this program in parallel.
std::string trace_path() {
  const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
  return ::testing::TempDir() + "acs_fake_cupti_trace_" + (t != nullptr ? t->name() : "none") + ".json";
}

options traced() {
  options o;
  o.path = trace_path();
  o.measure = true;
  o.log = capture;
  o.cupti_candidates = {"/nonexistent/libcupti.so.13", ACS_FAKE_CUPTI};
  return o;
}

std::optional<value> read_trace(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return test_json::parse(text.str());
}

const value* kernel(const value& doc, const std::string& name) {
  for (const value& e : doc["traceEvents"].items)
    if (e.str("ph") == "X" && e.str("cat") == "kernel" && e.str("name") == name) return &e;
  return nullptr;
}

std::size_t count_events(const value& doc, const std::string& ph, const std::string& cat = "") {
  std::size_t n = 0;
  for (const value& e : doc["traceEvents"].items)
    n += e.str("ph") == ph && (cat.empty() || e.str("cat") == cat);
  return n;
}

// One dispatched launch as the scheduler would bracket and report it.
void dispatch(fake& f, dispatch_observer& o, std::uint64_t id, const char* name, unsigned pool,
              std::uint32_t stream, std::uint64_t start, std::uint64_t end,
              const std::uint64_t* waits = nullptr, std::size_t n_waits = 0) {
  o.before_launch(id);
  f.launch(name, stream, start, end);
  o.after_launch(id, 0);
  o.dispatched({id, 0x77, pool, stream, waits, n_waits, static_cast<unsigned>(id)});
}

[[noreturn]] void child_traces() {
  fake f;
  std::remove(trace_path().c_str());
  if (!start(traced())) finish(false, "did not start");
  if (warnings != 0) finish(false, "warned");
  // Enabled: concurrent kernels (never the serialising KERNEL kind), copies,
  // correlations, and driver and runtime API records (CUDA 13's CUPTI gave no
  // external correlations with the per-function switches).
  if (f.count("kind_kernel") != 0) finish(false, "CUPTI_ACTIVITY_KIND_KERNEL enabled");
  if (f.count("kind_concurrent_kernel") != 1) finish(false, "concurrent kernels not enabled");
  if (f.count("kinds") != 6)
    finish(false, "expected 6 activity kinds, got " + std::to_string(f.count("kinds")));
  if (f.count("driver_cbids") != 0 || f.count("runtime_cbids") != 0)
    finish(false, "per-function API records enabled");
  if (f.count("register") != 1) finish(false, "buffer callbacks not registered once");
  // The probe left CUPTI's subscriber slot free: a profiler started now gets it.
  if (f.count("subscribe") != 1 || f.count("unsubscribe") != 1) finish(false, "probe did not unsubscribe");
  CUpti_SubscriberHandle later_profiler = nullptr;
  if (f.subscribe(&later_profiler, nullptr, nullptr) != CUPTI_SUCCESS)
    finish(false, "a later subscriber was refused");

  dispatch_observer* o = new_observer(0);
  if (o == nullptr) finish(false, "no observer");
  f.copy(7, 2'000'000, 2'001'000, 4096);
  dispatch(f, *o, 1, "_Z1av", 0, 13, 2'002'000, 2'010'000);
  dispatch(f, *o, 2, "_Z1bv", 1, 14, 2'003'000, 2'009'000);
  const std::uint64_t waits[] = {1, 2};
  dispatch(f, *o, 3, "_Z1cv", 0, 13, 2'011'000, 2'012'000, waits, 2);
  f.launch("direct_kernel", 7, 2'012'500, 2'013'000);  // not through acs: nothing pushed
  if (f.count("pushed") != 0) finish(false, "pushes and pops unbalanced");

  trace_flush();
  const auto doc = read_trace(trace_path());
  if (!doc) finish(false, "no valid trace after trace_flush()");
  if (count_events(*doc, "X", "kernel") != 4) finish(false, "expected 4 kernels");
  if (count_events(*doc, "X", "memcpy") != 1) finish(false, "expected 1 memcpy");
  if (count_events(*doc, "s") != 2 || count_events(*doc, "f") != 2) finish(false, "expected 2 flows");
  const value* a = kernel(*doc, "a()");
  const value* c = kernel(*doc, "c()");
  const value* d = kernel(*doc, "direct_kernel");
  if (!a || !c || !d) finish(false, "kernels missing");
  if ((*a)["args"].str("acs") != "dispatched" || (*a)["args"].num("launch_id") != 1)
    finish(false, "a not linked");
  if ((*c)["args"]["waited_for"].items.size() != 2) finish(false, "c's waits missing");
  if ((*d)["args"].str("acs") != "direct") finish(false, "direct kernel linked to a launch");
  if ((*a)["args"].num("pool_stream") != 0 || a->num("tid") != 13) finish(false, "a's lane");

  const auto m = measured_figures();
  if (!m) finish(false, "no measured figures");
  // Kernel time 8 + 6 + 1 + 0.5 µs over busy time 8 + 1 + 0.5 µs.
  if (std::abs(m->achieved_concurrency - 15.5 / 9.5) > 1e-9) finish(false, "achieved concurrency");
  if (m->peak_concurrency != 2 || m->kernels != 4 || m->dispatched != 3) finish(false, "figures");
  if (m->top.empty() || m->top[0].name != "a()") finish(false, "top kernel");
  bool c_waits = false;
  for (const auto& t : m->top) c_waits |= t.name == "c()" && t.dependency_waits == 2;
  if (!c_waits) finish(false, "c's dependency waits in the top kernels");

  // One more after the flush: only the exit handler can write it.
  dispatch(f, *o, 4, "_Z1ev", 1, 14, 2'014'000, 2'015'000);
  finish(true, "");
}

TEST(trace_session_fake, traces_launches_and_writes_the_file_at_flush_and_at_exit) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(child_traces(), ::testing::ExitedWithCode(0), "");
  const auto doc = read_trace(trace_path());
  ASSERT_TRUE(doc.has_value()) << trace_path();
  EXPECT_EQ(count_events(*doc, "X", "kernel"), 5u) << "the exit handler did not rewrite the trace";
  EXPECT_NE(kernel(*doc, "e()"), nullptr);
  const value& other = (*doc)["otherData"];
  EXPECT_GT(other.num("achieved_concurrency"), 1.0);
  std::remove(trace_path().c_str());
}

[[noreturn]] void child_other_client() {
  fake f;
  f.other("Nsight Systems");
  std::remove(trace_path().c_str());
  if (start(traced())) finish(false, "started beside another client");
  if (warnings != 1) finish(false, "expected one warning, got " + std::to_string(warnings));
  if (last_warning.find("another CUPTI client is active") == std::string::npos ||
      last_warning.find("Nsight Systems") == std::string::npos)
    finish(false, "warning does not name the other client");
  // Nothing of CUPTI's state was touched.
  if (f.count("register") != 0 || f.count("kinds") != 0 || f.count("driver_cbids") != 0)
    finish(false, "acs changed CUPTI's state");
  if (new_observer(0) != nullptr) finish(false, "an observer");
  if (measured_figures().has_value()) finish(false, "figures");
  trace_flush();
  if (f.count("flush") != 0) finish(false, "flushed someone else's buffers");
  std::exit(std::ifstream(trace_path()) ? 1 : 0);  // at exit too: no file
}

TEST(trace_session_fake, another_cupti_client_makes_it_warn_once_and_touch_nothing) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(child_other_client(), ::testing::ExitedWithCode(0), "");
  EXPECT_FALSE(std::ifstream(trace_path()).good()) << "a trace was written at exit";
}

[[noreturn]] void child_stats_only() {
  fake f;
  options o = traced();
  o.path.clear();
  if (!start(o)) finish(false, "did not start");
  // Measuring alone records kernels, copies and memsets, and no API calls: the
  // launch path costs what it costs without CUPTI.
  if (f.count("kinds") != 3) finish(false, "expected 3 activity kinds, got " + std::to_string(f.count("kinds")));
  dispatch_observer* obs = new_observer(0);
  dispatch(f, *obs, 1, "_Z1av", 0, 13, 2'002'000, 2'010'000);
  trace_flush();  // a device reset: records are pulled, no file is written
  const auto m = measured_figures();
  if (!m || m->kernels != 1) finish(false, "figures");
  finish(!std::ifstream(trace_path()).good(), "a trace file without ACS_TRACE");
}

TEST(trace_session_fake, measuring_alone_writes_no_file) {
  std::remove(trace_path().c_str());
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(child_stats_only(), ::testing::ExitedWithCode(0), "");
}

// Launching threads (one device each) against a thread that flushes and
// measures: every launch ends up in the trace, linked to its dispatch.
[[noreturn]] void child_threads() {
  fake f;
  options o = traced();
  if (!start(o)) finish(false, "did not start");
  constexpr int threads = 4, launches = 500;
  std::atomic<int> done{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      dispatch_observer* obs = new_observer(static_cast<unsigned>(t));
      for (int i = 1; i <= launches; ++i) {
        const std::uint64_t start_ns = 3'000'000 + 1000 * static_cast<std::uint64_t>(i);
        dispatch(f, *obs, static_cast<std::uint64_t>(i), "_Z1kv", 0, 13 + static_cast<std::uint32_t>(t),
                 start_ns, start_ns + 500);
      }
      ++done;
    });
  }
  while (done.load() < threads) {
    trace_flush();
    (void)measured_figures();
  }
  for (std::thread& th : pool) th.join();
  trace_flush();
  const auto m = measured_figures();
  if (!m || m->kernels != threads * launches) finish(false, "kernels lost");
  if (m->dispatched != threads * launches) finish(false, "launches not linked to their dispatches");
  finish(f.count("pushed") == 0, "pushes and pops unbalanced");
}

TEST(trace_session_fake, concurrent_launches_and_flushes_lose_nothing) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(child_threads(), ::testing::ExitedWithCode(0), "");
  std::remove(trace_path().c_str());
}

}  // namespace
}  // namespace acs::trace
