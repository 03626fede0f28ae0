// Test-only implementation of interpose/dispatch.hpp that records every call (recording.hpp).
// Launches are issued through their closure, on the application's stream or, after
// acs_test_redirect(s), on `s`: as the real runtime would on a pool stream.
#include <cstddef>
#include <mutex>
#include <vector>

#include "src/runtime/dispatch.hpp"
#include "interpose/hooks_guard.hpp"
#include "recording.hpp"

namespace {

std::mutex mutex;
std::vector<recorded_event>& events() {
  static auto* e = new std::vector<recorded_event>;  // never destroyed: hooks may run at exit
  return *e;
}
CUstream redirect_to = nullptr;
bool is_active = true;

// The stream of this thread's last stream_work_begins / stream_sync_begins not yet followed by
// its closing call.
struct opened {
  bool open = false;
  CUstream stream = nullptr;
  acs::default_stream zero = acs::default_stream::legacy;
};
thread_local opened work_opened, sync_opened;

int close(opened& o, CUstream stream, acs::default_stream zero) {
  const bool matches = o.open && o.stream == stream && o.zero == zero;
  o.open = false;
  return matches ? 1 : 0;
}

void record(recorded_event e) {
  e.nesting = acs::hooks::hook_depth;
  std::lock_guard lock(mutex);
  events().push_back(e);
}

recorded_event event(recorded what, CUstream stream = nullptr, acs::default_stream zero = acs::default_stream::legacy) {
  recorded_event e{};
  e.what = what;
  e.stream = stream;
  e.per_thread = zero == acs::default_stream::per_thread;
  return e;
}

}  // namespace

