// Host time of CUDA calls that a framework makes around every operator, for the "never
// slower" goal: each call N times in a loop, median of R reps, in ns per call. Run it natively
// and under the preload (scripts/call_overhead.sh interleaves the modes and prints the
// differences); a call acs does not hook must cost the same, a hooked one at most ~30 ns more.
//
//   call_overhead [--calls N] [--reps R]     prints one "call=NAME ns=X" line per call
#include <cuda_runtime.h>

#include "cuda_check.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

__global__ void empty_kernel() {}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  int calls = 20000, reps = 7;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--calls")) calls = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[++i]);
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device found: nothing to measure\n");
    return 0;
  }
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e;
  CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  void* d = nullptr;
  CHECK(cudaMalloc(&d, 1 << 20));
  int device = 0;
  cudaStreamCaptureStatus status;
  unsigned long long id = 0;
  cudaPointerAttributes attributes;
  cudaFuncAttributes function;
  int blocks = 0;
  struct probe {
    const char* name;
    std::function<void()> call;
    bool drains;  // enqueues GPU work: synchronize after each rep (outside the timed loop)
  };
  const std::vector<probe> probes = {
      {"cudaGetDevice", [&] { (void)cudaGetDevice(&device); }, false},
      {"cudaGetLastError", [&] { (void)cudaGetLastError(); }, false},
      {"cudaStreamGetCaptureInfo", [&] { (void)cudaStreamGetCaptureInfo(s, &status, &id); }, false},
      {"cudaStreamIsCapturing", [&] { (void)cudaStreamIsCapturing(s, &status); }, false},
      {"cudaPointerGetAttributes", [&] { (void)cudaPointerGetAttributes(&attributes, d); }, false},
      {"cudaEventRecord", [&] { (void)cudaEventRecord(e, s); }, true},
      {"cudaStreamWaitEvent", [&] { (void)cudaStreamWaitEvent(s, e, 0); }, true},
      {"cudaEventQuery", [&] { (void)cudaEventQuery(e); }, false},
      {"cudaStreamQuery", [&] { (void)cudaStreamQuery(s); }, false},
      {"cudaMemsetAsync", [&] { (void)cudaMemsetAsync(d, 0, 4, s); }, true},
      {"cudaMemcpyAsync", [&] { (void)cudaMemcpyAsync(static_cast<char*>(d) + 64, d, 4, cudaMemcpyDeviceToDevice, s); }, true},
      {"launch", [&] { empty_kernel<<<1, 1, 0, s>>>(); }, true},
      // What Thrust and CUB call around each algorithm (cuda-samples' radixSortThrust: a temporary
      // buffer, attribute and occupancy queries, a sync of an idle stream).
      {"cudaMalloc_cudaFree", [&] {
         void* t = nullptr;
         if (cudaMalloc(&t, 4096) == cudaSuccess) (void)cudaFree(t);
       }, false},
      {"cudaFuncGetAttributes", [&] { (void)cudaFuncGetAttributes(&function, empty_kernel); }, false},
      {"cudaOccupancyMaxActiveBlocks", [&] {
         (void)cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, empty_kernel, 256, 0);
       }, false},
      {"cudaDeviceGetAttribute", [&] { (void)cudaDeviceGetAttribute(&blocks, cudaDevAttrMultiProcessorCount, 0); }, false},
      {"cudaStreamSynchronize_idle", [&] { (void)cudaStreamSynchronize(s); }, false},
  };
  CHECK(cudaEventRecord(e, s));
  CHECK(cudaStreamSynchronize(s));
  for (const probe& p : probes) {
    std::vector<double> per_call;
    for (int r = 0; r <= reps; ++r) {  // rep 0 warms up
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < calls; ++i) p.call();
      const auto t1 = std::chrono::steady_clock::now();
      if (p.drains) CHECK(cudaStreamSynchronize(s));
      if (r > 0) per_call.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / calls);
    }
    std::printf("call=%s ns=%.1f\n", p.name, median(per_call));
  }
  CHECK(cudaGetLastError());
  return 0;
}
