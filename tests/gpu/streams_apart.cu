// Streams stay apart (docs/design.md rule 12): acs must never queue a kernel behind a kernel
// of another application stream, and must run a stream's kernels at that stream's priority.
//
//   streams_apart spin [--spinners=8] [--timeout-ms=1000]
//       On stream B, --spinners kernels, each spinning until a flag in device memory is set
//       (each writes its own buffer; the flag is only read: to acs they are independent, and
//       it spreads them over its pool). Then, on stream A, the kernel that sets the flag.
//       Legal CUDA: B's first kernel spins until A's has run, and all finish. Had acs put A's
//       kernel behind one of B's on a pool stream, that spinner would wait for it forever: each
//       gives up after --timeout-ms and reports it. Prints, per spinner, whether it saw the flag.
//
//   streams_apart priority [--waves=40] [--block-us=250]
//       On a stream of the least urgent priority, one kernel of --waves waves of blocks that
//       fill every SM, each block lasting --block-us; 1 ms later, on a stream of the most
//       urgent priority, a one-block kernel. The block scheduler starts pending blocks of the
//       urgent stream first: the small kernel starts when the first running block ends, long
//       before the big kernel's last wave. At the default priority (where acs used to run
//       every kernel), it would wait until the big kernel's last wave was dispatched. Prints
//       whether the urgent kernel started while at least 10 blocks' time of the big kernel was
//       left, which natively is a property of the GPU: under acs, of the pool stream's priority.
//
// stdout is compared with the native run; stderr carries
//   acs-test: timeouts=N                                   (spin)
//   acs-test: urgent_early=0|1 slack_us=S low_us=L         (priority)
#include <chrono>
#include <thread>
#include <vector>

#include "common.cuh"

using std::uint32_t;
using stamp_t = unsigned long long;

