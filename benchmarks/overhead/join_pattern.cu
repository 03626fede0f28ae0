// What acs's eager join costs by itself, without acs: host time per launch of a
// tiny kernel in a dependent chain, (a) launched on the application's stream,
// (b) launched on a second stream, followed by an event record there and a wait
// of the application's stream on it (acs's pattern per kernel), (c) as (b)
// without the wait, (d) as (a) plus a stream-capture query, (e) as (a) through the driver
// (cuLaunchKernel on the kernel's CUfunction), (f) as (a) spread over 8 streams, (g) as (e)
// spread over 8 streams. Run natively.
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
  std::vector<cudaStream_t> spread(8);
  for (auto& t : spread) cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking);
  cudaFunction_t fn = nullptr;
  cudaGetFuncBySymbol(&fn, reinterpret_cast<const void*>(step));
  auto driver_launch = [&](cudaStream_t on, unsigned salt) {
    void* args[] = {&x, &salt};
    cuLaunchKernel(reinterpret_cast<CUfunction>(fn), 1, 1, 1, 32, 1, 1, 0, reinterpret_cast<CUstream>(on), args,
                   nullptr);
  };
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
        } else if (mode == 4) {
          driver_launch(app, i);
        } else if (mode == 5) {
          step<<<1, 32, 0, spread[i % 8]>>>(x, i);
        } else if (mode == 6) {
          driver_launch(spread[i % 8], i);
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
  const double driver = measure(4), spread_runtime = measure(5), spread_driver = measure(6);
  std::printf("host us per launch: plain %.3f, +record+wait (acs's join) %.3f (+%.3f), +record only %.3f (+%.3f), "
              "+capture query %.3f (+%.3f)\n",
              plain, join, join - plain, record, record - plain, capture_query, capture_query - plain);
  std::printf("host us per launch: driver cuLaunchKernel %.3f (%+.3f), runtime over 8 streams %.3f (%+.3f), "
              "driver over 8 streams %.3f (%+.3f)\n",
              driver, driver - plain, spread_runtime, spread_runtime - plain, spread_driver, spread_driver - plain);
  return 0;
}
