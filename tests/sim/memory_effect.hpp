#pragma once
// What one operation does to the simulated memory, and the serial reference
// that applies such effects one at a time, in issue order. The simulated device
// and the reference share `outputs`, so a final state that differs from the
// reference can only come from a different order of effects.
#include <cstdint>
#include <vector>

namespace acs::sim {

using cell = std::uint32_t;
using value = std::uint64_t;

// An operation reads `reads` when it starts and writes `writes` when it ends.
struct memory_effect {
  enum class rule : std::uint8_t {
    hash,  // each written cell gets a hash of `seed`, the values read and the cell
    copy,  // writes[i] gets the value of reads[i]
    fill,  // every written cell gets `seed`
  };
  rule how = rule::hash;
  std::uint64_t seed = 0;
  std::vector<cell> reads;
  std::vector<cell> writes;
};

value initial_value(cell c) noexcept;

// The values an effect writes, in the order of `e.writes`.
std::vector<value> outputs(const memory_effect& e, const std::vector<value>& read_values);

// Memory as it is after running effects one at a time.
class serial_memory {
 public:
  explicit serial_memory(std::uint32_t cells);
  void apply(const memory_effect& e);
  value operator[](cell c) const { return cells_[c]; }
  const std::vector<value>& cells() const noexcept { return cells_; }

 private:
  std::vector<value> cells_;
};

}  // namespace acs::sim
