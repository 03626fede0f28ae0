#pragma once
// A conservative summary of window entries folded out while still running.
// It keeps a bounded, coalesced cover of their ranges and, per pool stream, the
// event of the latest folded kernel: waiting on it also covers every earlier
// kernel of that pool stream. A dependency may be over-approximated here,
// never lost.
#include <cstdint>
#include <vector>

#include "scheduler/backend.hpp"
#include "scheduler/byte_range.hpp"
#include "scheduler/window.hpp"

namespace acs {

// A set of ranges kept to at most `limit` entries by merging the closest
// neighbours: the result always covers every range added.
class bounded_cover {
 public:
  explicit bounded_cover(std::size_t limit = 8) : limit_(limit < 1 ? 1 : limit) {}
  void add(const byte_range& r);
  void clear() noexcept { ranges_.clear(); }
  const std::vector<byte_range>& ranges() const noexcept { return ranges_; }
  bool covers(const byte_range& r) const noexcept;

 private:
  std::size_t limit_;
  std::vector<byte_range> ranges_;  // sorted, disjoint, non-adjacent
};

struct folded_event {
  unsigned stream = 0;
  std::uint64_t seq = 0;
  event_handle event = 0;
};

class range_summary {
 public:
  bool empty() const noexcept { return events_.empty(); }

  // Folds `entry` in; returns the event it no longer needs (0 if none): the
  // entry's own event when a later one on the same pool stream is already held,
  // or the held one it replaces.
  event_handle fold(const window_entry& entry);

  // Whether a task with this footprint (or group) must follow the folded work.
  bool depends(const access_set& access, std::uint64_t group) const noexcept;

  const std::vector<folded_event>& events() const noexcept { return events_; }
  // The latest issue stamp folded in, to tell whether a host sync covered them all.
  std::uint64_t last_stamp() const noexcept { return last_stamp_; }

  // Takes over everything `other` holds, leaving it empty; events no longer
  // needed are appended to `released`.
  void absorb(range_summary& other, std::vector<event_handle>& released);

  // Empties the summary; the held events are appended to `released`. Inline where it holds
  // nothing: a relayed stream's summaries stay empty (its work is issued directly on it, ACS_RELAY),
  // and the check costs a few instructions where the call cost about 40 at every relayed launch.
  void clear(std::vector<event_handle>& released) {
    if (!holds_nothing()) clear_held(released);
  }

 private:
  bool holds_nothing() const noexcept {
    return last_stamp_ == 0 && events_.empty() && reads_.ranges().empty() && writes_.ranges().empty() &&
           groups_.empty() && !all_groups_;
  }
  void clear_held(std::vector<event_handle>& released);
  void note_group(std::uint64_t group);
  // Keeps the later of `f` and the held event of its pool stream; returns the other.
  event_handle hold(const folded_event& f);

  bounded_cover reads_;
  bounded_cover writes_;
  std::vector<std::uint64_t> groups_;  // bounded; `all_groups_` once it overflows
  bool all_groups_ = false;
  std::vector<folded_event> events_;   // at most one per pool stream
  std::uint64_t last_stamp_ = 0;
};

}  // namespace acs
