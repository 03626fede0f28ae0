// The relay's gain and cost on a GPU (ACS_RELAY, docs/design.md "The relay"): the GPU twin of
// benchmarks/cpu/launch_relay_fake.cpp. Each iteration runs W µs of the program's own host work
// (eager PyTorch's operator dispatch: 5-20 µs), then launches a tiny kernel of a dependent chain
// (it reads and writes one buffer): the GPU keeps up, so the host's time is the program's. R reps
// of N iterations, a stream sync after each; prints "host_us=W iteration_us=X launch_us=Y" (the
// medians of the µs per iteration and of the µs inside the launch call) and the buffer's
// checksum, which must not depend on how the launches were made.
// scripts/relay_overlap.sh runs it natively, under acs and under ACS_RELAY=auto, interleaved.
//
//   launch_relay [--host-us W] [--iterations N] [--reps R]
#include <cuda_runtime.h>

#include "cuda_check.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

__global__ void step(unsigned* x, unsigned salt) { x[threadIdx.x] = x[threadIdx.x] * 1664525u + salt; }

static void host_work(double us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(static_cast<long>(us * 1000));
  while (std::chrono::steady_clock::now() < until) {
  }
}

int main(int argc, char** argv) {
  double host_us = 10;
  int iterations = 2000, reps = 7;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--host-us")) host_us = std::atof(argv[i + 1]);
    if (!std::strcmp(argv[i], "--iterations")) iterations = std::max(1, std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--reps")) reps = std::max(1, std::atoi(argv[i + 1]));
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
  // Warm-up: module loading, clocks, and under acs the stream's first probe (after 64 launches),
  // which decides the relay, with the same host work between launches as the timed loop.
  for (int i = 0; i < 300; ++i) {
    host_work(host_us);
    step<<<1, 32, 0, s>>>(x, static_cast<unsigned>(i));
  }
  CHECK(cudaStreamSynchronize(s));
  std::vector<double> per_iteration, in_launch;
  for (int r = 0; r < reps; ++r) {
    std::chrono::nanoseconds launching{0};
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) {
      host_work(host_us);
      const auto before = std::chrono::steady_clock::now();
      step<<<1, 32, 0, s>>>(x, static_cast<unsigned>(i));
      launching += std::chrono::steady_clock::now() - before;
    }
    CHECK(cudaStreamSynchronize(s));
    const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
    per_iteration.push_back(took.count() / iterations);
    in_launch.push_back(std::chrono::duration<double, std::micro>(launching).count() / iterations);
  }
  CHECK(cudaGetLastError());
  unsigned h[32];
  CHECK(cudaMemcpy(h, x, sizeof h, cudaMemcpyDeviceToHost));
  unsigned sum = 0;
  for (unsigned v : h) sum = sum * 31u + v;
  std::sort(per_iteration.begin(), per_iteration.end());
  std::sort(in_launch.begin(), in_launch.end());
  std::printf("host_us=%g iteration_us=%.3f launch_us=%.3f checksum=%08x\n", host_us,
              per_iteration[per_iteration.size() / 2], in_launch[in_launch.size() / 2], sum);
  return 0;
}
