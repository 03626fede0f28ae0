// A training-shaped experiment on the fake driver (not built by the project): two threads take
// turns on the legacy stream (forward on the main thread, backward on a second one, as PyTorch's
// autograd engine does), W us of host work before each of 100 launches per turn, then 20 launches
// in a tight loop (an optimizer) and a sync per step. Was the thirteenth session's training row
// (x0.92 under ACS_RELAY=auto, 3 processes) the relay crossing threads? Build and run:
//   g++ -O2 -std=c++20 -I/usr/local/cuda/include two_threads_relay.cpp -o two \
//     -L build-gpu/tests/preload/fake_driver -lcuda -lpthread
//   LD_LIBRARY_PATH=build-gpu/tests/preload/fake_driver FAKE_CUDA_LAUNCH_NS=3000 [LD_PRELOAD=...] ./two W
#include <cuda.h>
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>
extern "C" void fake_cuda_reset();
static void work(double us) { auto u = std::chrono::steady_clock::now() + std::chrono::nanoseconds((long)(us*1000)); while (std::chrono::steady_clock::now() < u) {} }
int main(int argc, char** argv) {
  double w = argc > 1 ? atof(argv[1]) : 5; int per = 100, steps = 60;
  CUcontext ctx; cuInit(0); cuDevicePrimaryCtxRetain(&ctx, 0); cuCtxSetCurrent(ctx);
  CUstream s = nullptr;  // the legacy default stream
  CUdeviceptr a, b; cuMemAlloc(&a, 4096); cuMemAlloc(&b, 4096);
  CUfunction f = reinterpret_cast<CUfunction>(0x4240); void* p[] = {&a, &b};
  auto launch = [&] { return cuLaunchKernel(f, 1,1,1, 32,1,1, 0, s, p, nullptr); };
  for (int i = 0; i < 2000; ++i) { work(w); launch(); }
  cuStreamSynchronize(s);
  std::mutex m; std::condition_variable cv; int turn = 0; bool stop = false;
  std::thread bw([&] { cuCtxSetCurrent(ctx); for (;;) { std::unique_lock l(m); cv.wait(l, [&]{ return turn == 1 || stop; }); if (stop) return; l.unlock();
      for (int i = 0; i < per; ++i) { work(w); launch(); } l.lock(); turn = 0; cv.notify_all(); } });
  std::vector<double> t;
  for (int r = 0; r < 5; ++r) {
    fake_cuda_reset();
    auto t0 = std::chrono::steady_clock::now();
    for (int st = 0; st < steps; ++st) {
      for (int i = 0; i < per; ++i) { work(w); launch(); }
      { std::unique_lock l(m); turn = 1; cv.notify_all(); cv.wait(l, [&]{ return turn == 0; }); }
      for (int i = 0; i < 20; ++i) launch();  // an optimizer's tight loop
      cuStreamSynchronize(s);
    }
    t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / steps);
  }
  { std::lock_guard l(m); stop = true; cv.notify_all(); } bw.join();
  std::sort(t.begin(), t.end()); printf("step_us=%.1f\n", t[2]);
}
