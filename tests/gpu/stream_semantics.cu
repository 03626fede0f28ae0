// Kernels mixed with everything else a stream carries: copies, memsets,
// events, host functions, the legacy and per-thread default streams, blocking
// and non-blocking streams, several host threads, stream-ordered allocation
// and allocator-style memory reuse. One scenario per run:
//
//   stream_semantics <scenario>
//
// Scenarios: memcpy memset events hostfunc legacy per_thread threads
// threads_shared symbols pool_reuse caching_reuse.
//
// Built twice more with --default-stream per-thread: there stream 0 and the
// synchronous cudaMemcpy/cudaMemset mean the per-thread default stream. Every
// scenario is well-defined (race-free without acs) in both builds; where the
// legacy stream's implicit ordering is under test, the handle cudaStreamLegacy
// is named explicitly.
//
// Long kernels are issued right before the operation that must wait for them,
// so that a missing dependency is seen in the printed checksums.
#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "common.cuh"

using acs_test::fill;
using acs_test::print_device_words;
using acs_test::print_words;
using acs_test::rmw;
using std::uint32_t;

namespace {

constexpr int n_words = 1 << 14;  // 64 KiB buffers: 8 elements per thread
constexpr size_t n_bytes = n_words * sizeof(uint32_t);
constexpr int long_iters = 1200;  // tens of µs per kernel on an H200
constexpr int mid_iters = 300;
constexpr int short_iters = 4;

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
constexpr const char* build_name = "per-thread default stream";
#else
constexpr const char* build_name = "legacy default stream";
#endif

uint32_t* dev() { return acs_test::device_words(n_words); }

uint32_t* pinned() {
  void* p = nullptr;
  ACS_CHECK(cudaMallocHost(&p, n_bytes));
  std::memset(p, 0, n_bytes);
  return static_cast<uint32_t*>(p);
}

cudaStream_t make_stream(unsigned flags) {
  cudaStream_t s = nullptr;
  ACS_CHECK(cudaStreamCreateWithFlags(&s, flags));
  return s;
}

void pattern(uint32_t* h, uint32_t salt) {
  for (int i = 0; i < n_words; ++i) h[i] = acs_test::mix32(static_cast<uint32_t>(i) ^ salt);
}

// Prints cudaGetLastError: acs must neither leave errors behind nor clear them.
void print_last_error() { std::printf("last-error: %s\n", cudaGetErrorName(cudaGetLastError())); }

// ------------------------------------------------------------------ memcpy
void scenario_memcpy() {
  uint32_t *a = dev(), *b = dev(), *c = dev();
  uint32_t* h = pinned();
  std::vector<uint32_t> pageable(n_words), back(n_words);
  pattern(pageable.data(), 0x1234u);
  cudaStream_t d = 0;  // the default stream of this build

  fill(d, a, nullptr, n_words, 1);
  rmw(d, a, nullptr, nullptr, n_words, 2, long_iters);
  ACS_CHECK(cudaMemcpyAsync(b, a, n_bytes, cudaMemcpyDeviceToDevice, d));  // must wait for the writer of a
  rmw(d, a, b, nullptr, n_words, 3, short_iters);                          // must wait for the copy reading a
  ACS_CHECK(cudaMemcpyAsync(h, a, n_bytes, cudaMemcpyDeviceToHost, d));
  rmw(d, c, a, nullptr, n_words, 4, long_iters);
  ACS_CHECK(cudaMemcpy(a, pageable.data(), n_bytes, cudaMemcpyHostToDevice));  // the reader of a may still run
  rmw(d, b, a, nullptr, n_words, 5, short_iters);
  ACS_CHECK(cudaMemcpyAsync(a, h, n_bytes, cudaMemcpyHostToDevice, d));
  rmw(d, c, a, b, n_words, 6, long_iters);
  ACS_CHECK(cudaMemcpy(back.data(), c, n_bytes, cudaMemcpyDeviceToHost));  // no sync before: the copy must wait
  print_words("sync-d2h c", back.data(), n_words);
  print_words("async-d2h a", h, n_words);

  // The same on a created blocking stream, with 2D and pageable copies.
  cudaStream_t s = make_stream(cudaStreamDefault);
  rmw(s, a, c, nullptr, n_words, 7, long_iters);
  constexpr size_t width = 256 * sizeof(uint32_t), rows = n_words / 256 / 2;
  ACS_CHECK(cudaMemcpy2DAsync(b, width * 2, a, width, width, rows, cudaMemcpyDeviceToDevice, s));
  rmw(s, b, nullptr, nullptr, n_words, 8, mid_iters);
  ACS_CHECK(
      cudaMemcpyAsync(back.data(), b, n_bytes, cudaMemcpyDeviceToHost, s));  // pageable: returns when done
  print_words("pageable b", back.data(), n_words);
  rmw(s, c, b, nullptr, n_words, 9, long_iters);
  ACS_CHECK(cudaMemcpyAsync(h, c, n_bytes, cudaMemcpyDeviceToHost, s));
  ACS_CHECK(cudaStreamSynchronize(s));
  print_words("stream-sync c", h, n_words);
  print_last_error();
  print_device_words("a", a, n_words);
  print_device_words("b", b, n_words);
  print_device_words("c", c, n_words);
}

// ------------------------------------------------------------------ memset
void scenario_memset() {
  uint32_t *a = dev(), *b = dev(), *c = dev();
  cudaStream_t s = make_stream(cudaStreamNonBlocking);
  fill(s, a, nullptr, n_words, 11);
  rmw(s, a, nullptr, nullptr, n_words, 12, long_iters);
  ACS_CHECK(cudaMemsetAsync(a + n_words / 4, 0x5a, n_bytes / 2, s));  // partial: after the writer
  rmw(s, b, a, nullptr, n_words, 13, long_iters);
  ACS_CHECK(cudaMemsetAsync(a, 0, n_bytes, s));  // the reader of a must be done
  rmw(s, a, b, nullptr, n_words, 14, short_iters);
  ACS_CHECK(cudaMemset2DAsync(c, 1024, 0x33, 512, n_bytes / 1024, s));
  rmw(s, c, a, nullptr, n_words, 15, long_iters);
  ACS_CHECK(cudaStreamSynchronize(s));

  // Synchronous memset on the default stream, after default-stream kernels.
  cudaStream_t d = 0;
  rmw(d, b, c, nullptr, n_words, 16, long_iters);
  ACS_CHECK(cudaMemset(b, 0x11, n_bytes / 2));
  rmw(d, c, b, nullptr, n_words, 17, short_iters);
  print_last_error();
  print_device_words("a", a, n_words);
  print_device_words("b", b, n_words);
  print_device_words("c", c, n_words);
}

// ------------------------------------------------------------------ events
void scenario_events() {
  uint32_t *a = dev(), *b = dev(), *c = dev();
  uint32_t* snap = pinned();
  cudaStream_t s1 = make_stream(cudaStreamNonBlocking), s2 = make_stream(cudaStreamNonBlocking),
               s3 = make_stream(cudaStreamNonBlocking);
  cudaEvent_t e1, e2, e3, e4;
  ACS_CHECK(cudaEventCreateWithFlags(&e1, cudaEventDisableTiming));
  ACS_CHECK(cudaEventCreate(&e2));  // with timing
  ACS_CHECK(cudaEventCreateWithFlags(&e3, cudaEventBlockingSync | cudaEventDisableTiming));
  ACS_CHECK(cudaEventCreateWithFlags(&e4, cudaEventDisableTiming));

  // Reads a buffer on s3, which is ordered with nothing: only the host-side
  // wait before it makes the data complete.
  auto snapshot = [&](const char* name, const uint32_t* p) {
    ACS_CHECK(cudaMemcpyAsync(snap, p, n_bytes, cudaMemcpyDeviceToHost, s3));
    ACS_CHECK(cudaStreamSynchronize(s3));
    print_words(name, snap, n_words);
  };

  fill(s1, a, nullptr, n_words, 21);
  rmw(s1, a, nullptr, nullptr, n_words, 22, long_iters);
  ACS_CHECK(cudaEventRecord(e1, s1));
  ACS_CHECK(cudaStreamWaitEvent(s2, e1, 0));
  rmw(s2, b, a, nullptr, n_words, 23, long_iters);  // reads a after e1
  ACS_CHECK(cudaEventRecord(e2, s2));
  ACS_CHECK(cudaStreamWaitEvent(s1, e2, 0));
  rmw(s1, a, b, nullptr, n_words, 24, short_iters);  // overwrites a after s2's reader
  ACS_CHECK(cudaEventRecord(e3, s1));
  ACS_CHECK(cudaEventSynchronize(e3));
  snapshot("after-event-sync a", a);

  rmw(s1, a, nullptr, nullptr, n_words, 25, long_iters);
  ACS_CHECK(cudaEventRecord(e4, s1));
  while (cudaEventQuery(e4) == cudaErrorNotReady) {
  }
  (void)cudaGetLastError();  // in case the polls left cudaErrorNotReady: not an error under test here
  snapshot("after-event-query a", a);

  rmw(s2, b, a, nullptr, n_words, 26, long_iters);
  while (cudaStreamQuery(s2) == cudaErrorNotReady) {
  }
  (void)cudaGetLastError();
  snapshot("after-stream-query b", b);

  rmw(s1, c, b, nullptr, n_words, 27, long_iters);
  ACS_CHECK(cudaStreamSynchronize(s1));
  snapshot("after-stream-sync c", c);

  // An event recorded on one stream and waited for by the default stream.
  rmw(s2, c, a, nullptr, n_words, 28, long_iters);
  ACS_CHECK(cudaEventRecord(e1, s2));
  ACS_CHECK(cudaStreamWaitEvent(0, e1, 0));
  rmw(0, a, c, nullptr, n_words, 29, short_iters);
  ACS_CHECK(cudaStreamSynchronize(0));
  snapshot("after-default-sync a", a);
  print_last_error();
}

// ------------------------------------------------------------------ hostfunc
struct host_ctx {
  const uint32_t* in = nullptr;
  uint32_t* out = nullptr;
  std::uint64_t seen[3] = {};
  int calls = 0;
};

void CUDART_CB host_transform(void* p) {
  auto* c = static_cast<host_ctx*>(p);
  c->seen[c->calls++] = acs_test::fnv1a(c->in, n_bytes);
  for (int i = 0; i < n_words; ++i) c->out[i] = c->in[i] ^ 0xa5a5a5a5u;
}

void CUDART_CB host_observe(void* p) {
  auto* c = static_cast<host_ctx*>(p);
  c->seen[c->calls++] = acs_test::fnv1a(c->in, n_bytes);
}

void scenario_hostfunc() {
  uint32_t *a = dev(), *b = dev(), *c = dev();
  uint32_t *hp = pinned(), *q = pinned();
  uint32_t* mapped = nullptr;
  ACS_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&mapped), n_bytes, cudaHostAllocMapped));
  std::memset(mapped, 0, n_bytes);
  uint32_t* mapped_dev = nullptr;
  ACS_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&mapped_dev), mapped, 0));
  cudaStream_t s = make_stream(cudaStreamNonBlocking);

  host_ctx first{hp, q}, second{mapped, nullptr};
  fill(s, a, nullptr, n_words, 31);
  rmw(s, a, nullptr, nullptr, n_words, 32, long_iters);
  ACS_CHECK(cudaMemcpyAsync(hp, a, n_bytes, cudaMemcpyDeviceToHost, s));
  ACS_CHECK(cudaLaunchHostFunc(s, host_transform, &first));  // reads hp, writes q
  ACS_CHECK(cudaMemcpyAsync(b, q, n_bytes, cudaMemcpyHostToDevice, s));
  rmw(s, c, b, nullptr, n_words, 33, long_iters);
  rmw(s, mapped_dev, c, nullptr, n_words, 34, long_iters);  // a kernel writing mapped host memory
  ACS_CHECK(cudaLaunchHostFunc(s, host_observe, &second));  // must see that kernel's result
  rmw(s, mapped_dev, a, nullptr, n_words, 35, long_iters);  // must not start before the host function
  ACS_CHECK(cudaLaunchHostFunc(s, host_observe, &second));
  ACS_CHECK(cudaStreamSynchronize(s));
  std::printf("host function saw hp=%016llx mapped=%016llx,%016llx\n",
              static_cast<unsigned long long>(first.seen[0]), static_cast<unsigned long long>(second.seen[0]),
              static_cast<unsigned long long>(second.seen[1]));
  print_words("mapped", mapped, n_words);
  print_last_error();
  print_device_words("b", b, n_words);
  print_device_words("c", c, n_words);
}

