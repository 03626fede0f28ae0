#pragma once
// A vector clock: component i is the latest tick of timeline i (a stream, or
// the host) known to happen before the owner.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace acs::sim {

class vector_clock {
 public:
  std::uint32_t get(std::size_t i) const noexcept { return i < ticks_.size() ? ticks_[i] : 0; }
  void set(std::size_t i, std::uint32_t tick) {
    if (i >= ticks_.size()) ticks_.resize(i + 1, 0);
    ticks_[i] = tick;
  }
  void join(const vector_clock& other) {
    if (other.ticks_.size() > ticks_.size()) ticks_.resize(other.ticks_.size(), 0);
    for (std::size_t i = 0; i < other.ticks_.size(); ++i) ticks_[i] = std::max(ticks_[i], other.ticks_[i]);
  }

 private:
  std::vector<std::uint32_t> ticks_;
};

}  // namespace acs::sim
