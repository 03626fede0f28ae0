// An all-reduce over every visible GPU (at least 2) of one process, with NCCL called directly
// (ncclCommInitAll, ncclAllReduce in a group): NCCL launches its kernels through the driver, on
// the streams it is given, with its own events and internal streams. Around each all-reduce,
// acs reorders the program's own kernels: per device, independent producers (they may run side
// by side) write the send buffer's halves, and consumers read the reduced result. A producer run
// after the all-reduce started, or a consumer before it ended, changes the digests.
//
//   nccl_allreduce [--steps=6] [--count=262144]
//
// Fewer than 2 devices: "SKIPPED: ..." and exit 77. NVLink SHARP / multicast stays off: the test
// sets NCCL_NVLS_ENABLE=0, and the program refuses to run without it (a multicast object can take
// the host's GPUs out of service).
#include <nccl.h>

#include <vector>

#include "common.cuh"

using std::uint32_t;

namespace {

#define NCCL_CHECK(expr)                                                                     \
  do {                                                                                       \
    const ncclResult_t r_ = (expr);                                                          \
    if (r_ != ncclSuccess) {                                                                 \
      std::fprintf(stderr, "FAILED: %s returned %s at %s:%d\n", #expr, ncclGetErrorString(r_), \
                   __FILE__, __LINE__);                                                      \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

// Integers as floats: every sum is exact, so the result does not depend on NCCL's algorithm.
__global__ void produce(float* out, const float* in, int n, uint32_t salt, int iters) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const uint32_t h = acs_test::churn(salt ^ static_cast<uint32_t>(i) ^ static_cast<uint32_t>(in[i]), iters);
    out[i] = static_cast<float>(h & 0xffffu);
  }
}

__global__ void consume(float* state, const float* reduced, int n, int iters) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const uint32_t h = acs_test::churn(static_cast<uint32_t>(reduced[i]) + static_cast<uint32_t>(state[i]), iters);
    state[i] = static_cast<float>(h & 0xffffu);
  }
}

struct rank {
  int device = 0;
  cudaStream_t stream = nullptr;
  float* send = nullptr;
  float* recv = nullptr;
  float* state = nullptr;
  float* scratch = nullptr;
};

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess || devices < 2) {
    std::printf("SKIPPED: fewer than 2 CUDA devices (%s)\n",
                e != cudaSuccess ? cudaGetErrorName(e) : (devices == 1 ? "1 device" : "0 devices"));
    return acs_test::skip_code;
  }
  const char* nvls = std::getenv("NCCL_NVLS_ENABLE");
  if (nvls == nullptr || std::strcmp(nvls, "0") != 0) {
    std::fprintf(stderr, "FAILED: set NCCL_NVLS_ENABLE=0 (NVLink multicast stays off on these machines)\n");
    return 2;
  }
  const int steps = static_cast<int>(acs_test::arg_long(argc, argv, "--steps", 6));
  const int count = static_cast<int>(acs_test::arg_long(argc, argv, "--count", 1 << 18));
  const int half = count / 2;
  std::vector<rank> ranks(static_cast<std::size_t>(devices));
  std::vector<int> ids(static_cast<std::size_t>(devices));
  for (int d = 0; d < devices; ++d) {
    rank& r = ranks[static_cast<std::size_t>(d)];
    r.device = ids[static_cast<std::size_t>(d)] = d;
    ACS_CHECK(cudaSetDevice(d));
    ACS_CHECK(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking));
    for (float** p : {&r.send, &r.recv, &r.state, &r.scratch}) {
      ACS_CHECK(cudaMalloc(p, static_cast<std::size_t>(count) * sizeof(float)));
      ACS_CHECK(cudaMemset(*p, 0, static_cast<std::size_t>(count) * sizeof(float)));
    }
    ACS_CHECK(cudaDeviceSynchronize());
  }
  std::vector<ncclComm_t> comms(static_cast<std::size_t>(devices));
  NCCL_CHECK(ncclCommInitAll(comms.data(), devices, ids.data()));

  for (int step = 0; step < steps; ++step) {
    for (rank& r : ranks) {
      ACS_CHECK(cudaSetDevice(r.device));
      const auto salt = static_cast<uint32_t>(step * 131 + r.device * 7);
      // Two producers on disjoint halves (independent: acs may overlap them), one on scratch.
      produce<<<8, 256, 0, r.stream>>>(r.send, r.state, half, salt, 300);
      produce<<<8, 256, 0, r.stream>>>(r.send + half, r.state + half, count - half, salt + 1, 300);
      produce<<<8, 256, 0, r.stream>>>(r.scratch, r.state, count, salt + 2, 100);
      ACS_CHECK(cudaGetLastError());
    }
    NCCL_CHECK(ncclGroupStart());
    for (std::size_t i = 0; i < ranks.size(); ++i)
      NCCL_CHECK(ncclAllReduce(ranks[i].send, ranks[i].recv, static_cast<std::size_t>(count), ncclFloat, ncclSum,
                               comms[i], ranks[i].stream));
    NCCL_CHECK(ncclGroupEnd());
    for (rank& r : ranks) {
      ACS_CHECK(cudaSetDevice(r.device));
      consume<<<8, 256, 0, r.stream>>>(r.state, r.recv, count, 200);
      consume<<<8, 256, 0, r.stream>>>(r.scratch, r.recv, count, 50);  // beside the other: reads recv only
      ACS_CHECK(cudaGetLastError());
    }
  }
  std::vector<float> h(static_cast<std::size_t>(count));
  for (rank& r : ranks) {
    ACS_CHECK(cudaSetDevice(r.device));
    ACS_CHECK(cudaStreamSynchronize(r.stream));
    for (const float* buffer : {r.recv, r.state, r.scratch}) {
      ACS_CHECK(cudaMemcpy(h.data(), buffer, h.size() * sizeof(float), cudaMemcpyDeviceToHost));
      std::printf("device %d %-7s fnv=%016llx\n", r.device,
                  buffer == r.recv ? "recv" : buffer == r.state ? "state" : "scratch",
                  static_cast<unsigned long long>(acs_test::fnv1a(h.data(), h.size() * sizeof(float))));
    }
  }
  // The all-reduce agrees on every device.
  std::printf("steps=%d devices=%d\n", steps, devices);
  for (ncclComm_t c : comms) NCCL_CHECK(ncclCommDestroy(c));
  return 0;
}