// ------------------------------------------------------------------ legacy
// Implicit ordering: the legacy stream waits for all blocking streams and
// they wait for it. Non-blocking streams take part only through events.
void scenario_legacy() {
  uint32_t *a = dev(), *b = dev(), *c = dev();
  uint32_t* h = pinned();
  cudaStream_t s1 = make_stream(cudaStreamDefault), s2 = make_stream(cudaStreamDefault),
               nb = make_stream(cudaStreamNonBlocking);
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
  cudaStream_t legacy0 = cudaStreamLegacy;
#else
  cudaStream_t legacy0 = 0;  // stream 0 is the legacy stream in this build
#endif
  fill(s1, a, nullptr, n_words, 41);
  rmw(s1, a, nullptr, nullptr, n_words, 42, long_iters);
  rmw(cudaStreamLegacy, b, a, nullptr, n_words, 43, short_iters);  // waits for s1
  rmw(s2, c, b, nullptr, n_words, 44, long_iters);                 // waits for the legacy stream
  rmw(legacy0, a, c, nullptr, n_words, 45, short_iters);           // waits for s2 (and s1)
  rmw(s1, b, a, nullptr, n_words, 46, long_iters);                 // waits for the legacy stream
  cudaEvent_t e;
  ACS_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  ACS_CHECK(cudaEventRecord(e, s1));
  ACS_CHECK(cudaStreamWaitEvent(nb, e, 0));
  rmw(nb, c, b, nullptr, n_words, 47, long_iters);
  ACS_CHECK(cudaEventRecord(e, nb));
  ACS_CHECK(cudaStreamWaitEvent(cudaStreamLegacy, e, 0));
  rmw(cudaStreamLegacy, a, c, nullptr, n_words, 48, short_iters);
  rmw(s2, b, a, nullptr, n_words, 49, long_iters);  // waits for the legacy stream
  // A legacy-stream copy waits for the blocking streams' kernels.
  ACS_CHECK(cudaMemcpyAsync(h, b, n_bytes, cudaMemcpyDeviceToHost, cudaStreamLegacy));
  ACS_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
  print_words("legacy-copy b", h, n_words);
#ifndef CUDA_API_PER_THREAD_DEFAULT_STREAM
  // cudaMemcpy runs on the legacy stream: it waits for s1's kernel.
  std::vector<uint32_t> back(n_words);
  rmw(s1, c, a, nullptr, n_words, 50, long_iters);
  ACS_CHECK(cudaMemcpy(back.data(), c, n_bytes, cudaMemcpyDeviceToHost));
  print_words("memcpy c", back.data(), n_words);
#endif
  print_last_error();
  print_device_words("a", a, n_words);
  print_device_words("b", b, n_words);
  print_device_words("c", c, n_words);
}

