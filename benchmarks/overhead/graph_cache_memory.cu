// The memory that graph replay's executable cache holds (issue 16: "the cache's memory"). A loop
// with `--shapes` distinct segments, each `--kernels` independent kernels whose grid names the
// shape, then a stream sync (which ends a launch segment); the loop runs `--rounds` times, so
// that under ACS_GRAPH=auto every shape recurs and is kept as an executable (up to
// ACS_GRAPH_CACHE). scripts/graph_cache_memory.sh runs it with ACS_GRAPH=off and =auto at two
// shape counts and prints the difference per executable.
//
//   graph_cache_memory [--shapes N] [--kernels K] [--rounds R]
//
// Prints "device_bytes=..." (cudaMemGetInfo: free before the loop minus free after it, context
// and buffers already made) and "host_bytes=..." (the resident set's growth over the loop), and a
// checksum of the buffers, which must not depend on the mode.
#include <cuda_runtime.h>

#include "cuda_check.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <unistd.h>

namespace {

constexpr int kBlock = 64;

__global__ void touch(unsigned* x, unsigned n, unsigned salt) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 1664525u + salt;
}

long resident_bytes() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return resident * sysconf(_SC_PAGESIZE);
}

}  // namespace

int main(int argc, char** argv) {
  int shapes = 64, kernels = 8, rounds = 3;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--shapes")) shapes = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--kernels")) kernels = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--rounds")) rounds = std::atoi(argv[++i]);
  }
  if (shapes < 1 || kernels < 1 || rounds < 1) {
    std::fprintf(stderr, "graph_cache_memory: --shapes, --kernels and --rounds must be at least 1\n");
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device found: nothing to measure\n");
    return 77;
  }
  // One buffer per kernel of a segment, large enough for the widest grid: the kernels of a
  // segment are independent of each other, each depends on its own predecessor a shape before.
  const unsigned n = static_cast<unsigned>(shapes) * kBlock;
  std::vector<unsigned*> buffers(kernels);
  for (unsigned*& b : buffers) {
    CHECK(cudaMalloc(&b, n * sizeof(unsigned)));
    CHECK(cudaMemset(b, 0, n * sizeof(unsigned)));
  }
  CHECK(cudaDeviceSynchronize());
  size_t free_before = 0, total = 0;
  CHECK(cudaMemGetInfo(&free_before, &total));
  const long host_before = resident_bytes();

  for (int r = 0; r < rounds; ++r) {
    for (int s = 0; s < shapes; ++s) {
      for (int k = 0; k < kernels; ++k) touch<<<s + 1, kBlock>>>(buffers[k], n, static_cast<unsigned>(s * 131 + k));
      CHECK(cudaGetLastError());
      CHECK(cudaStreamSynchronize(0));
    }
  }

  size_t free_after = 0;
  CHECK(cudaMemGetInfo(&free_after, &total));
  const long host_after = resident_bytes();
  unsigned long long checksum = 1469598103934665603ull;
  std::vector<unsigned> host(n);
  for (unsigned* b : buffers) {
    CHECK(cudaMemcpy(host.data(), b, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (unsigned v : host) checksum = (checksum ^ v) * 1099511628211ull;
  }
  std::printf("shapes=%d kernels=%d rounds=%d device_bytes=%lld host_bytes=%ld checksum=%016llx\n", shapes,
              kernels, rounds, static_cast<long long>(free_before) - static_cast<long long>(free_after),
              host_after - host_before, checksum);
  for (unsigned* b : buffers) CHECK(cudaFree(b));
  return 0;
}
