#pragma once
// The real CUDA runtime behind each runtime hook, one typed member per table line, and the few
// runtime calls the hooks make themselves. Only for the hooks' translation units
// (__CUDA_API_VERSION_INTERNAL: hooks_cuda.hpp). acs's runtime calls the driver, never this.
#include "interpose/hooks_cuda.hpp"
#include "interpose/hooks_table.inc"

namespace acs::real {

struct runtime_reals {
#define ACS_REAL_RUNTIME_HOOKED(symbol, kind) decltype(&::symbol) symbol = nullptr;
  ACS_RUNTIME_HOOKS(ACS_REAL_RUNTIME_HOOKED)
#undef ACS_REAL_RUNTIME_HOOKED
#define ACS_REAL_RUNTIME_USED(symbol) decltype(&::symbol) symbol = nullptr;
  ACS_RUNTIME_USED(ACS_REAL_RUNTIME_USED)
#undef ACS_REAL_RUNTIME_USED
};

// Resolved at the first runtime hook call (the caller's libcudart is loaded by then);
// nullptr if no libcudart can be found at all.
const runtime_reals* runtime() noexcept;

}  // namespace acs::real
