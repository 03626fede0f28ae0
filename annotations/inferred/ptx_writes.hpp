#pragma once
// Which parameter words a kernel may write through, proved from its PTX.
//
// A flow-insensitive taint analysis over each .entry: every register carries the
// set of parameter words (and module .global addresses) its value may be derived
// from; a word is "written" when it reaches an instruction that writes memory, or
// when it escapes what the analysis follows (stored to memory, passed to a call,
// its parameter's address taken). Over-approximating throughout: a word wrongly
// reported read only would let acs run a writer concurrently with a reader of
// the same data, silently, so every doubt is resolved towards "written".
//
// The analysis also notices writes whose address it cannot attribute: through a
// pointer loaded from memory (T**, pointer tables, a __device__ pointer variable),
// through a call into a function it does not analyse, or through an instruction it
// does not know. Such a write may land in any allocation, including one reached
// through a parameter that is otherwise only read, so the kernel then reports
// every word of every parameter written (writes_indirect says why), and the caller
// must treat it as writing everything (docs/design.md rule 9). Reads are checked the
// same way (reads_indirect): a kernel that reads through a pointer loaded from memory
// may read any allocation. Texture and surface instructions reach memory through
// object handles (uses_textures).
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace acs::inference {

/// @brief What one kernel (.entry) may write through its parameters, and whether it may reach
/// memory that they do not show.
struct kernel_writes {
  std::string name;                        // the .entry's (mangled) name
  std::vector<std::uint32_t> param_bytes;  // size in bytes of each parameter, in declaration order
  // (parameter index, byte offset within the parameter / 8) of every 8-byte word whose value may
  // flow into an address the kernel writes through, or may escape analysis; sorted, unique.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> written_words;
  bool writes_globals = false;  // may write through the address of a module-scope .global variable
  // Names of the module-scope .global variables whose address may be written through; sorted,
  // unique. Complete unless writes_indirect (then any global may be written).
  std::vector<std::string> written_globals;
  // May write through an address not derived from its parameters, module globals or its own
  // shared/local memory (a pointer loaded from memory, an unanalysed call, an unknown
  // instruction). Then written_words holds every word of every parameter and writes_globals is
  // set: any allocation may be written.
  bool writes_indirect = false;
  // May read through an address not derived from its parameters, module globals or its own memory
  // (a pointer loaded from memory: Params* p -> p->in[i], a device-side pointer array, an offset
  // read from an index array), or through a call or instruction not analysed: any allocation may
  // be read, one that no argument shows included. Loads from .const memory do not count (kernels
  // cannot write it).
  bool reads_indirect = false;
  // Uses texture or surface instructions (tex, tld4, suld, sust, sured): they reach memory through
  // an object handle, created on the host, that no argument shows.
  bool uses_textures = false;

  /// @brief Whether the word holding byte `byte_offset` of parameter `param` may be written through.
  /// Out-of-range parameters (and offsets): true.
  bool may_write(std::uint32_t param, std::uint32_t byte_offset) const noexcept;
};

/// @brief Analyses every .entry of one PTX module (text as nvcc/ptxas accept it). Entries it cannot
/// parse with confidence are left out of the result (the caller then assumes everything written).
std::vector<kernel_writes> analyse_ptx(std::string_view ptx);

}  // namespace acs::inference
