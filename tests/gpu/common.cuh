#pragma once
// Shared helpers for the GPU test programs (tests/gpu/*.cu).
//
// Every program prints only deterministic results to stdout; the harness
// (run_case.sh) compares that output bit for bit between a native run and a
// run under LD_PRELOAD=libacs.so. Measurements that legitimately differ
// (timings, overlap) go to stderr as `acs-test: key=value ...` lines.
//
// Kernels read their inputs first, compute for a while, then write: a kernel
// that acs wrongly runs concurrently with one it depends on reads stale or
// half-written data, and the checksums change.
#include <cuda_runtime.h>

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#define ACS_CHECK(expr) ::acs_test::check((expr), #expr, __FILE__, __LINE__)

namespace acs_test {

// CTest SKIP_RETURN_CODE of every GPU test.
constexpr int skip_code = 77;

inline void check(cudaError_t e, const char* what, const char* file, int line) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "FAILED: %s returned %s (%s) at %s:%d\n", what, cudaGetErrorName(e),
               cudaGetErrorString(e), file, line);
  std::fflush(stdout);
  std::exit(1);
}

// Exits with skip_code, visibly, when there is no usable device.
inline void require_device() {
  // Line-buffered even into a file: a run killed for hanging still shows how far it got.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    std::printf("SKIPPED: no CUDA device (cudaGetDeviceCount: %s)\n",
                e != cudaSuccess ? cudaGetErrorName(e) : "0 devices");
    std::fflush(stdout);
    std::exit(skip_code);
  }
  ACS_CHECK(cudaSetDevice(0));
}

inline std::uint64_t fnv1a(const void* data, std::size_t bytes, std::uint64_t h = 0xcbf29ce484222325ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < bytes; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

// One line per buffer: size, checksum of every byte, and the first and last words.
inline void print_words(const char* name, const std::uint32_t* w, std::size_t n) {
  std::printf("%-14s n=%-8zu fnv=%016llx", name, n,
              static_cast<unsigned long long>(fnv1a(w, n * sizeof(std::uint32_t))));
  const std::size_t k = n < 4 ? n : 4;
  std::printf(" head=");
  for (std::size_t i = 0; i < k; ++i) std::printf("%08x%s", w[i], i + 1 < k ? "," : "");
  std::printf(" tail=");
  for (std::size_t i = n - k; i < n; ++i) std::printf("%08x%s", w[i], i + 1 < n ? "," : "");
  std::printf("\n");
}

// Copies a device buffer back (synchronously, on the legacy stream after a full
// device sync, so that the copy itself cannot race) and prints it.
inline void print_device_words(const char* name, const void* dev, std::size_t n) {
  std::vector<std::uint32_t> h(n);
  ACS_CHECK(cudaDeviceSynchronize());
  ACS_CHECK(cudaMemcpy(h.data(), dev, n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  print_words(name, h.data(), n);
}

inline const char* arg_value(int argc, char** argv, const char* key, const char* fallback) {
  const std::size_t len = std::strlen(key);
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], key, len) == 0 && argv[i][len] == '=') return argv[i] + len + 1;
  return fallback;
}

inline long arg_long(int argc, char** argv, const char* key, long fallback) {
  const char* v = arg_value(argc, argv, key, nullptr);
  return v ? std::strtol(v, nullptr, 0) : fallback;
}

// A one-shot rendezvous of `count` host threads (std::barrier is C++20; the
// GPU programs are C++17, as nvcc's C++20 is unknown to our CMake).
class rendezvous {
 public:
  explicit rendezvous(int count) : left_(count) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (--left_ == 0) {
      all_.notify_all();
      return;
    }
    all_.wait(lock, [this] { return left_ == 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable all_;
  int left_;
};

// Deterministic host-side generator for test programs (splitmix64).
struct rng {
  std::uint64_t s;
  explicit rng(std::uint64_t seed) : s(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(next() % n); }
};

// ---------------------------------------------------------------- device side

__host__ __device__ inline std::uint32_t mix32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

__device__ inline unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Busy-waits until the calling thread has spent `ns` nanoseconds here: a slow producer or a reader
// that waits before it reads, so that a wrong reordering shows in the data.
__device__ inline void spin_for(unsigned long long ns) {
  const unsigned long long t0 = global_ns();
  while (global_ns() - t0 < ns) {
  }
}

// The work of one element: `iters` rounds of hashing seeded by everything read.
__device__ inline std::uint32_t churn(std::uint32_t acc, int iters) {
  for (int k = 0; k < iters; ++k) acc = mix32(acc + static_cast<std::uint32_t>(k));
  return acc;
}

// w[i] = f(w[i], r0[j0], r1[j1]) for i < n, where j depends on the data read:
// reads first, writes after `iters` rounds. r0/r1 may be null. Within a kernel
// the read buffers are never the written one, so the kernel is deterministic.
__global__ void rmw_kernel(std::uint32_t* w, const std::uint32_t* r0, const std::uint32_t* r1, int n,
                           std::uint32_t salt, int iters) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    std::uint32_t acc = w[i] ^ salt;
    if (r0)
      acc = mix32(acc ^ r0[(static_cast<std::uint32_t>(i) + (acc & 1023u)) % static_cast<std::uint32_t>(n)]);
    if (r1)
      acc = mix32(acc + r1[(static_cast<std::uint32_t>(i) * 7u + (acc >> 22)) % static_cast<std::uint32_t>(n)]);
    w[i] = churn(acc, iters);
  }
}

// Writes without reading w: w[i] = f(i, salt, r0).
__global__ void fill_kernel(std::uint32_t* w, const std::uint32_t* r0, int n, std::uint32_t salt) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    std::uint32_t v = mix32(static_cast<std::uint32_t>(i) * 0x9e3779b9u + salt);
    if (r0) v ^= r0[i];
    w[i] = v;
  }
}

// Grid used by the helpers: small on purpose, so that independent kernels can
// share the GPU.
constexpr int small_grid = 8;
constexpr int small_block = 256;

inline void rmw(cudaStream_t s, std::uint32_t* w, const std::uint32_t* r0, const std::uint32_t* r1, int n,
                std::uint32_t salt, int iters) {
  rmw_kernel<<<small_grid, small_block, 0, s>>>(w, r0, r1, n, salt, iters);
  ACS_CHECK(cudaGetLastError());
}

inline void fill(cudaStream_t s, std::uint32_t* w, const std::uint32_t* r0, int n, std::uint32_t salt) {
  fill_kernel<<<small_grid, small_block, 0, s>>>(w, r0, n, salt);
  ACS_CHECK(cudaGetLastError());
}

inline std::uint32_t* device_words(std::size_t n) {
  void* p = nullptr;
  ACS_CHECK(cudaMalloc(&p, n * sizeof(std::uint32_t)));
  ACS_CHECK(cudaMemset(p, 0, n * sizeof(std::uint32_t)));
  // cudaMemset is asynchronous and on the default stream: without this, a
  // non-blocking stream could read the buffer before it is zeroed.
  ACS_CHECK(cudaDeviceSynchronize());
  return static_cast<std::uint32_t*>(p);
}

}  // namespace acs_test
