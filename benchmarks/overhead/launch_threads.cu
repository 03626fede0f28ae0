// Does the driver launch faster from several host threads? Host time per launch of a tiny
// kernel (host-bound: the GPU keeps up), aggregate over all threads, for
//   (a) one thread, one stream;
//   (b) one thread, round robin over 8 streams, each launch after a wait on the previous
//       stream's event and followed by a record (the oracle's and acs's pattern);
//   (c) T threads (2, 4, 8), each on its own stream;
//   (d) T threads, each over its own 2 streams with (b)'s waits and records, waits crossing
//       threads (the event of the other thread's last kernel);
//   (e) one application thread handing launches to one launcher thread through a ring:
//       the application thread's time per launch and the total.
// Run natively: it decides whether issuing from worker threads can beat one thread.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

__global__ void step(unsigned* x, unsigned salt) { x[threadIdx.x] = x[threadIdx.x] * 1664525u + salt; }

namespace {

using clock_type = std::chrono::steady_clock;
constexpr int per_thread = 4000;

double us_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::micro>(clock_type::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct lane {
  unsigned* x = nullptr;
  cudaStream_t streams[2] = {};
  cudaEvent_t events[2][64] = {};
};

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device found: nothing to measure\n");
    return 0;
  }
  constexpr int max_threads = 8;
  std::vector<lane> lanes(max_threads);
  for (lane& l : lanes) {
    cudaMalloc(&l.x, 128);
    for (auto& s : l.streams) cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    for (auto& row : l.events)
      for (auto& e : row) cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
  }
  std::vector<cudaStream_t> spread(8);
  for (auto& s : spread) cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  std::vector<cudaEvent_t> spread_events(64);
  for (auto& e : spread_events) cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
  for (int i = 0; i < 500; ++i) step<<<1, 32, 0, lanes[0].streams[0]>>>(lanes[0].x, i);
  cudaDeviceSynchronize();

  auto single = [&](bool waits) {
    const auto t0 = clock_type::now();
    for (int i = 0; i < per_thread; ++i) {
      if (!waits) {
        step<<<1, 32, 0, lanes[0].streams[0]>>>(lanes[0].x, i);
        continue;
      }
      cudaStream_t s = spread[i % 8];
      if (i > 0) cudaStreamWaitEvent(s, spread_events[(i - 1) % 64], 0);
      step<<<1, 32, 0, s>>>(lanes[0].x, i);
      cudaEventRecord(spread_events[i % 64], s);
    }
    const double us = us_since(t0) / per_thread;
    cudaDeviceSynchronize();
    return us;
  };

  // Every thread launches per_thread kernels; the result is wall time / all launches.
  auto threaded = [&](int threads, bool waits) {
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<std::atomic<int>> done_upto(max_threads);
    for (auto& d : done_upto) d = -1;
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        lane& l = lanes[t];
        ready.fetch_add(1);
        while (!go.load()) {
        }
        for (int i = 0; i < per_thread; ++i) {
          if (!waits) {
            step<<<1, 32, 0, l.streams[0]>>>(l.x, i);
            continue;
          }
          cudaStream_t s = l.streams[i % 2];
          const int other = (t + 1) % threads;
          const int seen = done_upto[other].load(std::memory_order_acquire);
          if (seen >= 0 && other != t) cudaStreamWaitEvent(s, lanes[other].events[seen % 2][seen / 2 % 64], 0);
          step<<<1, 32, 0, s>>>(l.x, i);
          cudaEventRecord(l.events[i % 2][i / 2 % 64], s);
          done_upto[t].store(i, std::memory_order_release);
        }
      });
    while (ready.load() < threads) {
    }
    const auto t0 = clock_type::now();
    go = true;
    for (auto& th : pool) th.join();
    const double us = us_since(t0) / (threads * per_thread);
    cudaDeviceSynchronize();
    return us;
  };

  // One application thread fills a ring of launch records; one launcher thread empties it.
  auto handoff = [&](double& app_us) {
    constexpr int ring = 256;
    struct record {
      unsigned* x;
      unsigned salt;
      cudaStream_t stream;
    };
    std::vector<record> slots(ring);
    std::atomic<long> head{0}, tail{0};
    std::thread launcher([&] {
      for (long n = 0; n < per_thread; ++n) {
        while (head.load(std::memory_order_acquire) <= n) {
        }
        const record r = slots[n % ring];
        step<<<1, 32, 0, r.stream>>>(r.x, r.salt);
        tail.store(n + 1, std::memory_order_release);
      }
    });
    const auto t0 = clock_type::now();
    for (long n = 0; n < per_thread; ++n) {
      while (n - tail.load(std::memory_order_acquire) >= ring) {
      }
      slots[n % ring] = {lanes[0].x, (unsigned)n, lanes[0].streams[0]};
      head.store(n + 1, std::memory_order_release);
    }
    app_us = us_since(t0) / per_thread;
    launcher.join();
    const double us = us_since(t0) / per_thread;
    cudaDeviceSynchronize();
    return us;
  };

  std::vector<double> one, one_waits, handoff_total, handoff_app;
  std::vector<std::vector<double>> many(4), many_waits(4);
  const int counts[] = {2, 4, 8};
  for (int r = 0; r < 5; ++r) {
    one.push_back(single(false));
    one_waits.push_back(single(true));
    for (int c = 0; c < 3; ++c) {
      many[c].push_back(threaded(counts[c], false));
      many_waits[c].push_back(threaded(counts[c], true));
    }
    double app = 0;
    handoff_total.push_back(handoff(app));
    handoff_app.push_back(app);
  }
  const double base = median(one);
  std::printf("host us per launch, medians of 5 (aggregate over threads; x = launch rate against one thread, one stream):\n");
  std::printf("  1 thread, 1 stream:                 %.3f\n", base);
  std::printf("  1 thread, 8 streams, wait+record:   %.3f (x%.2f)\n", median(one_waits), base / median(one_waits));
  for (int c = 0; c < 3; ++c) {
    std::printf("  %d threads, own stream:              %.3f (x%.2f)\n", counts[c], median(many[c]),
                base / median(many[c]));
    std::printf("  %d threads, 2 streams, wait+record:  %.3f (x%.2f)\n", counts[c], median(many_waits[c]),
                base / median(many_waits[c]));
  }
  std::printf("  handoff to 1 launcher thread:       total %.3f (x%.2f), application thread %.3f\n",
              median(handoff_total), base / median(handoff_total), median(handoff_app));
  return 0;
}