// ------------------------------------------------------------------ per_thread
// Each thread works on its per-thread default stream; then the main thread's
// legacy-stream kernel must wait for all of them (implicit synchronisation).
void scenario_per_thread() {
  constexpr int threads = 4;
  std::vector<uint32_t*> x(threads), y(threads);
  for (int t = 0; t < threads; ++t) x[t] = dev(), y[t] = dev();
  uint32_t* z = dev();
  acs_test::rendezvous issued(threads + 1), done(threads + 1);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      ACS_CHECK(cudaSetDevice(0));
      const auto salt = static_cast<uint32_t>(100 * t);
      fill(cudaStreamPerThread, x[t], nullptr, n_words, salt);
      for (int k = 0; k < 12; ++k) {
        rmw(cudaStreamPerThread, y[t], x[t], nullptr, n_words, salt + 2 * k, mid_iters);
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
        rmw(0, x[t], y[t], nullptr, n_words, salt + 2 * k + 1, mid_iters);  // 0 is this thread's stream
#else
        rmw(cudaStreamPerThread, x[t], y[t], nullptr, n_words, salt + 2 * k + 1, mid_iters);
#endif
      }
      rmw(cudaStreamPerThread, x[t], nullptr, nullptr, n_words, salt + 99, long_iters);
      issued.arrive_and_wait();
      done.arrive_and_wait();  // keep the thread (and its stream) alive until the main thread is done
    });
  }
  issued.arrive_and_wait();
  // Legacy-stream work waits for every thread's per-thread stream.
  for (int t = 0; t < threads; ++t) rmw(cudaStreamLegacy, z, x[t], nullptr, n_words, 7 + t, short_iters);
  ACS_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
  std::vector<uint32_t> back(n_words);
  ACS_CHECK(cudaMemcpyAsync(back.data(), z, n_bytes, cudaMemcpyDeviceToHost, cudaStreamLegacy));
  ACS_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
  print_words("z", back.data(), n_words);
  done.arrive_and_wait();
  for (auto& th : pool) th.join();
  print_last_error();
  for (int t = 0; t < threads; ++t) {
    print_device_words(("x" + std::to_string(t)).c_str(), x[t], n_words);
    print_device_words(("y" + std::to_string(t)).c_str(), y[t], n_words);
  }
}

