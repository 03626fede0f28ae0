// The session's behaviour where it cannot trace: nothing asked for, no CUPTI,
// a CUPTI without a driver. start() decides once per process, so each case
// runs in a child process of its own (gtest's death-test machinery).
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>

#include "src/trace/session.hpp"

namespace acs::trace {
namespace {

std::atomic<int> warnings{0};
std::string last_warning;

void capture(bool warning, const char* message) noexcept {
  if (!warning) return;
  ++warnings;
  last_warning = message;
}

// Exits 0 when `ok`, else prints why and exits 1 (runs in the child).
[[noreturn]] void finish(bool ok, const std::string& why) {
  if (!ok)
    std::fprintf(stderr, "child check failed: %s (last warning: %s)\n", why.c_str(), last_warning.c_str());
  std::exit(ok ? 0 : 1);
}

bool cupti_loaded() { return dlopen("libcupti.so.13", RTLD_NOLOAD | RTLD_LAZY) != nullptr; }

int options_made = 0;
options make_nothing() {
  ++options_made;
  options o;
  o.log = capture;
  return o;
}

[[noreturn]] void child_nothing_asked() {
  if (start_once(&make_nothing)) finish(false, "started");
  if (start_once(&make_nothing)) finish(false, "started later");
  if (options_made != 1) finish(false, "options made " + std::to_string(options_made) + " times");
  if (collecting()) finish(false, "collecting");
  if (new_observer(0) != nullptr) finish(false, "an observer");
  if (measured_figures().has_value()) finish(false, "figures");
  trace_flush();
  if (cupti_loaded()) finish(false, "CUPTI was loaded");
  finish(warnings == 0, "a warning");
}

[[noreturn]] void child_no_cupti() {
  options o;
  o.path = "/tmp/acs-trace-never-written-%p.json";
  o.measure = true;
  o.log = capture;
  o.cupti_candidates = {"/nonexistent/libcupti.so.13", "libacs_no_such_cupti.so"};
  if (start(o)) finish(false, "started without CUPTI");
  if (dlerror() != nullptr) finish(false, "acs's failed dlopen left a dlerror() for the application");
  if (warnings != 1) finish(false, "expected one warning, got " + std::to_string(warnings.load()));
  if (last_warning.find("cannot use CUPTI") == std::string::npos) finish(false, "wrong warning");
  if (last_warning.find("program runs unchanged") == std::string::npos) finish(false, "no consequence");
  if (start(o)) finish(false, "second start");
  if (warnings != 1) finish(false, "warned again");
  if (new_observer(0) != nullptr) finish(false, "an observer");
  if (measured_figures().has_value()) finish(false, "figures");
  trace_flush();
  finish(true, "");
}

constexpr const char* real_cupti = "/usr/local/cuda/lib64/libcupti.so.13";

[[noreturn]] void child_no_driver() {
  options o;
  o.measure = true;
  o.log = capture;
  o.cupti_candidates = {real_cupti};
  if (start(o)) finish(false, "started without a driver");
  if (warnings != 1) finish(false, "expected one warning, got " + std::to_string(warnings.load()));
  if (new_observer(0) != nullptr) finish(false, "an observer");
  trace_flush();
  finish(true, "");
}

TEST(trace_session, nothing_asked_loads_nothing_and_installs_no_observer) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(child_nothing_asked(), ::testing::ExitedWithCode(0), "");
}

TEST(trace_session, without_cupti_it_warns_once_and_stays_off) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(child_no_cupti(), ::testing::ExitedWithCode(0), "");
}

// CPU machines have CUPTI's library (the toolkit's) but no driver: CUPTI
// refuses, acs warns once and stays off. With a driver this case is for the
// GPU tests.
TEST(trace_session, a_real_cupti_without_a_driver_warns_once_and_stays_off) {
  if (dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD) != nullptr ||
      dlopen("libcuda.so.1", RTLD_LAZY) != nullptr)
    GTEST_SKIP() << "a CUDA driver is present: covered by the GPU tests";
  if (access(real_cupti, R_OK) != 0) GTEST_SKIP() << "no " << real_cupti << " on this machine";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(child_no_driver(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace acs::trace
