// A framework-shaped loop on the fake driver of tests/preload/fake (no GPU needed): each iteration
// runs W µs of the program's own host work (eager PyTorch's operator dispatch: 5-20 µs), then
// launches one kernel of a dependent chain, whose driver call costs the fake FAKE_CUDA_LAUNCH_NS
// (a real launch: 2-5 µs). Natively an iteration takes W + the launch. Under ACS_RELAY=1 the
// launch is copied and made by acs's issuing thread, so the program's thread goes on with its next
// W µs meanwhile: an iteration takes the longer of W + acs's hand-off and the launch + the
// issuing thread's share (docs/design.md, "The relay"). Prints "host_us=W iteration_us=X
// launch_us=Y": the medians over R reps of N iterations each (a stream sync after each rep) of the
// time per iteration and of the time spent inside the launch call.
// scripts/relay_overlap.sh runs it natively, under acs and under ACS_RELAY=1, interleaved.
//
//   acs_launch_relay_fake [--host-us W] [--iterations N] [--reps R]
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" void fake_cuda_reset();  // forgets the fake's call log: steady memory across reps

namespace {

bool ok(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return true;
  std::fprintf(stderr, "acs_launch_relay_fake: %s failed (%d)\n", what, static_cast<int>(r));
  return false;
}

void host_work(double us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(static_cast<long>(us * 1000));
  while (std::chrono::steady_clock::now() < until) {
  }
}

}  // namespace

int main(int argc, char** argv) {
  double host_us = 10;
  int iterations = 2000, reps = 7;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--host-us") == 0) host_us = std::atof(argv[i + 1]);
    if (std::strcmp(argv[i], "--iterations") == 0) iterations = std::max(1, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::max(1, std::atoi(argv[i + 1]));
  }
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  CUdeviceptr a = 0, b = 0;
  if (!ok(cuInit(0), "cuInit") || !ok(cuDevicePrimaryCtxRetain(&context, 0), "cuDevicePrimaryCtxRetain") ||
      !ok(cuCtxSetCurrent(context), "cuCtxSetCurrent") ||
      !ok(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate") || !ok(cuMemAlloc(&a, 4096), "cuMemAlloc") ||
      !ok(cuMemAlloc(&b, 4096), "cuMemAlloc"))
    return 1;
  const CUfunction function = reinterpret_cast<CUfunction>(0x4240);
  void* params[] = {&a, &b};
  const auto launch = [&] { return cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, stream, params, nullptr); };
  // Warm-up: past the stream's first probe (acs steps aside from a chain), the layout read.
  for (int i = 0; i < 300; ++i)
    if (!ok(launch(), "a launch")) return 1;
  if (!ok(cuStreamSynchronize(stream), "cuStreamSynchronize")) return 1;
  std::vector<double> per_iteration, in_launch;
  for (int r = 0; r < reps; ++r) {
    fake_cuda_reset();
    std::chrono::nanoseconds launching{0};
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) {
      host_work(host_us);
      const auto before = std::chrono::steady_clock::now();
      if (!ok(launch(), "a launch")) return 1;
      launching += std::chrono::steady_clock::now() - before;
    }
    if (!ok(cuStreamSynchronize(stream), "cuStreamSynchronize")) return 1;
    const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
    per_iteration.push_back(took.count() / iterations);
    in_launch.push_back(std::chrono::duration<double, std::micro>(launching).count() / iterations);
  }
  std::sort(per_iteration.begin(), per_iteration.end());
  std::sort(in_launch.begin(), in_launch.end());
  std::printf("host_us=%g iteration_us=%.3f launch_us=%.3f\n", host_us, per_iteration[per_iteration.size() / 2],
              in_launch[in_launch.size() / 2]);
  return 0;
}
