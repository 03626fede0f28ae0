// The tracer of a build without CUPTI's headers (src/trace/CMakeLists.txt): nothing is ever
// collected, and asking for a trace or for measurements says so once.
#include <atomic>
#include <cstdio>

#include "src/trace/session.hpp"

namespace acs::trace {

namespace {
std::atomic<bool> decided{false};
}  // namespace

bool start(const options& opts) noexcept {
  if (decided.exchange(true)) return false;
  if (!opts.path.empty() || opts.measure) {
    const char* message =
        "this libacs.so was built without CUPTI: ACS_TRACE and the measured figures of ACS_STATS "
        "are unavailable (the program runs as usual)";
    if (opts.log != nullptr)
      opts.log(true, message);
    else
      std::fprintf(stderr, "[acs] [warn] %s\n", message);
  }
  return false;
}

bool start_once(options (*make)()) noexcept {
  if (decided.load(std::memory_order_acquire) || make == nullptr) return false;
  try {
    return start(make());
  } catch (...) {
    return start(options{});
  }
}

bool collecting() noexcept { return false; }

dispatch_observer* new_observer(unsigned) noexcept { return nullptr; }

std::optional<measured> measured_figures() noexcept { return std::nullopt; }

}  // namespace acs::trace

namespace acs {

void trace_flush() noexcept {}

}  // namespace acs
