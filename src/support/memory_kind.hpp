#pragma once
// What kind of memory an allocation is: reported by the hooks (dispatch.hpp, from the entry
// point that made it) and recorded in the allocation map. Apart from both so that neither
// depends on the other for it.
#include <cstdint>

namespace acs {

enum class memory_kind : std::uint8_t {
  device,  // cudaMalloc, cuMemAlloc, managed memory, pools, IPC, virtual-memory mappings
  host,    // pinned host memory, mapped into the device's address space: cudaHostAlloc,
           // cudaMallocHost, cuMemHostAlloc, cudaHostRegister... (docs/design.md rule 11)
};

}  // namespace acs
