#include "runtime_start.hpp"

#include "config.hpp"
#include "log.hpp"
#include "runtime_capture.hpp"
#include "runtime_driver.hpp"
#include "runtime_footprint.hpp"
#include "trace_session.hpp"

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

bool connect_services() noexcept {
  declared::runtime_services s;
  s.capture_in_progress = capture_in_progress;
  s.kernel_name = kernel_name;
  connect_annotations(s);
  return true;
}

}  // namespace

void runtime_started() noexcept {
  static const bool connected = connect_services();
  (void)connected;
  trace::start_once(trace_options);
}

}  // namespace acs
