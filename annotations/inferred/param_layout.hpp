#pragma once
// Kernel parameter layouts (offset and size of each parameter in the device-side
// parameter buffer), read once per function and cached. Where they come from is
// a layout_reader: the real driver (cuFuncGetParamInfo) in libacs, a fake in tests.
#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "annotations/inferred/kernel_signature.hpp"

namespace acs::inference {

struct param_info {
  std::uint32_t offset = 0;  // in the device-side parameter buffer
  std::uint32_t size = 0;
  param_kind kind = param_kind::value;  // from the kernel's C++ signature, when known
  // Bit i: the kernel may write through the value of the parameter's 8-byte word i
  // (its PTX, ptx_writes.hpp). Words past 64 always may.
  std::uint64_t written_words = ~std::uint64_t{0};

  friend bool operator==(const param_info&, const param_info&) = default;

  /// @brief Whether the kernel may write through the word at `offset` in the parameter buffer.
  bool may_write_at(std::uint32_t buffer_offset) const noexcept {
    const std::uint32_t word = (buffer_offset - offset) / 8;
    return word >= 64 || ((written_words >> word) & 1u) != 0;
  }
};

struct param_layout : std::vector<param_info> {
  using std::vector<param_info>::vector;
  // What the kernel's code says it reaches beyond the allocations its arguments point into (its
  // PTX, ptx_writes.hpp, applied by apply_writes). Without code_read nothing below is known.
  bool code_read = false;
  bool writes_globals = false;   // writes module-scope __device__ variables
  bool writes_anywhere = false;  // writes through addresses read from memory, or runs code not analysed
  bool reads_anywhere = false;   // reads through addresses read from memory (pointer tables)
  bool textures = false;         // texture or surface instructions: memory behind object handles
};

// The kernel parameter buffer is at most 32764 bytes (CUDA 12.1+, Volta+).
inline constexpr std::uint32_t max_param_bytes = 32764;

/// @brief Whether a layout is one the driver could have produced: at least one
/// parameter, sizes non-zero, offsets increasing without overlap, within the limit.
bool plausible_layout(const param_layout& layout) noexcept;

class layout_reader {
 public:
  virtual ~layout_reader() = default;
  /// @brief Reads the layout of `function` (a CUfunction, or a CUkernel cast to one).
  /// False when it cannot be read; a kernel without parameters counts as unreadable.
  virtual bool read(const void* function, param_layout& out) = 0;
};

// Layouts by function handle, each read once (failures too). Lookups hit a
// small per-thread cache first, then a shared-locked map. Layouts are never
// freed while the cache lives, so a pointer handed out stays valid.
class layout_cache {
 public:
  explicit layout_cache(layout_reader& reader);
  layout_cache(const layout_cache&) = delete;
  layout_cache& operator=(const layout_cache&) = delete;

  /// @brief The layout of `function`, or nullptr when it cannot be read.
  const param_layout* find(const void* function);

  /// @brief Whether `function`'s layout (or its unreadability) is known already: find() would
  /// not ask the reader.
  bool cached(const void* function);

  /// @brief Modules were unloaded: a handle may now name another kernel. Forget all.
  void clear() noexcept;

  /// @brief How many times the reader was asked (for tests).
  std::uint64_t reads() const noexcept { return reads_.load(std::memory_order_relaxed); }

 private:
  const param_layout* lookup_slow(const void* function, std::uint64_t generation);

  layout_reader& reader_;
  std::atomic<std::uint64_t> generation_;  // unique across caches, renewed by clear()
  std::atomic<std::uint64_t> reads_{0};
  std::shared_mutex mutex_;
  std::unordered_map<const void*, const param_layout*> known_;  // nullptr: unreadable
  std::deque<param_layout> store_;                              // never shrinks
};

}  // namespace acs::inference
