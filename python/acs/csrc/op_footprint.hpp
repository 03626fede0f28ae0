#pragma once
// What one PyTorch operator reads and writes, from its schema and its inputs: the ranges
// the acs.torch integration declares for the kernels launched inside it
// (python/acs/torch/README.md gives the rules and why they are sound).
#include <ATen/core/ivalue.h>
#include <ATen/record_function.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "acs/acs.h"

namespace acs_torch {

// How an operator is declared.
enum class op_kind : std::uint8_t {
  declared,     // reads: its tensor inputs; writes: those its schema (or a known exception) marks written
  transparent,  // returns aliases of its inputs and writes none (view, reshape, split...): declares
                // nothing, so that the operators it calls declare for themselves
  unsafe,       // its kernels may reach memory neither its inputs nor their pointer arguments show
                // (device-side pointer arrays), or its namespace is not trusted: all memory, and
                // nothing inside it declares less
};

// One operator (one overload), read once from its schema.
struct op_info {
  std::string name;                // "aten::add"
  std::size_t arguments = 0;       // schema arguments: inputs() must have as many
  bool vararg = false;             // inputs cannot be matched with arguments: all memory
  std::vector<bool> written;       // per argument
  op_kind kind = op_kind::declared;
};

// What the integration was asked to do (enable()'s options).
struct options {
  bool cpu_tensors = false;                 // declare CPU tensors too (tests on CPU-only builds)
  std::vector<std::string> trusted = {"aten", "prims", "torchvision"};  // namespaces whose schemas are trusted
};

/// @brief The operator's info, cached per schema (a lookup in a thread-local table after the
/// first call). nullptr for a RecordFunction that is not a dispatcher operator.
const op_info* info_of(const at::RecordFunction& fn, const options& o);

/// @brief Forgets the cache (enable() with other options).
void forget_infos();

// The ranges of one declaration. `everything`: an input could not be accounted for.
struct declaration {
  std::vector<acs_range> reads;
  std::vector<acs_range> writes;
  bool everything = false;
  void clear() {
    reads.clear();
    writes.clear();
    everything = false;
  }
};

/// @brief The declaration of a `declared` operator called with `inputs`: the bytes each tensor
/// input can touch (from its data pointer, sizes, strides and element size), as a read, or as a
/// write where `info.written` says so. Undefined tensors and None add nothing; scalars, dtypes,
/// devices, generators and streams hold no device memory; anything else (a custom class, a
/// sparse or nested tensor, a tensor without storage) makes it `everything`.
void declare(const op_info& info, c10::ArrayRef<const c10::IValue> inputs, const options& o, declaration& out);

/// @brief The range that stands for all memory in a declaration (acs.h has no flag for it).
acs_range all_memory() noexcept;

}  // namespace acs_torch