// ------------------------------------------------------------------ threads
// Several threads, each with its own stream (blocking and non-blocking) and
// buffers, mixing kernels with copies and events.
void scenario_threads() {
  constexpr int threads = 4;
  std::vector<std::vector<uint32_t>> results(threads * 3, std::vector<uint32_t>(n_words));
  std::vector<std::thread> pool;
  acs_test::rendezvous start(threads);
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      ACS_CHECK(cudaSetDevice(0));
      cudaStream_t s = make_stream(t % 2 ? cudaStreamNonBlocking : cudaStreamDefault);
      uint32_t *a = dev(), *b = dev(), *c = dev();
      cudaEvent_t e;
      ACS_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      acs_test::rng g(static_cast<std::uint64_t>(t) + 1);
      uint32_t* bufs[3] = {a, b, c};
      ACS_CHECK(cudaDeviceSynchronize());
      start.arrive_and_wait();
      for (int k = 0; k < 60; ++k) {
        const auto w = g.below(3), r = (w + 1 + g.below(2)) % 3;
        rmw(s, bufs[w], bufs[r], nullptr, n_words, static_cast<uint32_t>(g.next()),
            g.below(4) ? mid_iters : long_iters);
        if (k % 10 == 9) {
          ACS_CHECK(cudaMemcpyAsync(bufs[r], bufs[w], n_bytes / 2, cudaMemcpyDeviceToDevice, s));
          ACS_CHECK(cudaEventRecord(e, s));
          ACS_CHECK(cudaStreamWaitEvent(s, e, 0));
        }
      }
      for (int i = 0; i < 3; ++i)
        ACS_CHECK(cudaMemcpyAsync(results[t * 3 + i].data(), bufs[i], n_bytes, cudaMemcpyDeviceToHost, s));
      ACS_CHECK(cudaStreamSynchronize(s));
      ACS_CHECK(cudaStreamDestroy(s));
    });
  }
  for (auto& th : pool) th.join();
  print_last_error();
  for (int i = 0; i < threads * 3; ++i)
    print_words(("t" + std::to_string(i / 3) + "." + std::to_string(i % 3)).c_str(), results[i].data(),
                n_words);
}

