// A tensor across the seam of two chunks mapped into one virtual-memory reservation
// (docs/design.md rule 10) [vmm_reservation], as PyTorch's expandable segments lay them out.
//
//   vmm seam [--reps=4] [--min-us=500]
//       reserves two granules of address space, maps a physical chunk into each, and runs, per
//       rep: a slow writer of T (its pointer in the first chunk, T running into the second); a
//       reader of T's second half (its pointer in the second chunk); a slow reader of T's first
//       half through a pointer in the second chunk (indexing backwards); a fast overwrite of T
//       through the first chunk. Each pair shares only memory across the seam: if acs took each
//       chunk for an allocation of its own, the readers would see stale or overwritten data.
//
// The driver's virtual-memory functions come through cudaGetDriverEntryPointByVersion, as
// PyTorch's allocator finds them (the programs never link libcuda.so.1: without a driver they
// must skip, not fail to start).
#include <string>
#include <vector>

#include "common.cuh"
#include "driver_api.cuh"

using std::uint32_t;
using stamp_t = unsigned long long;

namespace {

constexpr int grid = 8, block = 256;
constexpr int half = 1 << 16;  // words of T on each side of the seam

// t[i] = f(i, salt) for i < n, after lasting min_ns.
__global__ void slow_write(uint32_t* t, int n, uint32_t salt, stamp_t min_ns) {
  acs_test::spin_for(min_ns);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    t[i] = acs_test::mix32(static_cast<uint32_t>(i) * 0x9e3779b9u + salt);
}

__global__ void read_forward(uint32_t* out, const uint32_t* from, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = from[i];
}

// out[i] = end[-1 - i], after lasting min_ns: `end` points into the second chunk, the words read
// lie in the first.
__global__ void slow_read_backward(uint32_t* out, const uint32_t* end, int n, stamp_t min_ns) {
  acs_test::spin_for(min_ns);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = end[-1 - i];
}

struct vmm_api {
  PFN_cuCtxGetDevice_v2000 ctx_get_device = nullptr;
  PFN_cuDeviceGetAttribute_v2000 device_get_attribute = nullptr;
  PFN_cuMemGetAllocationGranularity_v10020 granularity = nullptr;
  PFN_cuMemAddressReserve_v10020 reserve = nullptr;
  PFN_cuMemAddressFree_v10020 address_free = nullptr;
  PFN_cuMemCreate_v10020 create = nullptr;
  PFN_cuMemRelease_v10020 release = nullptr;
  PFN_cuMemMap_v10020 map = nullptr;
  PFN_cuMemUnmap_v10020 unmap = nullptr;
  PFN_cuMemSetAccess_v10020 set_access = nullptr;
};

template <class F>
void resolve(F& out, const char* symbol, unsigned version) {
  out = reinterpret_cast<F>(acs_test::driver_entry_point(symbol, version));
}

vmm_api load_api() {
  vmm_api a;
  resolve(a.ctx_get_device, "cuCtxGetDevice", 2000);
  resolve(a.device_get_attribute, "cuDeviceGetAttribute", 2000);
  resolve(a.granularity, "cuMemGetAllocationGranularity", 10020);
  resolve(a.reserve, "cuMemAddressReserve", 10020);
  resolve(a.address_free, "cuMemAddressFree", 10020);
  resolve(a.create, "cuMemCreate", 10020);
  resolve(a.release, "cuMemRelease", 10020);
  resolve(a.map, "cuMemMap", 10020);
  resolve(a.unmap, "cuMemUnmap", 10020);
  resolve(a.set_access, "cuMemSetAccess", 10020);
  return a;
}

void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  std::fprintf(stderr, "FAILED: %s returned %d\n", what, static_cast<int>(r));
  std::exit(1);
}

int seam(int reps, stamp_t min_ns, cudaStream_t s) {
  ACS_CHECK(cudaFree(nullptr));  // the primary context, current
  const vmm_api api = load_api();
  CUdevice device = 0;
  check(api.ctx_get_device(&device), "cuCtxGetDevice");
  int supported = 0;
  check(api.device_get_attribute(&supported, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, device),
        "cuDeviceGetAttribute");
  if (!supported) {
    std::printf("SKIPPED: the device does not support virtual memory management\n");
    return acs_test::skip_code;
  }
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  std::size_t granule = 0;
  check(api.granularity(&granule, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), "cuMemGetAllocationGranularity");
  const std::size_t chunk = ((half * sizeof(uint32_t) + granule - 1) / granule) * granule;
  CUdeviceptr base = 0;
  check(api.reserve(&base, 2 * chunk, 0, 0, 0), "cuMemAddressReserve");
  CUmemGenericAllocationHandle physical[2] = {};
  for (int c = 0; c < 2; ++c) {
    check(api.create(&physical[c], chunk, &prop, 0), "cuMemCreate");
    check(api.map(base + c * chunk, chunk, 0, physical[c], 0), "cuMemMap");
  }
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  check(api.set_access(base, 2 * chunk, &access, 1), "cuMemSetAccess");

  // T: `half` words on each side of the seam.
  auto* seam_at = reinterpret_cast<uint32_t*>(base + chunk);
  uint32_t* t = seam_at - half;
  std::vector<uint32_t*> forward, backward;
  for (int r = 0; r < reps; ++r) {
    forward.push_back(acs_test::device_words(half));
    backward.push_back(acs_test::device_words(half));
  }
  slow_write<<<grid, block, 0, s>>>(t, 2 * half, 1u, 0);
  ACS_CHECK(cudaDeviceSynchronize());
  std::printf("vmm seam reps=%d words=%d (chunks mapped separately into one reservation)\n", reps, 2 * half);
  for (int r = 0; r < reps; ++r) {
    const auto salt = 1000u * static_cast<uint32_t>(r + 1);
    slow_write<<<grid, block, 0, s>>>(t, 2 * half, salt, min_ns);             // through the first chunk
    read_forward<<<grid, block, 0, s>>>(forward[r], seam_at, half);            // the second: this write
    slow_read_backward<<<grid, block, 0, s>>>(backward[r], seam_at, half, min_ns);  // the first, from the second
    slow_write<<<grid, block, 0, s>>>(t, 2 * half, salt + 1, 0);               // after that read
    ACS_CHECK(cudaGetLastError());
  }
  ACS_CHECK(cudaStreamSynchronize(s));
  for (int r = 0; r < reps; ++r) {
    acs_test::print_device_words(("forward" + std::to_string(r)).c_str(), forward[r], half);
    acs_test::print_device_words(("backward" + std::to_string(r)).c_str(), backward[r], half);
  }
  ACS_CHECK(cudaDeviceSynchronize());
  for (int c = 0; c < 2; ++c) {
    check(api.unmap(base + c * chunk, chunk), "cuMemUnmap");
    check(api.release(physical[c]), "cuMemRelease");
  }
  check(api.address_free(base, 2 * chunk), "cuMemAddressFree");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  acs_test::require_device();
  const std::string scenario = argc > 1 ? argv[1] : "";
  const int reps = static_cast<int>(acs_test::arg_long(argc, argv, "--reps", 4));
  const auto min_ns = static_cast<stamp_t>(acs_test::arg_long(argc, argv, "--min-us", 500)) * 1000;
  cudaStream_t s = nullptr;
  ACS_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  int rc = 2;
  if (scenario == "seam") {
    rc = seam(reps, min_ns, s);
  } else {
    std::fprintf(stderr, "FAILED: unknown scenario '%s'\n", scenario.c_str());
  }
  if (rc == 0) std::printf("last-error: %s\n", cudaGetErrorName(cudaGetLastError()));
  return rc;
}
