#include "scheduler/event_pool.hpp"

namespace acs {

event_pool::~event_pool() {
  for (event_handle e : all_) gpu_.destroy_event(e);
}

backend_status event_pool::acquire(event_handle* out) {
  if (!free_.empty()) {
    *out = free_.back();
    free_.pop_back();
    return 0;
  }
  event_handle e{};
  if (const backend_status s = gpu_.create_event(&e); s != 0) return s;
  all_.push_back(e);
  ++created_;
  *out = e;
  return 0;
}

}  // namespace acs