// Several threads launching on one shared stream, each on its own buffers: the
// interleaving varies, but each thread's own order must hold.
void scenario_threads_shared() {
  constexpr int threads = 4;
  cudaStream_t s = make_stream(cudaStreamNonBlocking);
  std::vector<uint32_t*> bufs;
  for (int i = 0; i < threads * 2; ++i) bufs.push_back(dev());
  acs_test::rendezvous start(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      ACS_CHECK(cudaSetDevice(0));
      uint32_t *a = bufs[2 * t], *b = bufs[2 * t + 1];
      start.arrive_and_wait();
      for (int k = 0; k < 40; ++k) {
        const auto salt = static_cast<uint32_t>(t * 1000 + k);
        if (k % 2)
          rmw(s, a, b, nullptr, n_words, salt, k % 7 ? mid_iters : long_iters);
        else
          rmw(s, b, a, nullptr, n_words, salt, k % 5 ? short_iters : long_iters);
      }
    });
  }
  for (auto& th : pool) th.join();
  ACS_CHECK(cudaStreamSynchronize(s));
  print_last_error();
  for (int i = 0; i < threads * 2; ++i) print_device_words(("s" + std::to_string(i)).c_str(), bufs[i], n_words);
}

// ------------------------------------------------------------------ symbols
// Kernels without pointer parameters that work on __device__ globals: their
// footprint is invisible to argument inference.
constexpr int n_sym = 4096;
__device__ uint32_t g_a[n_sym];
__device__ uint32_t g_b[n_sym];

