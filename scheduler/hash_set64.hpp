#pragma once
// A set of 64-bit hashes in one open-addressed table (linear probing, at most half full): what
// launch segments look up and insert per launch (segment_replay.hpp), where a node-based
// std::unordered_set allocated once per insert and cost a never-recurring launch sequence more
// than the launch path itself. Values are hashes, so 0 is stored as 1 (a collision only holds a
// segment sooner, as any hash collision does).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace acs {

class hash_set64 {
 public:
  bool contains(std::uint64_t h) const noexcept {
    if (slots_.empty()) return false;
    h = stored(h);
    for (std::size_t i = h & mask();; i = (i + 1) & mask()) {
      if (slots_[i] == h) return true;
      if (slots_[i] == 0) return false;
    }
  }
  void insert(std::uint64_t h) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    if (place(slots_, stored(h))) ++size_;
  }
  std::size_t size() const noexcept { return size_; }
  void clear() noexcept {
    slots_.assign(slots_.size(), 0);
    size_ = 0;
  }

 private:
  static std::uint64_t stored(std::uint64_t h) noexcept { return h == 0 ? 1 : h; }
  std::size_t mask() const noexcept { return slots_.size() - 1; }
  static bool place(std::vector<std::uint64_t>& slots, std::uint64_t h) noexcept {
    const std::size_t m = slots.size() - 1;
    for (std::size_t i = h & m;; i = (i + 1) & m) {
      if (slots[i] == h) return false;
      if (slots[i] == 0) {
        slots[i] = h;
        return true;
      }
    }
  }
  void grow() {
    std::vector<std::uint64_t> bigger(slots_.empty() ? 1024 : 2 * slots_.size(), 0);
    for (std::uint64_t h : slots_)
      if (h != 0) place(bigger, h);
    slots_.swap(bigger);
  }

  std::vector<std::uint64_t> slots_;  // a power of two in size, or empty
  std::size_t size_ = 0;
};

}  // namespace acs
