#pragma once
// The pool streams of one device and what the scheduler knows about each:
// how many kernels it was given, how many are known complete, which kernels
// of the other pool streams it has already waited for (so that a redundant
// stream-wait-event is skipped, as CUDASTF does), its priority, and which
// application stream holds it.
//
// Streams stay apart (docs/design.md rule 12): a kernel is never queued behind
// a kernel of another application stream, since a program may make a kernel on
// stream B spin until a kernel on stream A has run. A pool stream is therefore
// held by one application stream (its owner) from its first kernel there until
// all of its kernels are known complete; only then may another stream's kernel
// go there. And it has the priority of the application streams it serves: one
// set of streams per priority in use, created at that priority's first launch.
#include <cstdint>
#include <vector>

#include "scheduler/backend.hpp"

namespace acs {

// The owner of a pool stream that no application stream holds.
inline constexpr std::uintptr_t no_owner = 0;

struct pool_stream {
  stream_handle handle = 0;
  // Hot fields first: the stream choice reads these for every stream.
  std::uint64_t issued = 0;          // sequence number of the last kernel given to it
  std::uint64_t known_complete = 0;  // highest sequence number seen complete
  unsigned in_window = 0;            // its kernels still in the window
  int priority = 0;                  // CUDA's stream priority
  std::uint64_t last_pick = 0;       // when it was last chosen, for round-robin among equals
  // The application stream that may still have unfinished work on it (rule 12), else no_owner.
  std::uintptr_t owner = no_owner;
  // Issue stamp (scheduler::sync_point) of its last work: a host sync from a later point
  // saw all of it complete.
  std::uint64_t last_stamp = 0;
  // A launch failed after its waits were issued here: those waits are still queued, behind
  // no kernel. Only a host sync or a fresh event recorded behind them frees the stream.
  bool held = false;
  std::vector<std::uint64_t> waited; // per pool stream: highest sequence number already waited for

  bool known_idle() const noexcept { return known_complete == issued; }
};

class stream_pool {
 public:
  static constexpr unsigned none = ~0u;

  explicit stream_pool(backend& gpu) : gpu_(gpu) {}
  ~stream_pool();
  stream_pool(const stream_pool&) = delete;
  stream_pool& operator=(const stream_pool&) = delete;

  // Adds `count` streams of `priority`; on failure keeps those created so far
  // (at least one needed).
  backend_status create(unsigned count, int priority = 0);

  unsigned size() const noexcept { return static_cast<unsigned>(streams_.size()); }
  pool_stream& operator[](unsigned i) noexcept { return streams_[i]; }
  const pool_stream& operator[](unsigned i) const noexcept { return streams_[i]; }

  // For a kernel of application stream `claimant` with no producer to follow:
  // among the streams of `priority` that no other application stream holds, one
  // known to be idle, else the one with the fewest kernels in the window, least
  // recently chosen first. `none` when every one is held by another stream.
  unsigned pick_least_loaded(std::uintptr_t claimant, int priority) const noexcept;

  // Records that stream `to` will run after kernel `seq` of stream `from`.
  // Returns false when that is already known (no wait needed).
  bool note_wait(unsigned to, unsigned from, std::uint64_t seq) noexcept;

  void mark_chosen(unsigned i) noexcept { streams_[i].last_pick = ++picks_; }

  // Kernel `seq` of stream `i` (and all before it) completed. Once all of its
  // kernels have, no application stream holds it any more.
  void note_complete(unsigned i, std::uint64_t seq) noexcept {
    pool_stream& s = streams_[i];
    if (seq > s.known_complete) s.known_complete = seq;
    if (s.known_idle() && !s.held) s.owner = no_owner;
  }
  // A host sync saw everything on stream `i` complete, waits included.
  void note_drained(unsigned i) noexcept {
    streams_[i].held = false;
    note_complete(i, streams_[i].issued);
  }

 private:
  backend& gpu_;
  std::vector<pool_stream> streams_;
  std::uint64_t picks_ = 0;
};

}  // namespace acs
