// What acs's eager join costs by itself, without acs: host time per launch of a
// tiny kernel in a dependent chain, (a) launched on the application's stream,
// (b) launched on a second stream, followed by an event record there and a wait
// of the application's stream on it (acs's pattern per kernel), (c) as (b)
// without the wait, (d) as (a) plus a stream-capture query. Run natively.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

__global__ void step(unsigned* x, unsigned salt) { x[threadIdx.x] = x[threadIdx.x] * 1664525u + salt; }

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device found: nothing to measure\n");
    return 0;
  }
  unsigned* x = nullptr;
  cudaMalloc(&x, 128);
  cudaStream_t app, pool;
  cudaStreamCreateWithFlags(&app, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&pool, cudaStreamNonBlocking);
  std::vector<cudaEvent_t> ev(64);
  for (auto& e : ev) cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
  const int n = 1000;
  auto measure = [&](int mode) {
    std::vector<double> reps;
    for (int r = 0; r < 7; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < n; ++i) {
        if (mode == 0) {
          step<<<1, 32, 0, app>>>(x, i);
        } else if (mode == 3) {
          cudaStreamCaptureStatus st;
          cuStreamIsCapturing(reinterpret_cast<CUstream>(app), reinterpret_cast<CUstreamCaptureStatus*>(&st));
          step<<<1, 32, 0, app>>>(x, i);
        } else {
          step<<<1, 32, 0, pool>>>(x, i);
          cudaEventRecord(ev[i % 64], pool);
          if (mode == 1) cudaStreamWaitEvent(app, ev[i % 64], 0);
        }
      }
      const auto t1 = std::chrono::steady_clock::now();
      cudaDeviceSynchronize();
      reps.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / n);
    }
    std::sort(reps.begin(), reps.end());
    return reps[reps.size() / 2];
  };
  for (int i = 0; i < 200; ++i) step<<<1, 32, 0, app>>>(x, i);
  cudaDeviceSynchronize();
  const double plain = measure(0), join = measure(1), record = measure(2), capture_query = measure(3);
  std::printf("host us per launch: plain %.3f, +record+wait (acs's join) %.3f (+%.3f), +record only %.3f (+%.3f), "
              "+capture query %.3f (+%.3f)\n",
              plain, join, join - plain, record, record - plain, capture_query, capture_query - plain);
  return 0;
}
