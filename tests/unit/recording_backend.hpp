#pragma once
// A backend that records every call and completes nothing unless told to:
// the unit tests read back exactly what the scheduler asked of the GPU.
#include <string>
#include <vector>

#include "scheduler/backend.hpp"

namespace acs::testing {

struct recorded_call {
  std::string what;  // "record", "wait", "launch", "query"
  std::uintptr_t a = 0;
  std::uintptr_t b = 0;
};

class recording_backend final : public backend {
 public:
  std::vector<recorded_call> calls;
  std::vector<event_handle> complete;  // events that query as complete
  bool all_complete = false;           // every event queries as complete
  backend_status fail_launch = 0;
  unsigned streams_created = 0;
  unsigned events_created = 0;

  backend_status create_stream(stream_handle* out) override {
    *out = 1000 + ++streams_created;
    return 0;
  }
  backend_status create_event(event_handle* out) override {
    *out = 5000 + ++events_created;
    return 0;
  }
  backend_status record_event(event_handle e, stream_handle s) override {
    calls.push_back({"record", e, s});
    return 0;
  }
  backend_status wait_event(stream_handle s, event_handle e) override {
    calls.push_back({"wait", s, e});
    return 0;
  }
  event_state query_event(event_handle e) override {
    calls.push_back({"query", e, 0});
    if (all_complete) return event_state::complete;
    for (event_handle c : complete)
      if (c == e) return event_state::complete;
    return event_state::pending;
  }
  backend_status synchronize(stream_handle s) override {
    calls.push_back({"sync", s, 0});
    return 0;
  }
  backend_status launch(const void* kernel, stream_handle s) override {
    calls.push_back({"launch", reinterpret_cast<std::uintptr_t>(kernel), s});
    return fail_launch;
  }
  void destroy_stream(stream_handle) noexcept override {}
  void destroy_event(event_handle) noexcept override {}

  // The stream the n-th launch went to.
  stream_handle launch_stream(std::size_t n) const {
    for (const recorded_call& c : calls)
      if (c.what == "launch" && n-- == 0) return c.b;
    return 0;
  }
  std::size_t count(const std::string& what) const {
    std::size_t n = 0;
    for (const recorded_call& c : calls) n += c.what == what;
    return n;
  }
};

}  // namespace acs::testing
