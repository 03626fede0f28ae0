#include "src/runtime/start.hpp"

#include "src/support/config.hpp"
#include "src/support/log.hpp"
#include "src/runtime/capture.hpp"
#include "interpose/real_driver.hpp"
#include "src/runtime/driver_inference.hpp"
#include "src/runtime/dispatch.hpp"
#include "annotations/declared/declared.hpp"
#include "src/trace/session.hpp"

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

trace::options trace_options() {
  const config& c = settings();
  trace::options o;
  o.path = c.trace;
  o.measure = c.stats;
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

// The annotation layer gets its services when libacs loads (the constructor only stores
// pointers), so that acs_v1_active answers before the program's first CUDA call.
[[gnu::constructor]] void connect_at_load() { connect_once(); }

}  // namespace

void runtime_started() noexcept {
  connect_once();
  trace::start_once(trace_options);
}

}  // namespace acs