namespace {

constexpr uint32_t timed_out = 0xdeadu;

// out[0] = the flag's value once non-zero, or timed_out after timeout_ns; out[1] = index.
__global__ void spin_until_set(const volatile uint32_t* flag, uint32_t* out, uint32_t index, stamp_t timeout_ns) {
  if (threadIdx.x != 0) return;
  const stamp_t t0 = acs_test::global_ns();
  uint32_t seen = 0;
  while ((seen = *flag) == 0) {
    if (acs_test::global_ns() - t0 > timeout_ns) {
      seen = timed_out;
      break;
    }
  }
  out[0] = seen;
  out[1] = index;
}

__global__ void set_flag(uint32_t* flag, uint32_t value) {
  if (threadIdx.x == 0) *flag = value;
}

int spin(int argc, char** argv) {
  const int spinners = static_cast<int>(acs_test::arg_long(argc, argv, "--spinners", 8));
  const auto timeout_ns = static_cast<stamp_t>(acs_test::arg_long(argc, argv, "--timeout-ms", 1000)) * 1000000ull;
  cudaStream_t a = nullptr, b = nullptr;
  ACS_CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  ACS_CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  uint32_t* flag = acs_test::device_words(1);
  std::vector<uint32_t*> outs;
  for (int i = 0; i < spinners; ++i) outs.push_back(acs_test::device_words(2));  // one allocation each
  // CUDA loads a kernel lazily, at its first launch (CUDA_MODULE_LOADING=LAZY, the default), and
  // loading waits for the device: set_flag loaded behind running spinners would start only after
  // they gave up (the programming guide's lazy-loading hazard for kernels that rely on concurrent
  // execution; seen natively on the H200: 8 of 8 timed out). Load both kernels first.
  cudaFuncAttributes attributes{};
  ACS_CHECK(cudaFuncGetAttributes(&attributes, spin_until_set));
  ACS_CHECK(cudaFuncGetAttributes(&attributes, set_flag));
  for (int i = 0; i < spinners; ++i) {
    spin_until_set<<<1, 32, 0, b>>>(flag, outs[i], static_cast<uint32_t>(i), timeout_ns);
    ACS_CHECK(cudaGetLastError());
  }
  set_flag<<<1, 32, 0, a>>>(flag, 7);
  ACS_CHECK(cudaGetLastError());
  ACS_CHECK(cudaDeviceSynchronize());
  int timeouts = 0;
  for (int i = 0; i < spinners; ++i) {
    uint32_t h[2] = {};
    ACS_CHECK(cudaMemcpy(h, outs[i], sizeof h, cudaMemcpyDeviceToHost));
    timeouts += h[0] == timed_out;
    std::printf("spinner %u: %s\n", h[1], h[0] == timed_out ? "timed out: its flag was never set" : "saw the flag");
  }
  std::fprintf(stderr, "acs-test: timeouts=%d\n", timeouts);
  for (uint32_t* o : outs) ACS_CHECK(cudaFree(o));
  ACS_CHECK(cudaFree(flag));
  ACS_CHECK(cudaStreamDestroy(a));
  ACS_CHECK(cudaStreamDestroy(b));
  return 0;
}

// Every block lasts block_ns; stamps[0] = first start, stamps[1] = last end; out[block] = its hash.
__global__ void timed_blocks(uint32_t* out, stamp_t block_ns, stamp_t* stamps) {
  __shared__ stamp_t t0;
  if (threadIdx.x == 0) {
    t0 = acs_test::global_ns();
    atomicMin(&stamps[0], t0);
  }
  __syncthreads();
  while (acs_test::global_ns() - t0 < block_ns) {
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    out[blockIdx.x] = acs_test::mix32(blockIdx.x + 1u);
    atomicMax(&stamps[1], acs_test::global_ns());
  }
}

stamp_t* new_stamps() {
  stamp_t* s = nullptr;
  ACS_CHECK(cudaMalloc(&s, 2 * sizeof(stamp_t)));
  const stamp_t init[2] = {~0ull, 0};
  ACS_CHECK(cudaMemcpy(s, init, sizeof init, cudaMemcpyHostToDevice));
  return s;
}

int priority(int argc, char** argv) {
  int least = 0, greatest = 0;
  ACS_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  if (least == greatest) {
    std::printf("SKIPPED: this device has no stream priorities\n");
    return acs_test::skip_code;
  }
  const int waves = static_cast<int>(acs_test::arg_long(argc, argv, "--waves", 40));
  const auto block_ns = static_cast<stamp_t>(acs_test::arg_long(argc, argv, "--block-us", 250)) * 1000ull;
  int sms = 0;
  ACS_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int threads_per_sm = 0;
  ACS_CHECK(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
  constexpr int block = 1024;  // SMs full of them: the urgent kernel's block must wait for one to end
  const int grid = waves * sms * (threads_per_sm / block);
  cudaStream_t low = nullptr, high = nullptr;
  ACS_CHECK(cudaStreamCreateWithPriority(&low, cudaStreamNonBlocking, least));
  ACS_CHECK(cudaStreamCreateWithPriority(&high, cudaStreamNonBlocking, greatest));
  uint32_t* low_out = acs_test::device_words(static_cast<std::size_t>(grid));
  uint32_t* high_out = acs_test::device_words(1);
  stamp_t* low_stamps = new_stamps();
  stamp_t* high_stamps = new_stamps();
  timed_blocks<<<grid, block, 0, low>>>(low_out, block_ns, low_stamps);
  ACS_CHECK(cudaGetLastError());
  std::this_thread::sleep_for(std::chrono::milliseconds(1));  // the big kernel is running
  timed_blocks<<<1, 32, 0, high>>>(high_out, 1000, high_stamps);
  ACS_CHECK(cudaGetLastError());
  ACS_CHECK(cudaDeviceSynchronize());
  stamp_t l[2] = {}, h[2] = {};
  ACS_CHECK(cudaMemcpy(l, low_stamps, sizeof l, cudaMemcpyDeviceToHost));
  ACS_CHECK(cudaMemcpy(h, high_stamps, sizeof h, cudaMemcpyDeviceToHost));
  const double slack_us = l[1] > h[0] ? static_cast<double>(l[1] - h[0]) / 1000.0 : 0.0;
  const bool early = slack_us > 10.0 * static_cast<double>(block_ns) / 1000.0;
  std::printf("urgent kernel started before the last waves of the big one: %s\n", early ? "yes" : "no");
  acs_test::print_device_words("low", low_out, static_cast<std::size_t>(grid));
  acs_test::print_device_words("high", high_out, 1);
  std::fprintf(stderr, "acs-test: urgent_early=%d slack_us=%.0f low_us=%.0f\n", early ? 1 : 0, slack_us,
               static_cast<double>(l[1] - l[0]) / 1000.0);
  for (void* p : {static_cast<void*>(low_out), static_cast<void*>(high_out), static_cast<void*>(low_stamps),
                  static_cast<void*>(high_stamps)})
    ACS_CHECK(cudaFree(p));
  ACS_CHECK(cudaStreamDestroy(low));
  ACS_CHECK(cudaStreamDestroy(high));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  acs_test::require_device();
  const std::string scenario = argc > 1 ? argv[1] : "";
  if (scenario == "spin") return spin(argc, argv);
  if (scenario == "priority") return priority(argc, argv);
  std::fprintf(stderr, "usage: streams_apart spin|priority [options]\n");
  return 2;
}
