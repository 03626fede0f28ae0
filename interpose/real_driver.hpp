#pragma once
// The real CUDA driver, for the hooks' own calls. acs never calls CUDA through its hooks (nor by
// name: libacs.so does not link libcuda); it calls real pointers, resolved once by exact symbol
// from the libcuda.so.1 the application loaded. (The runtime side uses the same principle with
// its own table, interpose/runtime_driver.hpp.)
//
// Usage:
//   const acs::real::driver_api* cu = acs::real::driver();
//   if (cu == nullptr) ...;                  // no driver in the process (yet): pass through
//   CUresult r = cu->cuEventRecord(event, stream);
//
// Members are named by exported symbol, ABI suffix included (cuStreamDestroy_v2), so the call
// is unambiguous whatever cuda.h's macros say. To call an entry point that is missing here, add
// it to ACS_DRIVER_USED in hooks_table.inc. A member is nullptr when the installed driver lacks
// that symbol.
#include <cuda.h>
#include <cudaTypedefs.h>

#include "hooks_table.inc"

namespace acs::real {

struct driver_api {
#define ACS_REAL_DRIVER_MEMBER(symbol, pfn) pfn symbol = nullptr;
  ACS_DRIVER_USED(ACS_REAL_DRIVER_MEMBER)
#undef ACS_REAL_DRIVER_MEMBER
};

// nullptr while libcuda.so.1 is not loaded; then the same table for the life of the process.
const driver_api* driver() noexcept;

}  // namespace acs::real
