// The program the tracing tests record (ACS_TRACE) and measure (ACS_STATS).
//
//   trace_program independent [--us=2000]  an upload and a memset, then two long
//                                          kernels of few blocks on one stream,
//                                          trace_first and trace_second, writing
//                                          separate buffers: acs may overlap them
//   trace_program dependent [--us=2000]    the same, but trace_second reads what
//                                          trace_first wrote: they must not overlap
//   trace_program wide [--width=16] [--us=500]
//                                          a fan-out of independent trace_wide
//                                          kernels, then trace_fan_in over all
//
// Kernels read their inputs, spin on %globaltimer until they have lasted
// --us, then write; stdout gets only the data's checksums (compared with the
// native run), never timings. Independent kernels share no allocation at all:
// inferred footprints are whole allocations, read and written.
#include <algorithm>
#include <string>
#include <vector>

#include "common.cuh"

using std::uint32_t;

namespace {

constexpr int grid = 2, block = 64, n = grid * block;  // few blocks: leaves the GPU room for others
constexpr int max_width = 32;

__device__ void spin_then_write(uint32_t* out, const uint32_t* in, uint32_t salt, unsigned long long ns) {
  const unsigned long long t0 = acs_test::global_ns();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t acc = acs_test::churn(in[i] ^ salt, 64);
  while (acs_test::global_ns() - t0 < ns) {
  }
  out[i] = acc;
}

// Two names, so that the trace checker can tell the kernels apart.
__global__ void trace_first(uint32_t* out, const uint32_t* in, unsigned long long ns) {
  spin_then_write(out, in, 1u, ns);
}
__global__ void trace_second(uint32_t* out, const uint32_t* in, unsigned long long ns) {
  spin_then_write(out, in, 2u, ns);
}
__global__ void trace_wide(uint32_t* inout, uint32_t salt, unsigned long long ns) {
  spin_then_write(inout, inout, salt, ns);
}

struct fan_in_args {
  const uint32_t* in[max_width];  // by value: visible to argument inference
  int count;
};
__global__ void trace_fan_in(uint32_t* out, fan_in_args a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t acc = 0;
  for (int k = 0; k < a.count; ++k) acc = acs_test::mix32(acc ^ a.in[k][i]);
  out[i] = acc;
}

uint32_t* buffer() {
  void* p = nullptr;
  ACS_CHECK(cudaMalloc(&p, n * sizeof(uint32_t)));
  return static_cast<uint32_t*>(p);
}

}  // namespace

int main(int argc, char** argv) {
  acs_test::require_device();
  const std::string scenario = argc > 1 ? argv[1] : "";
  cudaStream_t s = nullptr;
  ACS_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  std::vector<uint32_t> host(n);
  for (int i = 0; i < n; ++i) host[i] = acs_test::mix32(static_cast<uint32_t>(i) + 7u);

  if (scenario == "independent" || scenario == "dependent") {
    const auto ns = static_cast<unsigned long long>(acs_test::arg_long(argc, argv, "--us", 2000)) * 1000ull;
    uint32_t *in_a = buffer(), *in_b = buffer(), *a = buffer(), *b = buffer();
    // Load both kernels first: with CUDA's lazy module loading (the default), the
    // first launch of a kernel waits for the kernels already running, which would
    // serialise the pair whatever acs does.
    trace_first<<<grid, block, 0, s>>>(a, a, 0);
    trace_second<<<grid, block, 0, s>>>(b, b, 0);
    ACS_CHECK(cudaStreamSynchronize(s));
    ACS_CHECK(cudaMemsetAsync(in_b, 0x5a, n * sizeof(uint32_t), s));
    ACS_CHECK(cudaMemcpyAsync(in_a, host.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice, s));
    trace_first<<<grid, block, 0, s>>>(a, in_a, ns);
    trace_second<<<grid, block, 0, s>>>(b, scenario == "dependent" ? a : in_b, ns);
    ACS_CHECK(cudaGetLastError());
    ACS_CHECK(cudaStreamSynchronize(s));
    std::printf("%s\n", scenario.c_str());
    acs_test::print_device_words("first", a, n);
    acs_test::print_device_words("second", b, n);
  } else if (scenario == "wide") {
    const int width =
        std::clamp(static_cast<int>(acs_test::arg_long(argc, argv, "--width", 16)), 2, max_width);
    const auto ns = static_cast<unsigned long long>(acs_test::arg_long(argc, argv, "--us", 500)) * 1000ull;
    std::vector<uint32_t*> outs;
    fan_in_args args{};
    for (int k = 0; k < width; ++k) {
      args.in[k] = outs.emplace_back(buffer());
      ACS_CHECK(cudaMemcpy(outs[k], host.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    }
    args.count = width;
    uint32_t* result = buffer();
    ACS_CHECK(cudaDeviceSynchronize());
    for (int k = 0; k < width; ++k) trace_wide<<<grid, block, 0, s>>>(outs[k], 100u + k, ns);
    trace_fan_in<<<grid, block, 0, s>>>(result, args);
    ACS_CHECK(cudaGetLastError());
    ACS_CHECK(cudaStreamSynchronize(s));
    std::printf("wide width=%d\n", width);
    acs_test::print_device_words("fan-in", result, n);
  } else {
    std::fprintf(stderr, "FAILED: unknown scenario '%s'\n", scenario.c_str());
    return 1;
  }
  std::printf("last-error: %s\n", cudaGetErrorName(cudaGetLastError()));
  return 0;
}
