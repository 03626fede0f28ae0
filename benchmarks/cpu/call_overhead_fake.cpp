// acs's own host cost per intercepted driver call, on the fake driver of tests/preload/fake (no
// GPU needed): each call N times in a loop, median of R reps, in ns per call, printed as
// "call=NAME ns=X" like benchmarks/overhead/call_overhead.cu. The fake's own cost is not a real
// driver's, so only the difference between a run under the preload and a native run means
// anything: what acs adds to every call (scripts/call_overhead.sh interleaves the runs and
// prints it). The launches are a dependent chain on one stream (acs steps aside from it after 32)
// and, on a stream of their own, launches that conflict only four apart (independent of their
// neighbours: they go to the pool, through the scheduler), the same with a new grid size each
// time (under ACS_GRAPH=auto a sequence that never recurs: what recurrence detection costs), the
// same with an argument that changes at every replayed segment (what an update costs), and
// the chain with a new grid size each time (a stepped-aside stream's sequence that never recurs).
// With --cold KB, the program walks KB kilobytes of its own memory between two calls (as a
// framework's host code does between its launches: eager PyTorch runs ~10-20 us of Python per
// operator) and times each call alone: what acs costs where its code and data are no longer in
// the processor's caches, which a loop of calls alone never shows.
//
// With --first N, the program instead times each of its first N launches, a dependent chain on a
// new stream, with two idle threads alive as a CUDA process has the driver's: the mean and the
// slowest of them (first_launches_mean, first_launches_max). A one-time cost that acs pays on
// the application's thread, inside the launches a short program times, shows there and in no
// loop: the bypass's first opening once waited 12 ms for membarrier(2)'s registration.
//
//   acs_call_overhead_fake [--calls N] [--reps R] [--only NAME] [--cold KB] [--first N]
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

extern "C" void fake_cuda_reset();  // forgets the fake's call log: steady memory across reps

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

bool ok(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return true;
  std::fprintf(stderr, "acs_call_overhead_fake: %s failed (%d)\n", what, static_cast<int>(r));
  return false;
}

