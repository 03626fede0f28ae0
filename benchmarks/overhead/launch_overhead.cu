// Host cost of an intercepted launch, and the end-to-end cost on a dependent
// chain (issue 3's two goals). Run it natively and under LD_PRELOAD=libacs.so
// (scripts/launch_overhead.sh does both and prints the differences).
//
//   launch_overhead [--launches N] [--reps R]
//
// 1. host: N launches of a tiny kernel, each reading and writing the same
//    buffer (a pure dependent chain), timed on the host around the launch loop
//    only; median over R reps. Per launch: loop time / N.
// 2. chain: 2000 kernels of 15-60 µs (a fixed pseudo-random length each), again
//    a dependent chain on one buffer, timed with CUDA events; median over R reps.
// Prints "host_us_per_launch=..." and "chain_ms=..." and a checksum of the buffer.
#include <cuda_runtime.h>

#include "cuda_check.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

__global__ void step(unsigned* x, unsigned salt) { x[threadIdx.x] = x[threadIdx.x] * 1664525u + salt; }

__global__ void spin_step(unsigned* x, unsigned salt, unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
  x[threadIdx.x] = x[threadIdx.x] * 1664525u + salt;
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  int launches = 1000, reps = 7;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--launches")) launches = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[++i]);
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device found: nothing to measure\n");
    return 0;
  }
  unsigned* x = nullptr;
  CHECK(cudaMalloc(&x, 32 * sizeof(unsigned)));
  CHECK(cudaMemset(x, 0, 32 * sizeof(unsigned)));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  // Warm-up: module loading, clocks.
  for (int i = 0; i < 200; ++i) step<<<1, 32, 0, s>>>(x, i);
  spin_step<<<1, 32, 0, s>>>(x, 1, 1000);
  CHECK(cudaStreamSynchronize(s));

  std::vector<double> host;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < launches; ++i) step<<<1, 32, 0, s>>>(x, static_cast<unsigned>(i));
    const auto t1 = std::chrono::steady_clock::now();
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(s));
    host.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / launches);
  }

  std::vector<unsigned long long> ns(2000);
  unsigned h = 12345;
  for (auto& n : ns) {
    h = h * 1103515245u + 12345u;
    n = 15000 + (h >> 8) % 45001;  // 15..60 µs
  }
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<double> chain;
  for (int r = 0; r < std::max(1, reps / 2); ++r) {
    CHECK(cudaEventRecord(a, s));
    for (int i = 0; i < 2000; ++i) spin_step<<<1, 32, 0, s>>>(x, static_cast<unsigned>(i), ns[i]);
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    chain.push_back(ms);
  }
  unsigned out[32];
  CHECK(cudaMemcpy(out, x, sizeof out, cudaMemcpyDeviceToHost));
  unsigned sum = 0;
  for (unsigned v : out) sum = sum * 31u + v;
  std::printf("host_us_per_launch=%.3f chain_ms=%.3f checksum=%08x\n", median(host), median(chain), sum);
  return 0;
}
