#pragma once
// What becomes of a pool stream's last kernel (its "tail", whose event is not recorded yet)
// when the next kernel goes behind it on the same pool stream, and the heuristic that decides
// whether chains merge (ACS_MERGE, scheduler_config::merge).
//
// The tail is shadowed when the new kernel covers it: same virtual stream, no scope, and
// every later kernel that would depend on the tail depends on the new one, which runs after
// it here. Then no event is ever needed for it; it leaves the window once the new kernel is
// launched. Or it merges: when the new kernel depends on the tail, the tail's footprint joins
// the new kernel's window entry, and what would have waited for the tail waits for the new
// kernel as well (later than needed, never earlier). Otherwise its event is recorded now.
//
// Merging pays when nothing on another pool stream waits for a kernel that already has a
// successor on its own (such a wait is late). The score rises with each such wait and falls
// by one per launch; `adaptive` merges only while it is low. It starts high: a program's first
// launches show what it does.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "scheduler/byte_range.hpp"
#include "scheduler/scheduler_config.hpp"
#include "scheduler/window.hpp"

namespace acs {

enum class tail_fate : std::uint8_t {
  record,    // its event must be recorded before anything more is issued on its pool stream
  shadowed,  // the new kernel covers it: it never needs an event
  merged,    // its footprint joins the new kernel's entry (merged_access)
};

class chain_merger {
 public:
  explicit chain_merger(chain_merge mode) noexcept : mode_(mode) {}

  // Before the pool stream is chosen: a dependency on a merged entry for a producer merged
  // into it, not for the entry's own kernel, is a late wait (merging made it wait for that
  // kernel too). Only the adaptive mode keeps score.
  void note_merged_dependencies(const window& win, const std::vector<slot_id>& dep_slots,
                                const access_set& access) {
    if (mode_ != chain_merge::adaptive) return;
    for (slot_id d : dep_slots) {
      const window_entry& e = win[d];
      if (e.merged && !conflicts(e.own, access)) late_wait();
    }
  }
  // Once per launch, before settle: the score decays.
  void next_launch() noexcept {
    if (score_ > 0) --score_;
  }
  // The fate of tail entry `tail` (slot `t`) of the chosen pool stream, for a new kernel of
  // virtual stream `vstream` with footprint `access`, scope `group`, depending on `dep_slots`.
  // At nearly every launch: inlined into it.
  [[gnu::always_inline]] tail_fate settle(const window_entry& tail, slot_id t, std::uintptr_t vstream,
                                          const access_set& access, std::uint64_t group,
                                          const std::vector<slot_id>& dep_slots) {
    if (group != 0 || tail.group != 0 || tail.vstream != vstream) return tail_fate::record;
    if (shadows(tail.reads, tail.writes, access)) return tail_fate::shadowed;
    if (may_merge() && std::find(dep_slots.begin(), dep_slots.end(), t) != dep_slots.end() &&
        merge_footprints(tail.reads, tail.writes, access, max_merged_ranges, merged_))
      return tail_fate::merged;
    return tail_fate::record;
  }
  // After settle returned `merged`: the new kernel's window entry.
  const access_set& merged_access() const noexcept { return merged_; }
  // A wait from pool stream `from` for kernel `seq` of pool stream `stream`, on which
  // `issued` kernels were issued: late if that kernel already has a successor there.
  void note_wait_for(unsigned stream, std::uint64_t seq, std::uint64_t issued, unsigned from) noexcept {
    if (stream != from && seq < issued) late_wait();
  }

 private:
  static constexpr unsigned score_start = 64, score_below = 16, score_step = 8, score_max = 256;
  static constexpr std::size_t max_merged_ranges = 8;

  bool may_merge() const noexcept {
    switch (mode_) {
      case chain_merge::always: return true;
      case chain_merge::never: return false;
      case chain_merge::adaptive: return score_ < score_below;
    }
    return false;
  }
  void late_wait() noexcept { score_ = std::min(score_ + score_step, score_max); }

  chain_merge mode_;
  unsigned score_ = score_start;
  access_set merged_;  // scratch: the entry of a kernel that merged its producer
};

}  // namespace acs
