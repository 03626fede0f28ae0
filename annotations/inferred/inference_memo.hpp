#pragma once
// The footprints of a thread's recent launches. A loop launches the same kernels with the same
// argument bytes again and again; while the allocation maps are unchanged, inference (its
// look-ups, inference.hpp) gives such a launch the footprint it gave before, so it is taken
// from here: a hash of the argument words and one comparison in place of a look-up per word.
//
// Sound because inference is a function of what the key holds: the kernel's parameter layout
// (layouts are never freed or changed once stored, param_layout.hpp, so its address names it),
// the argument bytes inference reads (read_bytes, inference.hpp: the words that can hold a
// pointer; a scalar argument that changes at every launch, a step count or a time, leaves the
// footprint and the memo's entry as they were), the options, and the allocation and
// sub-allocation maps, whose generations change on every insert and erase. Pointers the maps do not know were answered by the probe,
// whose answers are kept per thread until the next allocation or free (driver_inference.cpp):
// the same answer again. The generations are read before inference runs, so a result computed
// while a map changed is stored under the old generation and never found again.
//
// Not memoized: launches with `extra` (packed arguments), without a layout, or with more than
// max_bytes of arguments (PyTorch's tensor lists: kilobytes, rarely equal twice), and kernels
// whose arguments inference does not read (code not read, options.code_required).
//
// One per thread (not thread-safe); direct-mapped, `slots` entries, each overwritten by the
// next launch that maps to it. Each entry also names the entry the thread's next launch used
// last time: in a loop that is the next launch's again, tried first, without the hash (a
// prediction that fails costs one comparison, then the hash as before). A prediction is only a
// guess at where to look: the entry is used only if everything it was stored under is equal.
#include <cstdint>
#include <memory>
#include <vector>

#include "annotations/inferred/inference.hpp"
#include "annotations/inferred/suballocations.hpp"

namespace acs::inference {

class inference_memo {
 public:
  static constexpr std::size_t slots = 256;
  static constexpr std::uint32_t max_bytes = 512;

  /// @brief infer()'s result for the launch (inference.hpp), from the memo when it holds it.
  /// The sub-allocations are the process's (device_suballocations()), as infer() reads them.
  inference_result infer(const param_layout* layout, void* const* params, void* const* extra,
                         const allocation_map& allocations, pointer_probe& probe, access_set& out,
                         const inference_options& options = {});

  /// @brief The slot a launch's entry takes: tests that count hits choose launches whose slots
  /// differ (the hash covers the layout's address, which moves from run to run).
  static std::size_t slot_of(const param_layout* layout, void* const* params) noexcept;

  std::uint64_t hits() const noexcept { return hits_; }
  std::uint64_t misses() const noexcept { return misses_; }
  /// @brief Of the hits, those found as the entry that followed the previous launch last time.
  std::uint64_t predicted() const noexcept { return predicted_; }

 private:
  struct entry {
    const param_layout* layout = nullptr;  // nullptr: empty
    std::uint64_t hash = 0;
    std::uint64_t allocations = 0, suballocations = 0;  // the maps' generations
    unsigned options = 0;
    inference_result result = inference_result::inferred;
    std::vector<unsigned char> arguments;  // at the layout's offsets
    access_set access;
    std::uint32_t next = slots;  // the entry the launch after this one used last time; slots: none
  };
  // The launch just made used entry `index`: the previous entry's successor, and the new previous.
  void follow(std::uint32_t index) noexcept;

  std::unique_ptr<entry[]> entries_;  // made at the first launch that can use it
  std::uint32_t last_ = slots;        // the entry the previous launch used; slots: none
  std::uint64_t hits_ = 0, misses_ = 0, predicted_ = 0;
};

}  // namespace acs::inference
