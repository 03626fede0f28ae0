#pragma once
// The pool streams of one device and what the scheduler knows about each:
// how many kernels it was given, how many are known complete, and which
// kernels of the other pool streams it has already waited for (so that a
// redundant stream-wait-event is skipped, as CUDASTF does).
#include <cstdint>
#include <vector>

#include "scheduler/backend.hpp"

namespace acs {

struct pool_stream {
  stream_handle handle = 0;
  // Hot fields first: the stream choice reads these for every stream.
  std::uint64_t issued = 0;          // sequence number of the last kernel given to it
  std::uint64_t known_complete = 0;  // highest sequence number seen complete
  unsigned in_window = 0;            // its kernels still in the window
  std::uint64_t last_pick = 0;       // when it was last chosen, for round-robin among equals
  std::vector<std::uint64_t> waited; // per pool stream: highest sequence number already waited for

  bool known_idle() const noexcept { return known_complete == issued; }
};

class stream_pool {
 public:
  explicit stream_pool(backend& gpu) : gpu_(gpu) {}
  ~stream_pool();
  stream_pool(const stream_pool&) = delete;
  stream_pool& operator=(const stream_pool&) = delete;

  // Creates the streams; on failure keeps those created so far (at least one needed).
  backend_status create(unsigned count);

  unsigned size() const noexcept { return static_cast<unsigned>(streams_.size()); }
  pool_stream& operator[](unsigned i) noexcept { return streams_[i]; }
  const pool_stream& operator[](unsigned i) const noexcept { return streams_[i]; }

  // For a kernel with no producer to follow: a stream known to be idle, else
  // the one with the fewest kernels in the window, least recently chosen first.
  unsigned pick_least_loaded() const noexcept;

  // Records that stream `to` will run after kernel `seq` of stream `from`.
  // Returns false when that is already known (no wait needed).
  bool note_wait(unsigned to, unsigned from, std::uint64_t seq) noexcept;

  void mark_chosen(unsigned i) noexcept { streams_[i].last_pick = ++picks_; }

 private:
  backend& gpu_;
  std::vector<pool_stream> streams_;
  std::uint64_t picks_ = 0;
};

}  // namespace acs
