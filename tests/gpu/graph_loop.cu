// [graph_replay] A loop whose body's shape depends on the input, for graph replay
// (scheduler/graph_replay.hpp, ACS_GRAPH=auto): even iterations issue a fan-out of three kernels
// and a fan-in (shape A), odd ones two chains and a join (shape B), iteration 100 alone a chain of
// four (shape C, rare: never built). Each iteration uses other buffers, so a replayed graph must
// have its arguments updated. Modes:
//   loop        a stream synchronize after each iteration (the segment's flush), digests printed
//               every 25 iterations;
//   free        no host sync between iterations: segments end at the length limit, the idle time
//               or a device-wide call only;
//   spin        after each iteration a kernel sets a flag in mapped pinned memory and the host
//               spins on it without any CUDA call: only the idle flush can issue that kernel
//               under graph replay (`acs-test: timeouts=N`, each spin given up after 5 s);
//   sampled     first 120 iterations whose every launch asks another dynamic shared memory size
//               (unused: the same results), so that no segment recurs and graph replay samples
//               (ACS_GRAPH_SAMPLE: most segments skimmed), then the loop above: its shapes found
//               all the same and replayed. A stream synchronize after each iteration.
// stdout: digests of every buffer, identical natively and under acs.
#include <chrono>
#include <cstring>
#include <string>

#include "common.cuh"

namespace {

constexpr int buffers = 16;
constexpr int words = 4096;
constexpr int iterations = 200;

// Reads both inputs first, computes a while (a few µs), then writes: a wrong order changes the digest.
__global__ void step(const std::uint32_t* a, const std::uint32_t* b, std::uint32_t* out, std::uint32_t salt) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= words) return;
  std::uint32_t x = a[i] * 2654435761u + b[(i * 7) % words] + salt;
  for (int r = 0; r < 64; ++r) x = x * 1664525u + 1013904223u + (x >> 13);
  out[i] = x;
}

__global__ void set_flag(const std::uint32_t* last, volatile std::uint32_t* flag, std::uint32_t value) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    (void)last[0];
    *flag = value;
    __threadfence_system();
  }
}

std::uint32_t* buf(std::uint32_t* const* b, int iteration, int k) { return b[(iteration * 5 + k * 3) % buffers]; }

// `fresh`: each launch asks another dynamic shared memory size (the kernel uses none), another
// launch configuration for graph replay's keys: no segment recurs.
bool fresh = false;
unsigned launches = 0;

void launch(cudaStream_t s, const std::uint32_t* a, const std::uint32_t* b, std::uint32_t* out, std::uint32_t salt) {
  const std::size_t shared = fresh ? 16 * (launches % 997) : 0;
  ++launches;
  step<<<words / 256, 256, shared, s>>>(a, b, out, salt);
  ACS_CHECK(cudaGetLastError());
}

// One iteration's body: its shape chosen by the iteration, its buffers rotated.
void body(cudaStream_t s, std::uint32_t* const* b, int i) {
  const auto salt = static_cast<std::uint32_t>(i);
  if (i == 100) {  // C: a chain of four
    launch(s, buf(b, i, 0), buf(b, i, 1), buf(b, i, 2), salt);
    launch(s, buf(b, i, 2), buf(b, i, 1), buf(b, i, 3), salt + 1);
    launch(s, buf(b, i, 3), buf(b, i, 1), buf(b, i, 4), salt + 2);
    launch(s, buf(b, i, 4), buf(b, i, 1), buf(b, i, 0), salt + 3);
  } else if (i % 2 == 0) {  // A: three independent kernels, then one reading all three outputs
    launch(s, buf(b, i, 0), buf(b, i, 0), buf(b, i, 1), salt);
    launch(s, buf(b, i, 0), buf(b, i, 0), buf(b, i, 2), salt + 1);
    launch(s, buf(b, i, 0), buf(b, i, 0), buf(b, i, 3), salt + 2);
    launch(s, buf(b, i, 1), buf(b, i, 2), buf(b, i, 4), salt + 3);
    launch(s, buf(b, i, 4), buf(b, i, 3), buf(b, i, 5), salt + 4);
  } else {  // B: two chains of two, then a join
    launch(s, buf(b, i, 0), buf(b, i, 0), buf(b, i, 1), salt);
    launch(s, buf(b, i, 2), buf(b, i, 2), buf(b, i, 3), salt + 1);
    launch(s, buf(b, i, 1), buf(b, i, 1), buf(b, i, 4), salt + 2);
    launch(s, buf(b, i, 3), buf(b, i, 3), buf(b, i, 5), salt + 3);
    launch(s, buf(b, i, 4), buf(b, i, 5), buf(b, i, 6), salt + 4);
  }
}

void print_all(std::uint32_t* const* b, const char* when) {
  for (int k = 0; k < buffers; ++k) {
    const std::string name = std::string(when) + "." + std::to_string(k);
    acs_test::print_device_words(name.c_str(), b[k], words);
  }
}

}  // namespace

int main(int argc, char** argv) {
  acs_test::require_device();
  const std::string mode = argc > 1 ? argv[1] : "loop";
  if (mode != "loop" && mode != "free" && mode != "spin" && mode != "sampled") {
    std::fprintf(stderr, "usage: %s loop|free|spin|sampled\n", argv[0]);
    return 2;
  }
  std::uint32_t* b[buffers];
  std::vector<std::uint32_t> init(words);
  for (int k = 0; k < buffers; ++k) {
    for (int i = 0; i < words; ++i) init[i] = static_cast<std::uint32_t>(k * 1000003 + i * 7919);
    ACS_CHECK(cudaMalloc(&b[k], words * sizeof(std::uint32_t)));
    ACS_CHECK(cudaMemcpy(b[k], init.data(), words * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  }
  cudaStream_t s;
  ACS_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  std::uint32_t* flag_host = nullptr;
  std::uint32_t* flag_dev = nullptr;
  ACS_CHECK(cudaHostAlloc(&flag_host, sizeof(std::uint32_t), cudaHostAllocMapped));
  *flag_host = 0;
  ACS_CHECK(cudaHostGetDevicePointer(&flag_dev, flag_host, 0));
  unsigned timeouts = 0;
  if (mode == "sampled") {
    fresh = true;
    for (int i = 0; i < 120; ++i) {
      body(s, b, i);
      ACS_CHECK(cudaStreamSynchronize(s));
    }
    fresh = false;
    print_all(b, "fresh");
  }
  for (int i = 0; i < iterations; ++i) {
    body(s, b, i);
    if (mode == "loop" || mode == "sampled") {
      ACS_CHECK(cudaStreamSynchronize(s));
      if (i % 25 == 24) print_all(b, ("iteration" + std::to_string(i)).c_str());
    } else if (mode == "spin") {
      set_flag<<<1, 32, 0, s>>>(buf(b, i, 0), flag_dev, static_cast<std::uint32_t>(i + 1));
      ACS_CHECK(cudaGetLastError());
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      volatile std::uint32_t* flag = flag_host;
      while (*flag != static_cast<std::uint32_t>(i + 1) && std::chrono::steady_clock::now() < until) {
      }
      if (*flag != static_cast<std::uint32_t>(i + 1)) ++timeouts;
    }
  }
  ACS_CHECK(cudaDeviceSynchronize());
  print_all(b, "final");
  std::fprintf(stderr, "acs-test: timeouts=%u\n", timeouts);
  ACS_CHECK(cudaStreamDestroy(s));
  ACS_CHECK(cudaFreeHost(flag_host));
  for (std::uint32_t* p : b) ACS_CHECK(cudaFree(p));
  return 0;
}
