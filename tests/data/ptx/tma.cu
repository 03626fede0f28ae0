#include <cuda/barrier>
#include <cuda/ptx>
#include <cudaTypedefs.h>
namespace ptx = cuda::ptx;
extern "C" __global__ void tma_copy(const __grid_constant__ CUtensorMap in_map, const __grid_constant__ CUtensorMap out_map, const float* scale) {
  __shared__ alignas(128) float tile[32 * 32];
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) { ptx::mbarrier_init(&bar, 1); ptx::fence_proxy_async(ptx::space_shared); }
  __syncthreads();
  if (threadIdx.x == 0) {
    int c[2] = {0, 0};
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile, &in_map, c, &bar);
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(tile));
  }
  while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {}
  tile[threadIdx.x] *= scale[0];
  ptx::fence_proxy_async(ptx::space_shared);
  __syncthreads();
  if (threadIdx.x == 0) {
    int c[2] = {0, 0};
    ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &out_map, c, tile);
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
  }
}
extern "C" __global__ void tma_map_in_memory(const CUtensorMap* out_map, const float* scale) {
  __shared__ alignas(128) float tile[32 * 32];
  tile[threadIdx.x] = scale[threadIdx.x];
  ptx::fence_proxy_async(ptx::space_shared);
  __syncthreads();
  if (threadIdx.x == 0) {
    int c[2] = {0, 0};
    ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, out_map, c, tile);
    ptx::cp_async_bulk_commit_group();
  }
}