// Threads that wait until the process ends, as the driver's own threads do in a CUDA process.
class idle_threads {
 public:
  explicit idle_threads(int n) {
    for (int i = 0; i < n; ++i)
      threads_.emplace_back([this] {
        std::unique_lock lock(mutex_);
        done_.wait(lock, [this] { return stop_; });
      });
  }
  ~idle_threads() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    done_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

// The first `n` launches of a dependent chain on a new stream, each timed alone.
int first_launches(int n) {
  idle_threads driver_like(2);
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  CUdeviceptr a = 0, b = 0;
  if (!ok(cuInit(0), "cuInit") || !ok(cuDevicePrimaryCtxRetain(&context, 0), "cuDevicePrimaryCtxRetain") ||
      !ok(cuCtxSetCurrent(context), "cuCtxSetCurrent") ||
      !ok(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate") ||
      !ok(cuMemAlloc(&a, 4096), "cuMemAlloc") || !ok(cuMemAlloc(&b, 4096), "cuMemAlloc"))
    return 1;
  const CUfunction function = reinterpret_cast<CUfunction>(0x4240);  // the fake's one kernel
  void* params[] = {&a, &b};
  double total = 0, slowest = 0;
  for (int i = 0; i < n; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    (void)cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, stream, params, nullptr);
    const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    total += ns;
    slowest = std::max(slowest, ns);
  }
  std::printf("call=first_launches_mean ns=%.1f\ncall=first_launches_max ns=%.1f\n", total / n, slowest);
  return ok(cuCtxSynchronize(), "cuCtxSynchronize") ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  int calls = 20000, reps = 7;
  std::size_t cold_kb = 0;     // memory walked between two calls (0: none, a hot loop)
  const char* only = nullptr;  // one row (for a profiler)
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--calls")) calls = std::max(1, std::atoi(argv[++i]));
    if (!std::strcmp(argv[i], "--reps")) reps = std::max(1, std::atoi(argv[++i]));
    if (!std::strcmp(argv[i], "--only")) only = argv[++i];
    if (!std::strcmp(argv[i], "--cold")) cold_kb = static_cast<std::size_t>(std::max(0, std::atoi(argv[++i])));
    if (!std::strcmp(argv[i], "--first")) return first_launches(std::max(1, std::atoi(argv[++i])));
  }
  // Written once, read a line at a time between calls: evicts what the call before left in the caches.
  std::vector<unsigned char> cold(cold_kb * 1024, 1);
  unsigned sink = 0;
  const auto walk = [&] {
    for (std::size_t i = 0; i < cold.size(); i += 64) sink += cold[i];
  };
  CUcontext context = nullptr;
  CUstream stream = nullptr, other = nullptr;
  CUevent event = nullptr;
  CUdeviceptr buffers[8] = {};
  if (!ok(cuInit(0), "cuInit") || !ok(cuDevicePrimaryCtxRetain(&context, 0), "cuDevicePrimaryCtxRetain") ||
      !ok(cuCtxSetCurrent(context), "cuCtxSetCurrent") ||
      !ok(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate") ||
      !ok(cuStreamCreate(&other, CU_STREAM_NON_BLOCKING), "cuStreamCreate") ||
      !ok(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate"))
    return 1;
  for (CUdeviceptr& b : buffers)
    if (!ok(cuMemAlloc(&b, 4096), "cuMemAlloc")) return 1;
  const CUfunction function = reinterpret_cast<CUfunction>(0x4240);  // the fake's one kernel
  int next = 0;
  unsigned grid = 0;
  const auto launch = [&](CUstream on, int pair, unsigned blocks = 1) {
    CUdeviceptr a = buffers[2 * pair], b = buffers[2 * pair + 1];
    void* params[] = {&a, &b};
    (void)cuLaunchKernel(function, blocks, 1, 1, 32, 1, 1, 0, on, params, nullptr);
  };
  // The fake's kernel with a third parameter, a 4-byte scalar (tests/preload/fake/fake_cuda.cpp).
  const CUfunction with_scalar = reinterpret_cast<CUfunction>(0x4a50);
  const auto launch_with = [&](CUstream on, int pair, int scalar) {
    CUdeviceptr a = buffers[2 * pair], b = buffers[2 * pair + 1];
    void* params[] = {&a, &b, &scalar};
    (void)cuLaunchKernel(with_scalar, 1, 1, 1, 32, 1, 1, 0, on, params, nullptr);
  };
  struct call {
    const char* name;
    std::function<void()> run;
  };
  const std::vector<call> all = {
      {"cuCtxGetCurrent", [] {
         CUcontext c = nullptr;
         (void)cuCtxGetCurrent(&c);
       }},
      {"cuStreamQuery", [&] { (void)cuStreamQuery(stream); }},
      {"cuEventRecord", [&] { (void)cuEventRecord(event, stream); }},
      {"cuEventQuery", [&] { (void)cuEventQuery(event); }},
      {"cuStreamWaitEvent", [&] { (void)cuStreamWaitEvent(stream, event, 0); }},
      {"cuStreamIsCapturing", [&] {
         CUstreamCaptureStatus status{};
         (void)cuStreamIsCapturing(stream, &status);
       }},
      {"cuLaunchKernel_chain", [&] { launch(stream, 0); }},
      {"cuLaunchKernel_chain_never_recurs", [&] { launch(stream, 0, 1 + (grid++ % 0x7ffffffeu)); }},
      {"cuLaunchKernel_four_apart", [&] { launch(other, next++ % 4); }},
      {"cuLaunchKernel_never_recurs", [&] { launch(other, next++ % 4, 1 + (grid++ % 0x7ffffffeu)); }},
      // The same with a scalar argument that changes at every launch (a step count): the
      // footprint, and so a replayed segment's key under ACS_GRAPH=auto, stay the same, and every
      // node of the replayed graph gets new arguments (replay_overhead.cu's update row, whose 64
      // kernels each have their own buffers).
      {"cuLaunchKernel_four_apart_updated", [&] {
         const int i = next++;
         launch_with(other, i % 4, i);
       }},
      // A temporary buffer per call, as Thrust's algorithms take one (radixSortThrust): acs
      // tracks allocations for its footprints, and a free must not overtake work queued on it.
      {"cuMemAlloc_cuMemFree", [] {
         CUdeviceptr p = 0;
         if (cuMemAlloc(&p, 1 << 20) == CUDA_SUCCESS) (void)cuMemFree(p);
       }},
  };
  for (const call& c : all) {
    if (only != nullptr && std::strcmp(only, c.name) != 0) continue;
    std::vector<double> ns;
    for (int r = 0; r < reps; ++r) {
      double total = 0;
      if (cold.empty()) {
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < calls; ++i) c.run();
        total = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
      } else {
        for (int i = 0; i < calls; ++i) {
          walk();
          const auto t0 = std::chrono::steady_clock::now();
          c.run();
          total += std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
        }
      }
      if (!ok(cuCtxSynchronize(), "cuCtxSynchronize")) return 1;
      fake_cuda_reset();
      ns.push_back(total / calls);
    }
    std::printf("call=%s ns=%.1f\n", c.name, median(ns));
  }
  if (sink == 0xffffffffu) std::printf("\n");  // keeps the walk
  return ok(cuCtxSynchronize(), "cuCtxSynchronize") ? 0 : 1;
}
