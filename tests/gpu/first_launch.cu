// A kernel launch as the process's first CUDA call, and as a new thread's first one (NVIDIA's
// simpleCooperativeGroups sample does the former): with -cudart shared, no context is current
// when acs's hook asks the driver for the launched kernel's function, and the runtime makes one
// current only inside the launch. acs must identify the kernel all the same (pass_unknown_function
// stays 0); the results must equal the native run's.
#include <thread>

#include "common.cuh"

namespace {

__device__ unsigned int sums[2];

// Each thread adds its rank into the block's sum, through shared memory, as the sample does.
__global__ void rank_sum(int slot) {
  extern __shared__ unsigned int ranks[];
  ranks[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned int total = 0;
    for (unsigned int i = 0; i < blockDim.x; ++i) total += ranks[i];
    sums[slot] = total;
  }
}

}  // namespace

int main() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  rank_sum<<<1, 64, 64 * sizeof(unsigned int)>>>(0);  // the first CUDA call of the process
  const cudaError_t first = cudaDeviceSynchronize();
  if (first == cudaErrorNoDevice || first == cudaErrorInsufficientDriver || first == cudaErrorInitializationError) {
    std::printf("SKIPPED: no CUDA device (%s)\n", cudaGetErrorName(first));
    return acs_test::skip_code;
  }
  ACS_CHECK(first);
  cudaError_t in_thread = cudaErrorUnknown;
  std::thread([&] {
    rank_sum<<<1, 128, 128 * sizeof(unsigned int)>>>(1);  // this thread's first CUDA call
    in_thread = cudaDeviceSynchronize();
  }).join();
  ACS_CHECK(in_thread);
  unsigned int host[2] = {0, 0};
  ACS_CHECK(cudaMemcpyFromSymbol(host, sums, sizeof host));
  std::printf("sum of ranks 0..63: %u (expected %u)\n", host[0], 63u * 64u / 2u);
  std::printf("sum of ranks 0..127: %u (expected %u)\n", host[1], 127u * 128u / 2u);
  return 0;
}
