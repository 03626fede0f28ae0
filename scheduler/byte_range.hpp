#pragma once
// Byte ranges and the access sets of one task. No CUDA headers here: the
// scheduler is tested on a simulated device.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace acs {

using address = std::uint64_t;
inline constexpr address address_max = std::numeric_limits<address>::max();

// Inclusive [first, last]: an inclusive bound lets a range end on the very last
// byte of the address space, which a half-open end cannot represent.
struct byte_range {
  address first = 0;
  address last = 0;

  friend bool operator==(const byte_range&, const byte_range&) = default;
};

// Why make_range produced what it did; callers that take user input warn on it.
enum class range_issue : std::uint8_t { none, empty, wraps };

struct made_range {
  byte_range range;
  range_issue issue = range_issue::none;
};

// [base, base + size). Zero size is empty (touches nothing). A range that runs
// past the top of the address space is clamped to the top: conservative.
constexpr made_range make_range(address base, std::uint64_t size) noexcept {
  if (size == 0) return {{}, range_issue::empty};
  if (size - 1 > address_max - base) return {{base, address_max}, range_issue::wraps};
  return {{base, base + (size - 1)}, range_issue::none};
}

constexpr bool overlaps(const byte_range& a, const byte_range& b) noexcept {
  return a.first <= b.last && b.first <= a.last;
}

inline constexpr byte_range whole_address_space{0, address_max};

// The smallest range covering both.
constexpr byte_range hull(const byte_range& a, const byte_range& b) noexcept {
  return {a.first < b.first ? a.first : b.first, a.last > b.last ? a.last : b.last};
}

// What a task reads and writes. An unknown footprint is a write of everything:
// it then conflicts with every other task, in every direction.
struct access_set {
  std::vector<byte_range> reads;
  std::vector<byte_range> writes;

  static access_set everything() { return {{}, {whole_address_space}}; }
  void read(address base, std::uint64_t size) { add(reads, base, size); }
  void write(address base, std::uint64_t size) { add(writes, base, size); }
  void read_write(address base, std::uint64_t size) {
    read(base, size);
    write(base, size);
  }
  bool empty() const noexcept { return reads.empty() && writes.empty(); }

 private:
  static void add(std::vector<byte_range>& to, address base, std::uint64_t size) {
    const made_range m = make_range(base, size);
    if (m.issue != range_issue::empty) to.push_back(m.range);
  }
};

// A footprint that conflicts with everything either of two tasks conflicts with: the union,
// with reads already inside a write left out (a write conflicts with all a read does).
// False, leaving `out` unspecified, when it would hold more than `max_ranges` ranges.
bool merge_footprints(const std::vector<byte_range>& earlier_reads, const std::vector<byte_range>& earlier_writes,
                      const access_set& later, std::size_t max_ranges, access_set& out);

// Read-after-write, write-after-read or write-after-write between an earlier
// task with these reads and writes and a later one. The one statement of the
// rule, over plain arrays of ranges: the window, the fold summaries and a
// stream's previous launch (recent_footprint, which keeps its ranges in place) ask it.
constexpr bool conflicts(std::span<const byte_range> earlier_reads, std::span<const byte_range> earlier_writes,
                         std::span<const byte_range> later_reads, std::span<const byte_range> later_writes) noexcept {
  const auto any_overlap = [](std::span<const byte_range> a, std::span<const byte_range> b) {
    for (const byte_range& x : a)
      for (const byte_range& y : b)
        if (overlaps(x, y)) return true;
    return false;
  };
  return any_overlap(earlier_writes, later_reads)      // read after write
         || any_overlap(earlier_reads, later_writes)   // write after read
         || any_overlap(earlier_writes, later_writes); // write after write
}
bool conflicts(const std::vector<byte_range>& earlier_reads, const std::vector<byte_range>& earlier_writes,
               const access_set& later) noexcept;
inline bool conflicts(const access_set& earlier, const access_set& later) noexcept {
  return conflicts(earlier.reads, earlier.writes, later);
}

// Whether every task that conflicts with an earlier task of these reads and
// writes also conflicts with `later`: its writes cover the earlier writes, its
// reads and writes together cover the earlier reads (each range inside one of
// `later`'s: sufficient, not necessary).
bool shadows(const std::vector<byte_range>& earlier_reads, const std::vector<byte_range>& earlier_writes,
             const access_set& later) noexcept;

}  // namespace acs
