// Did acs really overlap independent kernels, and only those?
//
//   concurrency wide  [--width=16] [--min-us=100]   fan-out of independent kernels, each with
//                                                  its own input and output buffer, then one
//                                                  fan-in kernel reading all outputs
//   concurrency chain [--length=12] [--min-us=100]  a chain where each kernel reads what the
//                                                  previous one wrote
//   concurrency device_variable [--min-us=100]     a kernel that publishes a value in a __device__
//                                                  variable after --min-us, then one that reads
//                                                  it (and shares no buffer with the first): its
//                                                  PTX shows the write, so acs orders them
//   concurrency shared_input [--width=16] [--min-us=100]
//                                                  a fan-out of kernels that all read one input
//                                                  buffer (each writes its own), then one kernel
//                                                  that overwrites that input: only the PTX of
//                                                  timed_rmw shows that r0 is never written
//
// Every kernel stamps its first start and last end with %globaltimer into a
// buffer of its own (separate allocations, so the stamps add no conflicts).
// The program prints the data checksums to stdout (compared bit for bit with
// the native run) and the measured overlap to stderr as
//   acs-test: timed_kernels=N max_concurrent=K overlap_pairs=P span_us=S busy_us=B
// Kernels last at least --min-us, so any overlap acs creates is far above the
// timer's resolution; pairs count as overlapping only beyond 2 µs.
#include <algorithm>
#include <string>
#include <vector>

#include "common.cuh"

using std::uint32_t;
using stamp_t = unsigned long long;

