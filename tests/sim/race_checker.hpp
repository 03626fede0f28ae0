#pragma once
// A happens-before race checker over the simulated memory cells, in the style
// of FastTrack: per cell, the last write and the reads since it. An access that
// conflicts with one of them without being ordered after it by happens-before
// is a race, whatever the timing happened to be. Reporting against the last
// write and the reads since it is enough: if some older access races with the
// new one, so does one of these (ordering is transitive).
#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "memory_effect.hpp"
#include "vector_clock.hpp"

namespace acs::sim {

// Who accessed a cell: the operation, and its tick on its own timeline.
struct access_tag {
  std::uint64_t op = 0;
  std::uint32_t timeline = 0;
  std::uint32_t tick = 0;
};

// Named by the order in which the two accesses happened in simulated time.
enum class race_kind : std::uint8_t { read_after_write, write_after_read, write_after_write };

// `earlier` accessed `where` first in simulated time; neither happens before the other.
struct race {
  cell where = 0;
  std::uint64_t earlier = 0;
  std::uint64_t later = 0;
  race_kind kind = race_kind::read_after_write;
};

class race_checker {
 public:
  explicit race_checker(std::uint32_t cells) : cells_(cells) {}

  // `clock` is the accessing operation's vector clock.
  void read(cell c, const access_tag& who, const vector_clock& clock);
  void write(cell c, const access_tag& who, const vector_clock& clock);

  const std::vector<race>& races() const noexcept { return races_; }

 private:
  struct history {
    std::optional<access_tag> last_write;
    std::vector<access_tag> reads;  // since the last write; the latest per timeline
  };

  void check(cell c, const access_tag& earlier, const access_tag& later, const vector_clock& clock,
             race_kind kind);

  std::vector<history> cells_;
  std::vector<race> races_;
  std::set<std::pair<std::uint64_t, std::uint64_t>> reported_;  // one report per pair of ops
};

}  // namespace acs::sim
