#pragma once
// Events handed out for reuse. Re-recording a released event is safe even if a
// stream still waits on its previous record: a wait binds to the record that
// was current when the wait was issued.
#include <vector>

#include "scheduler/backend.hpp"

namespace acs {

class event_pool {
 public:
  explicit event_pool(backend& gpu) : gpu_(gpu) {}
  ~event_pool();
  event_pool(const event_pool&) = delete;
  event_pool& operator=(const event_pool&) = delete;

  backend_status acquire(event_handle* out);
  void release(event_handle event) { free_.push_back(event); }

  std::size_t created() const noexcept { return created_; }

 private:
  backend& gpu_;
  std::vector<event_handle> free_;
  std::vector<event_handle> all_;
  std::size_t created_ = 0;
};

}  // namespace acs