namespace {

constexpr int grid = 4, block = 128, n = grid * block;  // a small kernel: leaves room for others

// w[i] = f(w[i], r[j]): reads, computes, waits until the kernel has lasted
// min_ns, then writes. A reader running beside its writer sees old data.
__global__ void timed_rmw(uint32_t* w, const uint32_t* r0, const uint32_t* r1, uint32_t salt, int iters,
                          stamp_t min_ns, stamp_t* stamp) {
  __shared__ stamp_t t0;
  if (threadIdx.x == 0) {
    t0 = acs_test::global_ns();
    atomicMin(&stamp[0], t0);
  }
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t acc = w[i] ^ salt;
  if (r0) acc = acs_test::mix32(acc ^ r0[(static_cast<uint32_t>(i) * 17u + (acc & 255u)) % n]);
  if (r1) acc = acs_test::mix32(acc + r1[(static_cast<uint32_t>(i) + (acc >> 24)) % n]);
  acc = acs_test::churn(acc, iters);
  while (acs_test::global_ns() - t0 < min_ns) {
  }
  w[i] = acc;
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(&stamp[1], acs_test::global_ns());
}

constexpr int max_width = 32;
struct fan_in_args {
  const uint32_t* in[max_width];  // pointers by value: visible to argument inference
  int count;
};

// Depends on every kernel of the fan-out.
__global__ void fan_in(uint32_t* out, fan_in_args a, stamp_t* stamp) {
  if (threadIdx.x == 0) atomicMin(&stamp[0], acs_test::global_ns());
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t acc = out[i];
  for (int k = 0; k < a.count; ++k) acc = acs_test::mix32(acc ^ a.in[k][i]);
  out[i] = acc;
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(&stamp[1], acs_test::global_ns());
}

__device__ uint32_t published;

// w[i] = r[i] + salt, then, once the kernel has lasted min_ns, `published` = salt.
__global__ void publish(uint32_t* w, const uint32_t* r, uint32_t salt, stamp_t min_ns, stamp_t* stamp) {
  const stamp_t t0 = acs_test::global_ns();
  if (threadIdx.x == 0 && blockIdx.x == 0) atomicMin(&stamp[0], t0);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  w[i] = r[i] + salt;
  while (acs_test::global_ns() - t0 < min_ns) {
  }
  if (i == 0) {
    published = salt;
    atomicMax(&stamp[1], acs_test::global_ns());
  }
}

// Reads `published`, which no argument shows.
__global__ void consume(uint32_t* w, const uint32_t* r, stamp_t* stamp) {
  if (threadIdx.x == 0 && blockIdx.x == 0) atomicMin(&stamp[0], acs_test::global_ns());
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  w[i] = acs_test::mix32(r[i] ^ published);
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(&stamp[1], acs_test::global_ns());
}

struct interval {
  stamp_t start, end;
};

stamp_t* new_stamp() {
  void* p = nullptr;
  ACS_CHECK(cudaMalloc(&p, 2 * sizeof(stamp_t)));
  const stamp_t init[2] = {~stamp_t{0}, 0};
  ACS_CHECK(cudaMemcpy(p, init, sizeof(init), cudaMemcpyHostToDevice));
  return static_cast<stamp_t*>(p);
}

uint32_t* new_buffer(uint32_t salt) {
  void* p = nullptr;
  ACS_CHECK(cudaMalloc(&p, n * sizeof(uint32_t)));
  std::vector<uint32_t> h(n);
  for (int i = 0; i < n; ++i) h[i] = acs_test::mix32(static_cast<uint32_t>(i) * 31u + salt);
  ACS_CHECK(cudaMemcpy(p, h.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
  return static_cast<uint32_t*>(p);
}

void report(const std::vector<stamp_t*>& stamps) {
  std::vector<interval> iv;
  for (stamp_t* s : stamps) {
    stamp_t h[2];
    ACS_CHECK(cudaMemcpy(h, s, sizeof(h), cudaMemcpyDeviceToHost));
    iv.push_back({h[0], h[1]});
  }
  constexpr stamp_t tolerance_ns = 2000;
  int pairs = 0;
  for (size_t i = 0; i < iv.size(); ++i)
    for (size_t j = i + 1; j < iv.size(); ++j)
      if (std::min(iv[i].end, iv[j].end) > std::max(iv[i].start, iv[j].start) + tolerance_ns) ++pairs;
  // Sweep over intervals shrunk by half the tolerance at each end.
  std::vector<std::pair<stamp_t, int>> edges;
  stamp_t busy = 0, first = ~stamp_t{0}, last = 0;
  for (const interval& x : iv) {
    busy += x.end - x.start;
    first = std::min(first, x.start);
    last = std::max(last, x.end);
    if (x.end > x.start + tolerance_ns) {
      edges.push_back({x.start + tolerance_ns / 2, +1});
      edges.push_back({x.end - tolerance_ns / 2, -1});
    }
  }
  std::sort(edges.begin(), edges.end());  // at equal times, ends (-1) sort before starts
  int now = 0, peak = 0;
  for (const auto& e : edges) peak = std::max(peak, now += e.second);
  std::fprintf(
      stderr, "acs-test: timed_kernels=%zu max_concurrent=%d overlap_pairs=%d span_us=%.1f busy_us=%.1f\n",
      iv.size(), peak, pairs, static_cast<double>(last - first) / 1e3, static_cast<double>(busy) / 1e3);
}

}  // namespace

int main(int argc, char** argv) {
  acs_test::require_device();
  const std::string scenario = argc > 1 ? argv[1] : "";
  const auto min_ns = static_cast<stamp_t>(acs_test::arg_long(argc, argv, "--min-us", 100)) * 1000;
  cudaStream_t s = nullptr;
  ACS_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  std::vector<stamp_t*> stamps;
  std::vector<uint32_t*> bufs;

  if (scenario == "wide") {
    const int width = std::clamp(static_cast<int>(acs_test::arg_long(argc, argv, "--width", 16)), 2, max_width);
    // Inputs are separate too: argument inference cannot tell a pointer that is
    // only read from one that is written, so a shared input would serialise them.
    std::vector<uint32_t*> inputs;
    for (int k = 0; k < width; ++k) inputs.push_back(new_buffer(7u + static_cast<uint32_t>(k)));
    for (int k = 0; k < width; ++k) bufs.push_back(new_buffer(100u + static_cast<uint32_t>(k)));
    for (int k = 0; k <= width; ++k) stamps.push_back(new_stamp());
    uint32_t* out = new_buffer(99);
    fan_in_args args{};
    for (int k = 0; k < width; ++k) args.in[k] = bufs[k];
    args.count = width;
    ACS_CHECK(cudaDeviceSynchronize());
    std::printf("wide width=%d\n", width);
    for (int k = 0; k < width; ++k)
      timed_rmw<<<grid, block, 0, s>>>(bufs[k], inputs[k], nullptr, 1000u + static_cast<uint32_t>(k), 200,
                                       min_ns, stamps[k]);
    fan_in<<<grid, block, 0, s>>>(out, args, stamps[width]);
    ACS_CHECK(cudaGetLastError());
    ACS_CHECK(cudaStreamSynchronize(s));
    for (int k = 0; k < width; ++k) acs_test::print_device_words(("w" + std::to_string(k)).c_str(), bufs[k], n);
    acs_test::print_device_words("fan-in", out, n);
  } else if (scenario == "device_variable") {
    uint32_t *in = new_buffer(5), *a = new_buffer(6), *b = new_buffer(7);
    for (int k = 0; k < 2; ++k) stamps.push_back(new_stamp());
    const uint32_t zero = 0;
    ACS_CHECK(cudaMemcpyToSymbol(published, &zero, sizeof zero));
    ACS_CHECK(cudaDeviceSynchronize());
    std::printf("device_variable\n");
    publish<<<grid, block, 0, s>>>(a, in, 0x5eedu, min_ns, stamps[0]);
    consume<<<grid, block, 0, s>>>(b, in, stamps[1]);  // must see 0x5eed
    ACS_CHECK(cudaGetLastError());
    ACS_CHECK(cudaStreamSynchronize(s));
    acs_test::print_device_words("a", a, n);
    acs_test::print_device_words("b", b, n);
  } else if (scenario == "shared_input") {
    const int width = std::clamp(static_cast<int>(acs_test::arg_long(argc, argv, "--width", 16)), 2, max_width);
    uint32_t* input = new_buffer(7u);
    for (int k = 0; k < width; ++k) bufs.push_back(new_buffer(100u + static_cast<uint32_t>(k)));
    for (int k = 0; k <= width; ++k) stamps.push_back(new_stamp());
    ACS_CHECK(cudaDeviceSynchronize());
    std::printf("shared_input width=%d\n", width);
    for (int k = 0; k < width; ++k)
      timed_rmw<<<grid, block, 0, s>>>(bufs[k], input, nullptr, 1000u + static_cast<uint32_t>(k), 200, min_ns,
                                       stamps[k]);
    // Overwrites what every reader above reads: must wait for all of them (write after read).
    timed_rmw<<<grid, block, 0, s>>>(input, bufs[0], bufs[width - 1], 3000u, 200, 0, stamps[width]);
    ACS_CHECK(cudaGetLastError());
    ACS_CHECK(cudaStreamSynchronize(s));
    for (int k = 0; k < width; ++k) acs_test::print_device_words(("w" + std::to_string(k)).c_str(), bufs[k], n);
    acs_test::print_device_words("input", input, n);
  } else if (scenario == "chain") {
    const int length = static_cast<int>(acs_test::arg_long(argc, argv, "--length", 12));
    uint32_t *a = new_buffer(1), *b = new_buffer(2);
    for (int k = 0; k < length; ++k) stamps.push_back(new_stamp());
    ACS_CHECK(cudaDeviceSynchronize());
    std::printf("chain length=%d\n", length);
    for (int k = 0; k < length; ++k)  // b = f(b, a), a = f(a, b), ...: each reads the previous one's output
      timed_rmw<<<grid, block, 0, s>>>(k % 2 ? a : b, k % 2 ? b : a, nullptr, 2000u + static_cast<uint32_t>(k),
                                       200, min_ns, stamps[k]);
    ACS_CHECK(cudaGetLastError());
    ACS_CHECK(cudaStreamSynchronize(s));
    acs_test::print_device_words("a", a, n);
    acs_test::print_device_words("b", b, n);
  } else {
    std::fprintf(stderr, "FAILED: unknown scenario '%s'\n", scenario.c_str());
    return 1;
  }
  std::printf("last-error: %s\n", cudaGetErrorName(cudaGetLastError()));
  report(stamps);
  return 0;
}