namespace acs {

int dispatch_launch(launch_request& request, launch_closure issue) noexcept {
  recorded_event e = event(recorded::launch, request.stream, request.stream_zero);
  e.api = request.api;
  e.function = active() ? function_of(request) : request.function;  // looked up as dispatch_launch would
  e.params = request.params;
  e.detail = request.shape.attributes ? 1 : 0;
  record(e);
  CUstream on = nullptr;
  {
    std::lock_guard lock(mutex);
    on = redirect_to;
  }
  return issue(on != nullptr ? on : request.stream);
}

void launched_directly(CUstream stream, default_stream zero, pass_reason why) noexcept {
  recorded_event e = event(recorded::launched_directly, stream, zero);
  e.detail = static_cast<int>(why);
  e.bracketed = close(work_opened, stream, zero);
  record(e);
}

void stream_work_begins(CUstream stream, default_stream zero) noexcept { work_opened = {true, stream, zero}; }
void stream_barrier(CUstream stream, default_stream zero) noexcept {
  recorded_event e = event(recorded::barrier, stream, zero);
  e.bracketed = close(work_opened, stream, zero);
  record(e);
}
std::uint64_t stream_sync_begins(CUstream stream, default_stream zero) noexcept {
  sync_opened = {true, stream, zero};
  return 0;
}
std::uint64_t device_sync_begins() noexcept { return 0; }
void program_waits_for_gpu() noexcept {}  // the probes' relay verdict: nothing to record
void stream_synchronized(CUstream stream, default_stream zero, std::uint64_t) noexcept {
  recorded_event e = event(recorded::synchronized, stream, zero);
  e.bracketed = close(sync_opened, stream, zero);
  record(e);
}
void device_synchronized(std::uint64_t) noexcept { record(event(recorded::device_synchronized)); }
void peer_copy_begins(default_stream zero) noexcept { record(event(recorded::peer_copy_begins, nullptr, zero)); }
void peer_copy_done(default_stream zero) noexcept { record(event(recorded::peer_copy_done, nullptr, zero)); }
void stream_destroyed(CUstream stream) noexcept { record(event(recorded::stream_destroyed, stream)); }
void capture_began(CUstream stream, CUstreamCaptureMode mode) noexcept {
  recorded_event e = event(recorded::capture_began, stream);
  e.detail = static_cast<int>(mode);
  record(e);
}
void capture_ended(CUstream stream) noexcept { record(event(recorded::capture_ended, stream)); }
bool capture_forbids_unsafe_calls() noexcept { return false; }
void memory_allocated(CUdeviceptr base, std::size_t bytes, memory_kind kind) noexcept {
  recorded_event e = event(recorded::allocated);
  e.address = base;
  e.bytes = bytes;
  e.detail = static_cast<int>(kind);
  record(e);
}
void memory_reserved(CUdeviceptr base, std::size_t bytes) noexcept {
  recorded_event e = event(recorded::reserved);
  e.address = base;
  e.bytes = bytes;
  record(e);
}
void reservation_freed(CUdeviceptr base) noexcept {
  recorded_event e = event(recorded::unreserved);
  e.address = base;
  record(e);
}
void teardown_begins() noexcept {}
void device_work_issued() noexcept { record(event(recorded::work_issued)); }
void context_destroyed(CUcontext) noexcept {}
void device_reset(CUdevice) noexcept {}
void modules_unloading() noexcept { record(event(recorded::unloading)); }
void modules_unloaded(const void* handle) noexcept {
  recorded_event e = event(recorded::unloaded);
  e.address = reinterpret_cast<std::uint64_t>(handle);
  record(e);
}
void code_loaded(const void* handle, bool library, const void* image) noexcept {
  recorded_event e = event(recorded::code_loaded);
  e.address = reinterpret_cast<std::uint64_t>(handle);
  e.bytes = reinterpret_cast<std::uint64_t>(image);
  e.detail = library ? 1 : 0;
  record(e);
}
void memory_freed(CUdeviceptr base) noexcept {
  recorded_event e = event(recorded::freed);
  e.address = base;
  record(e);
}
bool active() noexcept {
  std::lock_guard lock(mutex);
  return is_active;
}
void cuda_in_use() noexcept {}
void passing_through(bool) noexcept {}
void launch_conditions_change_begins() noexcept { record(event(recorded::conditions_change)); }
void launch_conditions_changed() noexcept { record(event(recorded::conditions_changed)); }
// Recorded as any other change: what the runtime remembers of attribute values is its own
// (tests/unit/test_launch_conditions.cpp, preload.fake_driver_attribute_repeats).
int function_attribute_set(const void* function, int, int value, int (*set)(void* context),
                           void* context, int) noexcept {
  recorded_event e = event(recorded::attribute_set);
  e.function = const_cast<void*>(function);
  e.detail = value;
  record(e);
  launch_conditions_change_begins();
  const int status = set(context);
  launch_conditions_changed();
  return status;
}
void function_attributes_forgotten() noexcept {}
int code_unload(const void*, bool, int (*unload)(void* context), void* context) noexcept { return unload(context); }
void call_failed(int status) noexcept {
  recorded_event e = event(recorded::call_failed);
  e.detail = status;
  record(e);
}

}  // namespace acs

// Exported through libacs.map's acs_* pattern.
extern "C" {
[[gnu::visibility("default")]] std::size_t acs_test_event_count() {
  std::lock_guard lock(mutex);
  return events().size();
}
[[gnu::visibility("default")]] int acs_test_event_at(std::size_t i, recorded_event* out) {
  std::lock_guard lock(mutex);
  if (i >= events().size()) return 0;
  *out = events()[i];
  return 1;
}
[[gnu::visibility("default")]] void acs_test_reset() {
  std::lock_guard lock(mutex);
  events().clear();
  redirect_to = nullptr;
  is_active = true;
}
[[gnu::visibility("default")]] void acs_test_redirect(void* stream) {
  std::lock_guard lock(mutex);
  redirect_to = static_cast<CUstream>(stream);
}
[[gnu::visibility("default")]] void acs_test_set_active(int active) {
  std::lock_guard lock(mutex);
  is_active = active != 0;
}
}