__global__ void sym_churn_a(uint32_t salt, int iters) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n_sym; i += gridDim.x * blockDim.x)
    g_a[i] = acs_test::churn(g_a[i] ^ salt, iters);
}
__global__ void sym_b_from_a(uint32_t salt, int iters) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n_sym; i += gridDim.x * blockDim.x)
    g_b[i] = acs_test::churn(g_b[i] ^ g_a[(i * 5 + 3) % n_sym] ^ salt, iters);
}
__global__ void sym_a_from_b(uint32_t salt, int iters) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n_sym; i += gridDim.x * blockDim.x)
    g_a[i] = acs_test::churn(g_a[i] ^ g_b[(i * 3 + 1) % n_sym] ^ salt, iters);
}

void scenario_symbols() {
  cudaStream_t s = make_stream(cudaStreamNonBlocking);
  std::vector<uint32_t> h(n_sym);
  for (int i = 0; i < n_sym; ++i) h[i] = acs_test::mix32(static_cast<uint32_t>(i));
  ACS_CHECK(cudaMemcpyToSymbolAsync(g_a, h.data(), sizeof(g_a), 0, cudaMemcpyHostToDevice, s));
  ACS_CHECK(cudaMemcpyToSymbolAsync(g_b, h.data(), sizeof(g_b), 0, cudaMemcpyHostToDevice, s));
  for (int k = 0; k < 6; ++k) {
    sym_churn_a<<<acs_test::small_grid, acs_test::small_block, 0, s>>>(60 + k, long_iters * 2);
    sym_b_from_a<<<acs_test::small_grid, acs_test::small_block, 0, s>>>(70 + k, short_iters);
    sym_a_from_b<<<acs_test::small_grid, acs_test::small_block, 0, s>>>(80 + k, long_iters);
  }
  ACS_CHECK(cudaGetLastError());
  ACS_CHECK(cudaMemcpyFromSymbolAsync(h.data(), g_a, sizeof(g_a), 0, cudaMemcpyDeviceToHost, s));
  ACS_CHECK(cudaStreamSynchronize(s));
  print_words("g_a", h.data(), n_sym);
  ACS_CHECK(cudaMemcpyFromSymbol(h.data(), g_b, sizeof(g_b)));
  print_words("g_b", h.data(), n_sym);
  print_last_error();
}

