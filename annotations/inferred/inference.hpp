#pragma once
// Footprints inferred from kernel arguments, for kernels nothing was declared for.
// (An "allocation" below is the sub-allocation containing the word where the program
// registered some, suballocations.hpp.)
//
// Rule. Every 8-byte-aligned word of the arguments (pointer parameters, and the
// aligned words inside larger struct parameters) is looked up in the allocation
// map. A word inside a known allocation makes that whole allocation read and
// written; only read when the kernel's PTX shows that no address it writes
// through is derived from that word (param_info::written_words, ptx_writes.hpp).
// The footprint is the union of those allocations, unless one of these
// makes it unknown, and then the kernel conflicts with everything
// (docs/design.md rule 9):
//  * the parameter layout cannot be read, or `extra` cannot be parsed;
//  * a word is pointer-looking (below) and points into no known allocation;
//  * no word points into a known allocation that is written: whatever the kernel
//    changes (__device__ variables, memory reached through device-side pointer
//    tables) is invisible from its arguments;
//  * the kernel's PTX writes __device__ variables, writes through an address read
//    from memory (pointer tables, device-side pointer arrays), calls code it does
//    not analyse, or uses texture or surface instructions;
//  * its code was not read (no PTX: SASS-only libraries) and the options ask for
//    it (ACS_NO_PTX=everything, the default): such a kernel may reach memory through
//    device-side pointer arrays that no argument shows.
// A kernel whose PTX reads through an address read from memory reads everything:
// its reads are the whole address space, its writes stay those inferred.
//
// Pinned host memory. Under options.order_host_mapped, a kernel whose footprint
// touches pinned host memory also writes host_order_token: all such kernels of a
// stream then keep their order among themselves (write after write), because the
// host may poll that memory and see the order in which their writes land
// (docs/design.md rule 11). Managed memory does not count.
//
// Pointer-looking. A word outside every known allocation is a pointer when
//  * it is a plausible user-space address: in [64 KiB, 2^57). Linux never maps
//    the first 64 KiB (vm.mmap_min_addr), and no user-space address reaches
//    2^57 even with 5-level paging. Small integers and most doubles and float
//    pairs fall outside; and
//  * the driver says it is device-accessible memory (cuPointerGetAttribute;
//    1.1 µs on a miss, so the answer is cached per thread until the next
//    allocation or free). That catches memory acs did not see allocated.
// A plausible word within 64 KiB of a known allocation (`a - 1`, one past the
// end) also adds that allocation, as pointer arithmetic around it may.
//
// Not seen, by construction: pointers stored off 8-byte alignment (packed
// structs), pointer arithmetic that lands inside another allocation, and pointers
// to pageable host memory on systems where kernels may use it (HMM/ATS) when the
// driver does not report it. __device__ variables are covered only in kernels
// without a written pointer argument, or whose PTX acs could read.
#include <cstdint>
#include <optional>
#include <vector>

#include "annotations/inferred/allocation_map.hpp"
#include "scheduler/byte_range.hpp"
#include "annotations/inferred/param_layout.hpp"

