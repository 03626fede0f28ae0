#pragma once
// What the recording variant of libacs (libacs_recording.so: the hooks + dispatch_recording.cpp)
// saw: one event per call into interpose/dispatch.hpp. Tests read it through dlsym, since the
// library is preloaded, not linked.
#include <cstddef>
#include <cstdint>

enum class recorded : int {
  launch = 1,           // dispatch_launch
  launched_directly,
  barrier,              // stream_barrier
  synchronized,         // stream_synchronized
  device_synchronized,
  stream_destroyed,
  capture_began,
  capture_ended,
  allocated,
  freed,
  code_loaded,          // address: the module or library handle, bytes: the image, detail: library
  unloading,            // modules_unloading: before the real unload, inside its bracket
  unloaded,             // address: the handle
  work_issued,          // device_work_issued: queued launches issued before a device-wide call
  conditions_change,    // launch_conditions_change_begins
  conditions_changed,   // launch_conditions_changed
  call_failed,          // detail: the status
  reserved,             // memory_reserved: address, bytes
  unreserved,           // reservation_freed: address
  peer_copy_begins,     // per_thread: the default stream of the _ptds twins
  peer_copy_done,
  attribute_set,        // function_attribute_set: function, detail: the value
};

struct recorded_event {
  recorded what;
  const char* api;         // launch_request::api (launches only)
  void* stream;
  int per_thread;          // default_stream::per_thread
  void* function;          // launch_request::function
  void** params;           // launch_request::params
  std::uint64_t address;   // allocated / freed / reserved / unreserved
  std::uint64_t bytes;     // allocated / reserved
  int detail;              // pass_reason, capture mode, memory_kind (allocated),
                           // launch_shape::attributes (launch)
  int nesting;             // hook depth seen inside the call (1: the outermost hook)
  int bracketed;           // barrier, launched_directly, synchronized: the matching
                           // stream_work_begins / stream_sync_begins came first, same stream
};

extern "C" {
using acs_test_event_count_fn = std::size_t (*)();
using acs_test_event_at_fn = int (*)(std::size_t, recorded_event*);
using acs_test_reset_fn = void (*)();
using acs_test_redirect_fn = void (*)(void* stream);
using acs_test_set_active_fn = void (*)(int active);
}
