// Order that the host observes through mapped pinned memory, without a CUDA call
// (docs/design.md rule 11) [host_mapped].
//
//   host_mapped poll [--rounds=8] [--min-us=1000] [--timeout-ms=20000]
//       per round: kernel 1 writes results to mapped pinned host memory (slowly); kernel 2 then
//       sets a flag in another pinned allocation; both on one stream. The host polls the flag
//       with volatile reads, no CUDA call in between, and checks the results once it is set.
//       Natively stream order guarantees the results are complete by then; under acs the two
//       kernels share no allocation, and only ACS_HOST_MAPPED=ordered (the default) keeps them
//       in order. A flag that never comes is reported after --timeout-ms.
//   host_mapped managed [--rounds=8]
//       the same kernels on managed memory, synchronised: managed memory stays free (the two may
//       overlap); only the output is compared.
//
// stdout: per round, how many results were wrong when the flag was seen, and their digest.
#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "common.cuh"

using std::uint32_t;
using stamp_t = unsigned long long;

namespace {

constexpr int grid = 8, block = 256;
constexpr int n = 1 << 16;

__host__ __device__ uint32_t result_of(int i, uint32_t round) {
  return acs_test::mix32(static_cast<uint32_t>(i) * 0x9e3779b9u + round);
}

// Lasts min_ns, then writes every result.
__global__ void write_results(uint32_t* results, uint32_t round, stamp_t min_ns) {
  const stamp_t t0 = acs_test::global_ns();
  while (acs_test::global_ns() - t0 < min_ns) {
  }
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    results[i] = result_of(i, round);
}

__global__ void set_flag(volatile uint32_t* flag, uint32_t round) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    __threadfence_system();
    *flag = round;
  }
}

int poll(int rounds, stamp_t min_ns, long timeout_ms, cudaStream_t s) {
  uint32_t* results = nullptr;
  uint32_t* flag = nullptr;
  ACS_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&results), n * sizeof(uint32_t), cudaHostAllocMapped));
  ACS_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&flag), sizeof(uint32_t), cudaHostAllocMapped));
  std::memset(results, 0, n * sizeof(uint32_t));
  *flag = 0;
  uint32_t* d_results = nullptr;
  uint32_t* d_flag = nullptr;
  ACS_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_results), results, 0));
  ACS_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_flag), flag, 0));
  std::printf("host_mapped poll rounds=%d results=%d\n", rounds, n);
  int wrong_rounds = 0;
  for (int r = 1; r <= rounds; ++r) {
    const auto round = static_cast<uint32_t>(r);
    write_results<<<grid, block, 0, s>>>(d_results, round, min_ns);
    set_flag<<<1, 32, 0, s>>>(d_flag, round);
    ACS_CHECK(cudaGetLastError());
    // No CUDA call until the flag is seen: only the two kernels' order tells the host anything.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    const volatile uint32_t* seen = flag;
    while (*seen != round) {
      if (std::chrono::steady_clock::now() > deadline) {
        std::printf("round %d: the flag never came\n", r);
        std::fflush(stdout);
        return 1;
      }
    }
    std::atomic_thread_fence(std::memory_order_acquire);
    std::vector<uint32_t> snapshot(n);
    const volatile uint32_t* v = results;
    int wrong = 0;
    for (int i = 0; i < n; ++i) {
      snapshot[i] = v[i];
      wrong += snapshot[i] != result_of(i, round);
    }
    wrong_rounds += wrong != 0;
    std::printf("round %d: %d results wrong when the flag was seen, ", r, wrong);
    acs_test::print_words("results", snapshot.data(), n);
  }
  ACS_CHECK(cudaStreamSynchronize(s));
  std::fprintf(stderr, "acs-test: wrong_rounds=%d\n", wrong_rounds);
  ACS_CHECK(cudaFreeHost(flag));
  ACS_CHECK(cudaFreeHost(results));
  return 0;
}

int managed(int rounds, cudaStream_t s) {
  uint32_t* results = nullptr;
  uint32_t* flag = nullptr;
  ACS_CHECK(cudaMallocManaged(&results, n * sizeof(uint32_t)));
  ACS_CHECK(cudaMallocManaged(&flag, sizeof(uint32_t)));
  ACS_CHECK(cudaDeviceSynchronize());
  std::printf("host_mapped managed rounds=%d results=%d\n", rounds, n);
  for (int r = 1; r <= rounds; ++r) {
    write_results<<<grid, block, 0, s>>>(results, static_cast<uint32_t>(r), 0);
    set_flag<<<1, 32, 0, s>>>(flag, static_cast<uint32_t>(r));
    ACS_CHECK(cudaGetLastError());
    ACS_CHECK(cudaStreamSynchronize(s));
    std::printf("round %d: flag=%u, ", r, *flag);
    acs_test::print_words("results", results, n);
  }
  ACS_CHECK(cudaFree(flag));
  ACS_CHECK(cudaFree(results));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  acs_test::require_device();
  const std::string scenario = argc > 1 ? argv[1] : "";
  const int rounds = static_cast<int>(acs_test::arg_long(argc, argv, "--rounds", 8));
  const auto min_ns = static_cast<stamp_t>(acs_test::arg_long(argc, argv, "--min-us", 1000)) * 1000;
  const long timeout_ms = acs_test::arg_long(argc, argv, "--timeout-ms", 20000);
  cudaStream_t s = nullptr;
  ACS_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  int rc = 2;
  if (scenario == "poll") {
    rc = poll(rounds, min_ns, timeout_ms, s);
  } else if (scenario == "managed") {
    rc = managed(rounds, s);
  } else {
    std::fprintf(stderr, "FAILED: unknown scenario '%s'\n", scenario.c_str());
  }
  if (rc == 0) std::printf("last-error: %s\n", cudaGetErrorName(cudaGetLastError()));
  return rc;
}