namespace acs::inference {

inline constexpr address min_pointer = 0x10000;
inline constexpr address pointer_limit = address{1} << 57;
inline constexpr std::uint64_t near_slack = 64 * 1024;

/// @brief Whether `v` could be a user-space address at all.
constexpr bool plausible_address(address v) noexcept { return v >= min_pointer && v < pointer_limit; }

/// @brief The bytes of a parameter that inference reads: its whole 8-byte words, where it starts
/// 8-byte aligned in the device layout (only such a parameter can hold a pointer, or a struct
/// with one); none of any other (a 4-byte scalar, a step count or a time). A launch's footprint
/// depends on these bytes alone, so the memo compares only them (inference_memo.hpp).
constexpr std::uint32_t word_bytes = 8;
constexpr std::uint32_t read_bytes(const param_info& p) noexcept {
  return p.offset % word_bytes != 0 ? 0 : p.size / word_bytes * word_bytes;
}

/// @brief One 8-byte-aligned word of a launch's arguments.
struct argument_word {
  std::uint32_t param = 0;   // parameter index; for an `extra` buffer read without layout, offset / 8
  std::uint32_t offset = 0;  // offset in the device-side parameter buffer
  address value = 0;
};

enum class words_status : std::uint8_t {
  ok,
  no_layout,   // params given but the layout is unknown
  bad_extra,   // `extra` not made of BUFFER_POINTER / BUFFER_SIZE, or too short
  unreadable,  // a null argument pointer, or both params and extra
};

/// @brief Appends every aligned word of the arguments. `params` is cuLaunchKernel's
/// kernelParams (one pointer per parameter); `extra` its alternative. `layout` may
/// be nullptr; `extra` is then scanned whole.
words_status argument_words(const param_layout* layout, void* const* params, void* const* extra,
                            std::vector<argument_word>& out);

/// @brief Whether an address outside every known allocation is device-accessible memory.
class pointer_probe {
 public:
  virtual ~pointer_probe() = default;
  virtual bool is_device_pointer(address value) noexcept = 0;
};

enum class inference_result : std::uint8_t {
  inferred,         // the footprint is the allocations found
  no_layout,        // the rest: the footprint is everything
  bad_extra,
  unreadable,
  unknown_pointer,  // a pointer into memory acs did not see allocated
  no_allocation,    // no argument points into a known allocation
  indirect,         // a parameter reaches memory through device-side pointers (T**)
  global_writes,    // the kernel's PTX writes module-scope variables (__device__)
  writes_anywhere,  // its PTX writes through addresses read from memory, or calls code not analysed
  textures,         // its PTX uses texture or surface instructions
  no_code,          // its code was not read (no PTX), and options.code_required
};

/// @brief How inference treats what the arguments alone cannot tell (the runtime's settings).
struct inference_options {
  bool trust_const = false;        // ACS_INFER=const: pointer-to-const parameters are only read
  bool code_required = false;      // ACS_NO_PTX=everything: a kernel whose code was not read is unknown
  bool order_host_mapped = false;  // ACS_HOST_MAPPED=ordered: kernels on pinned host memory keep order
};

// The range every kernel on pinned host memory writes (above): inside the first 64 KiB, where no
// allocation lies, so it conflicts with nothing but itself and unknown footprints.
inline constexpr byte_range host_order_token{0x100, 0x100};

/// @brief Adds host_order_token to the writes of a footprint (a declared one) that touches pinned
/// host memory. Nothing when the map holds none, or the footprint writes everything already.
void order_host_memory(const allocation_map& allocations, access_set& access);

const char* to_string(inference_result r) noexcept;

/// @brief Infers the footprint of one launch into `out` (cleared first). Anything
/// but `inferred` leaves access_set::everything() in `out`.
/// With `options.trust_const`, an allocation reached only through pointer-to-const
/// parameters is read, not written.
inference_result infer(const param_layout* layout, void* const* params, void* const* extra,
                       const allocation_map& allocations, pointer_probe& probe, access_set& out,
                       const inference_options& options = {});

/// @brief An argument word that is, or may be, a device pointer (for ACS_CHECK).
struct pointer_argument {
  argument_word word;
  std::optional<byte_range> allocation;  // the known allocation containing it, or the nearest one
  bool inside = false;                   // `allocation` contains the word (else it is near it)
  bool unseen = false;                   // device memory acs did not see allocated
  bool uncharted = false;  // in an allocation with sub-allocations, but in none: `allocation` is all of it
};

/// @brief Lists the words of a launch that are or may be device pointers.
words_status pointer_arguments(const param_layout* layout, void* const* params, void* const* extra,
                               const allocation_map& allocations, pointer_probe& probe,
                               std::vector<pointer_argument>& out);

}  // namespace acs::inference
