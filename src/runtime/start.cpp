#include "src/runtime/start.hpp"

#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>

#include "src/support/bypass.hpp"
#include "src/support/code_pages.hpp"
#include "src/support/config.hpp"
#include "src/support/guard.hpp"
#include "src/support/log.hpp"
#include "src/support/process.hpp"
#include "src/runtime/background.hpp"
#include "src/runtime/capture.hpp"
#include "interpose/real_driver.hpp"
#include "src/runtime/driver_inference.hpp"
#include "src/runtime/dispatch.hpp"
#include "annotations/declared/declared.hpp"
#include "src/trace/session.hpp"
#include "src/support/hot_flags.hpp"
#include "src/support/hot_path.hpp"

namespace acs {

namespace {

const char* kernel_name(CUfunction function) noexcept {
  const driver::table* cuda = driver::real();
  const char* name = nullptr;
  if (cuda == nullptr || cuda->cuFuncGetName_ == nullptr || cuda->cuFuncGetName_(&name, function) != CUDA_SUCCESS)
    return nullptr;
  return name;
}

bool capture_in_progress() noexcept { return capture_in_progress_anywhere(); }

void trace_log(bool warning, const char* message) noexcept {
  if (warning)
    log::warn("{}", message);
  else
    log::info("{}", message);
}

// Why the trace cannot be written at `path`, if it cannot: it is written at exit, to
// `path`.partial and then renamed, so the folder must take new files.
std::optional<std::string> unwritable(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return std::string("is a directory");
  const std::size_t slash = path.rfind('/');
  const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    return "cannot be written: folder " + folder + ": " + std::strerror(errno);
  if (::access(path.c_str(), F_OK) == 0 && ::access(path.c_str(), W_OK) != 0)
    return std::string("cannot be written: ") + std::strerror(errno);
  return std::nullopt;
}

// ACS_TRACE is checked when tracing starts: a trace that could not be written at exit would be
// lost after the whole run.
trace::options trace_options() {
  const config& c = settings();
  trace::options o;
  o.path = c.trace;
  if (!o.path.empty()) {
    if (const auto why = unwritable(o.path)) {
      log::warn_once("trace:path", "ACS_TRACE='{}' {}; no trace is written", o.path, *why);
      o.path.clear();
    }
  }
  o.measure = c.counting_stats();
  o.log = trace_log;
  return o;
}

bool pointer_arguments(CUfunction function, void* const* params, void* const* extra,
                       std::vector<inference::pointer_argument>& out) noexcept {
  try {
    return inference::pointer_arguments(function, params, extra, out) == inference::words_status::ok;
  } catch (...) {
    return false;
  }
}

bool is_active() noexcept { return active(); }

bool connect_services() noexcept {
  declared::runtime_services s;
  s.capture_in_progress = capture_in_progress;
  s.kernel_name = kernel_name;
  s.pointer_arguments = pointer_arguments;
  s.active = is_active;
  declared::connect(s);
  return true;
}

void connect_once() noexcept {
  static const bool connected = connect_services();
  (void)connected;
}

// Rule 13. Before fork(): what acs accepted is issued, so that no issuing thread is inside the
// driver while the process is copied, and the child inherits no queued work it could wait for.
void before_fork() noexcept {
  if (process::cuda_used() && !process::forked_child()) device_work_issued();
}

// In the child: acs's threads did not come along and its locks may be held by them. The hooks
// take the forked child's path, not the bypass (an open bypass skips that test).
void in_child_after_fork() noexcept {
  bypass::after_fork_in_child();
  process::after_fork_in_child();
}

// The annotation layer gets its services when libacs loads (the constructor only stores
// pointers), so that acs_v1_active answers before the program's first CUDA call. acs's code is
// mapped in now, not page by page inside the program's first launches. So is the bypass's fence
// registered: in a process of one thread that is cheap, later it costs an RCU grace period.
[[gnu::constructor]] void connect_at_load() {
  code_pages::map_in();
  bypass::prepare();
  connect_once();
  (void)pthread_atfork(before_fork, nullptr, in_child_after_fork);
}

// setenv is not safe against another thread's getenv; at a program's first CUDA call that is
// rarely a concern, and the driver reads this variable when it creates a context, which cannot
// come before this call (rule 14).
void set_device_connections() {
  const char* name = "CUDA_DEVICE_MAX_CONNECTIONS";
  if (const auto value = device_connections_to_set(settings(), std::getenv(name)))
    ::setenv(name, value->c_str(), /*overwrite=*/0);
}

constexpr std::atomic<bool>& cuda_set_up = hot.cuda_set_up;

}  // namespace

namespace {
// Set once the services are connected and tracing decided: every later call is one load.
constexpr std::atomic<bool>& started = hot.runtime_started;
}  // namespace

void runtime_started_slow() noexcept {
  if (started.load(std::memory_order_acquire) || process::forked_child()) return;
  connect_once();
  trace::start_once(trace_options);
  if (trace::start_decided()) started.store(true, std::memory_order_release);
}

// Every thread's first CUDA call waits until the first one has set the environment up: its own
// next call may create a context.
ACS_HOT void cuda_in_use() noexcept {
  if (cuda_set_up.load(std::memory_order_acquire)) return;
  static std::once_flag once;
  try {
    std::call_once(once, [] {
      (void)process::note_cuda_used();
      guarded("cuda_in_use", [] { set_device_connections(); });
      // Its first job usually comes with a stream's first probe, inside the program's launches.
      background::start();
      // The relay's CPU check (stream_mode_policy::relay_cgroup_limit) needs the cgroup limit, 50-100
      // µs of file reads, when a relay would start: read here on acs's thread, not by that launch.
      // A job that cannot be posted leaves it to the launch.
      if (settings().relays()) (void)background::post([] { (void)process::process_cgroup_cpu_limit(); });
      cuda_set_up.store(true, std::memory_order_release);
    });
  } catch (...) {
    internal_failure("cuda_in_use");
  }
}

}  // namespace acs
