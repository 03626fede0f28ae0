#pragma once
// The pool streams of one device and what the scheduler knows about each:
// how many kernels it was given, how many are known complete, which kernels
// of the other pool streams it has already waited for (so that a redundant
// stream-wait-event is skipped, as CUDASTF does), its priority, and which
// application stream holds it.
//
// Streams stay apart (docs/design.md rule 12): a kernel is never queued behind
// a kernel of another application stream, since a program may make a kernel on
// stream B spin until a kernel on stream A has run. A pool stream therefore
// belongs to the application stream that last launched there (its owner); another
// stream may take it over only once all of its work there is known complete. And
// it has the priority of the application streams it serves: one set of streams
// per priority in use, made at that priority's first launch.
//
// Cost: a set remembers its only holder. While a launch's stream is that holder
// (one application stream launching, the common case), picking a stream checks
// no owner at all; only with several holders does it look at each stream's.
#include <cstdint>
#include <vector>

#include "scheduler/backend.hpp"

namespace acs {

// The owner of a pool stream that no application stream ever held.
inline constexpr std::uintptr_t no_owner = 0;

struct pool_stream {
  stream_handle handle = 0;
  // Hot fields first: the stream choice reads these for every stream.
  std::uint64_t issued = 0;          // sequence number of the last kernel given to it
  std::uint64_t known_complete = 0;  // highest sequence number seen complete
  unsigned in_window = 0;            // its kernels still in the window
  std::uint64_t last_pick = 0;       // when it was last chosen, for round-robin among equals
  // The application stream whose work it runs (rule 12), else no_owner.
  std::uintptr_t owner = no_owner;
  // A launch failed after its waits were issued here: those waits are still queued, behind
  // no kernel. Only a host sync or a fresh event recorded behind them frees the stream.
  bool held = false;
  int priority = 0;     // CUDA's stream priority
  unsigned set = 0;     // its priority set in the pool
  // Issue stamp (scheduler::sync_point) of its last work: a host sync from a later point
  // saw all of it complete.
  std::uint64_t last_stamp = 0;
  std::vector<std::uint64_t> waited; // per pool stream: highest sequence number already waited for

  bool known_idle() const noexcept { return known_complete == issued; }
  // Another application stream may take it over: all its work there is done.
  bool free_for_others() const noexcept { return known_idle() && !held; }
};

// The pool streams of one priority: indices begin..end-1.
struct priority_set {
  int priority = 0;
  unsigned begin = 0;
  unsigned end = 0;
  std::uintptr_t holder = no_owner;  // the only owner of its streams, or several_owners
};

class stream_pool {
 public:
  static constexpr unsigned none = ~0u;
  static constexpr std::uintptr_t several_owners = ~std::uintptr_t{1};

  explicit stream_pool(backend& gpu) : gpu_(gpu) {}
  ~stream_pool();
  stream_pool(const stream_pool&) = delete;
  stream_pool& operator=(const stream_pool&) = delete;

  // Adds a set of `count` streams of `priority`; on failure keeps those created
  // so far (at least one needed), and the set, empty, says that it failed.
  backend_status create(unsigned count, int priority = 0);

  unsigned size() const noexcept { return static_cast<unsigned>(streams_.size()); }
  pool_stream& operator[](unsigned i) noexcept { return streams_[i]; }
  const pool_stream& operator[](unsigned i) const noexcept { return streams_[i]; }

  // The set of `priority`, none if not made yet.
  unsigned set_of(int priority) const noexcept;
  const priority_set& set(unsigned k) const noexcept { return sets_[k]; }

  // For a kernel of application stream `claimant` with no producer to follow:
  // among the streams of set `k` that no other application stream's work may
  // still occupy, one known to be idle, else the one with the fewest kernels in
  // the window, least recently chosen first. `none` when there is none.
  unsigned pick_least_loaded(std::uintptr_t claimant, unsigned k) noexcept;

  // Stream `i` runs `claimant`'s work from now on.
  void claim(unsigned i, std::uintptr_t claimant) noexcept {
    pool_stream& s = streams_[i];
    if (s.owner == claimant) return;
    priority_set& k = sets_[s.set];
    k.holder = s.owner == no_owner && (k.holder == no_owner || k.holder == claimant) ? claimant : several_owners;
    s.owner = claimant;
  }
  // `owner` is gone (its stream destroyed): its streams pass to `heir`, which launches nothing.
  void disown(std::uintptr_t owner, std::uintptr_t heir) noexcept;

  // Records that stream `to` will run after kernel `seq` of stream `from`.
  // Returns false when that is already known (no wait needed).
  bool note_wait(unsigned to, unsigned from, std::uint64_t seq) noexcept;

  void mark_chosen(unsigned i) noexcept { streams_[i].last_pick = ++picks_; }

  // Kernel `seq` of stream `i` (and all before it) completed.
  void note_complete(unsigned i, std::uint64_t seq) noexcept {
    if (seq > streams_[i].known_complete) streams_[i].known_complete = seq;
  }
  // A host sync, or an event recorded behind everything, saw all of stream `i` complete.
  void note_drained(unsigned i) noexcept {
    streams_[i].held = false;
    note_complete(i, streams_[i].issued);
  }

 private:
  template <class Usable>
  unsigned least_loaded(const priority_set& k, Usable usable) const noexcept;

  backend& gpu_;
  std::vector<pool_stream> streams_;
  std::vector<priority_set> sets_;
  std::uint64_t picks_ = 0;
};

}  // namespace acs