// ------------------------------------------------------------------ pool_reuse
// cudaFreeAsync then cudaMallocAsync on the same stream returns the same
// memory at once; the new writer must wait for every reader of the old block.
void scenario_pool_reuse() {
  constexpr int rounds = 8;
  cudaStream_t s = make_stream(cudaStreamNonBlocking);
  std::vector<uint32_t*> out;
  for (int i = 0; i < rounds; ++i) out.push_back(dev());
  int reused = 0;
  for (int i = 0; i < rounds; ++i) {
    uint32_t *x = nullptr, *y = nullptr;
    ACS_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&x), n_bytes, s));
    fill(s, x, nullptr, n_words, 200 + i);
    rmw(s, out[i], x, nullptr, n_words, 300 + i, long_iters);  // long reader of x
    ACS_CHECK(cudaFreeAsync(x, s));
    ACS_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&y), n_bytes, s));
    reused += x == y;
    fill(s, y, nullptr, n_words, 400 + i);  // an immediate writer into (probably) the same memory
    rmw(s, out[i], y, nullptr, n_words, 500 + i, short_iters);
    ACS_CHECK(cudaFreeAsync(y, s));
  }
  ACS_CHECK(cudaStreamSynchronize(s));
  std::fprintf(stderr, "acs-test: reused=%d rounds=%d\n", reused, rounds);
  print_last_error();
  for (int i = 0; i < rounds; ++i) print_device_words(("out" + std::to_string(i)).c_str(), out[i], n_words);
}

// ------------------------------------------------------------------ caching_reuse
// A caching allocator in the application (as PyTorch's): blocks of one big
// allocation are reused on the same stream with no CUDA call in between.
void scenario_caching_reuse() {
  constexpr int rounds = 8, slots = 4;
  cudaStream_t s = make_stream(cudaStreamNonBlocking);
  uint32_t* arena = acs_test::device_words(static_cast<size_t>(n_words) * slots);
  std::vector<uint32_t*> free_list;
  for (int k = slots - 1; k >= 0; --k) free_list.push_back(arena + static_cast<size_t>(k) * n_words);
  auto alloc = [&] {
    auto* p = free_list.back();
    free_list.pop_back();
    return p;
  };
  auto release = [&](uint32_t* p) { free_list.push_back(p); };
  std::vector<uint32_t*> out;
  for (int i = 0; i < rounds; ++i) out.push_back(dev());
  for (int i = 0; i < rounds; ++i) {
    uint32_t* t1 = alloc();
    fill(s, t1, nullptr, n_words, 600 + i);
    rmw(s, out[i], t1, nullptr, n_words, 700 + i, long_iters);
    release(t1);
    uint32_t* t2 = alloc();  // == t1
    fill(s, t2, nullptr, n_words, 800 + i);
    // A block split: a tensor straddling the middle of the reused one.
    uint32_t* half = t2 + n_words / 2;
    rmw(s, half, out[i], nullptr, n_words / 2, 900 + i, short_iters);
    rmw(s, out[i], t2, nullptr, n_words, 1000 + i, short_iters);
    release(t2);
  }
  ACS_CHECK(cudaStreamSynchronize(s));
  print_last_error();
  for (int i = 0; i < rounds; ++i) print_device_words(("out" + std::to_string(i)).c_str(), out[i], n_words);
}

}  // namespace

int main(int argc, char** argv) {
  acs_test::require_device();
  const std::string scenario = argc > 1 ? argv[1] : "";
  const std::pair<const char*, void (*)()> scenarios[] = {
      {"memcpy", scenario_memcpy},
      {"memset", scenario_memset},
      {"events", scenario_events},
      {"hostfunc", scenario_hostfunc},
      {"legacy", scenario_legacy},
      {"per_thread", scenario_per_thread},
      {"threads", scenario_threads},
      {"threads_shared", scenario_threads_shared},
      {"symbols", scenario_symbols},
      {"pool_reuse", scenario_pool_reuse},
      {"caching_reuse", scenario_caching_reuse},
  };
  for (const auto& [name, fn] : scenarios) {
    if (scenario != name) continue;
    std::printf("scenario %s (%s build)\n", name, build_name);
    fn();
    ACS_CHECK(cudaDeviceSynchronize());
    return 0;
  }
  std::fprintf(stderr, "FAILED: unknown scenario '%s'\n", scenario.c_str());
  return 1;
}
