// Error semantics: what the application sees must not change under acs.
//
//   errors launch_errors          invalid launches; cudaGetLastError/cudaPeekAtLastError
//   errors launch_errors_pending  an application error that must survive acs's own calls
//   errors fault_trap      a kernel executes __trap(): sticky error at the next sync
//   errors fault_address   a kernel writes to an invalid address
//   errors fault_event     a faulting kernel observed through an event
//   errors deferred_error_attribute  cudaFuncSetAttribute lowers a kernel's dynamic shared memory
//                          limit after many launches of it: the next ones must fail, each with
//                          its own error, and not be deferred by acs (docs/design.md rule 6)
//
// The fault scenarios poison the context, so each runs as its own process.
// Every line printed is an API name and the error name it returned.
#include <vector>

#include "common.cuh"
#include "driver_api.cuh"

using acs_test::rmw;
using std::uint32_t;

namespace {

constexpr int n_words = 1 << 14;
constexpr int long_iters = 1200;

void show(const char* what, cudaError_t e) { std::printf("%-44s %s\n", what, cudaGetErrorName(e)); }

// The faulting kernels wait 20 ms first: every API call the program makes
// before its sync is then over before the fault, with or without acs, and the
// error can only surface at the sync.
constexpr unsigned long long fault_delay_ns = 20'000'000;

__device__ void wait_ns(unsigned long long ns) {
  const unsigned long long t0 = acs_test::global_ns();
  while (acs_test::global_ns() - t0 < ns) {
  }
}

__global__ void trap_kernel(uint32_t* p) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    wait_ns(fault_delay_ns);
    p[0] = 1;
    __trap();
  }
}

__global__ void bad_address_kernel(uint32_t* p, size_t offset) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    wait_ns(fault_delay_ns);
    p[offset] = 0xdeadbeefu;
  }
}

// Copies w into shared memory and back, adding the salt: needs `n` words of dynamic shared memory.
__global__ void shared_kernel(uint32_t* w, int n, uint32_t salt) {
  extern __shared__ uint32_t staged[];
  for (int i = threadIdx.x; i < n; i += blockDim.x) staged[i] = w[i] + salt;
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) w[i] = staged[n - 1 - i] * 3u + 1u;
}

void deferred_error_attribute() {
  constexpr int words = 512;  // 2 KiB of dynamic shared memory per launch
  constexpr std::size_t bytes = words * sizeof(uint32_t);
  uint32_t* buffers[4];
  for (uint32_t*& b : buffers) b = acs_test::device_words(words);
  cudaStream_t s = nullptr;
  ACS_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  // Many launches of one kind: under acs, its later ones go to acs's issuing threads.
  for (int k = 0; k < 64; ++k) shared_kernel<<<1, 128, bytes, s>>>(buffers[k % 4], words, static_cast<uint32_t>(k));
  show("64 launches: cudaGetLastError", cudaGetLastError());
  show("cudaFuncSetAttribute max dynamic shared 1 KiB",
       cudaFuncSetAttribute(shared_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024));
  for (int k = 0; k < 8; ++k) {
    shared_kernel<<<1, 128, bytes, s>>>(buffers[k % 4], words, 100u + static_cast<uint32_t>(k));
    show("  2 KiB launch over the limit: cudaGetLastError", cudaGetLastError());
  }
  show("cudaFuncSetAttribute max dynamic shared 48 KiB",
       cudaFuncSetAttribute(shared_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 48 * 1024));
  for (int k = 0; k < 64; ++k)
    shared_kernel<<<1, 128, bytes, s>>>(buffers[k % 4], words, 200u + static_cast<uint32_t>(k));
  show("64 launches within it: cudaGetLastError", cudaGetLastError());
  show("cudaStreamSynchronize", cudaStreamSynchronize(s));
  for (int i = 0; i < 4; ++i) acs_test::print_device_words("buffer", buffers[i], words);
}

void launch_errors() {
  uint32_t *a = acs_test::device_words(n_words), *b = acs_test::device_words(n_words);
  cudaStream_t s = nullptr;
  ACS_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  show("start: cudaGetLastError", cudaGetLastError());

  // Work in flight on pool streams while the bad launches happen.
  rmw(s, a, nullptr, nullptr, n_words, 1, long_iters);

  acs_test::rmw_kernel<<<1, 2048, 0, s>>>(b, a, nullptr, n_words, 2, 10);  // too many threads
  show("<<<1,2048>>>: cudaPeekAtLastError", cudaPeekAtLastError());
  show("<<<1,2048>>>: cudaPeekAtLastError again", cudaPeekAtLastError());
  show("<<<1,2048>>>: cudaGetLastError", cudaGetLastError());
  show("<<<1,2048>>>: cudaGetLastError again", cudaGetLastError());

  const void* fn = reinterpret_cast<const void*>(&acs_test::rmw_kernel);
  const std::uint32_t* null_read = nullptr;
  int n = n_words, iters = 10;
  uint32_t salt = 3;
  void* params[] = {&b, &a, &null_read, &n, &salt, &iters};
  show("cudaLaunchKernel block 4096", cudaLaunchKernel(fn, dim3(1), dim3(4096), params, 0, s));
  show("  then cudaGetLastError", cudaGetLastError());
  show("cudaLaunchKernel grid.y 70000", cudaLaunchKernel(fn, dim3(1, 70000), dim3(32), params, 0, s));
  show("  then cudaGetLastError", cudaGetLastError());
  show("cudaLaunchKernel 1 GiB dynamic shared", cudaLaunchKernel(fn, dim3(1), dim3(32), params, 1u << 30, s));
  show("  then cudaGetLastError", cudaGetLastError());

  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(1);
  cfg.blockDim = dim3(1025);
  cfg.stream = s;
  show("cudaLaunchKernelExC block 1025", cudaLaunchKernelExC(&cfg, fn, params));
  show("  then cudaPeekAtLastError", cudaPeekAtLastError());
  show("  then cudaGetLastError", cudaGetLastError());

  const auto& drv = acs_test::driver_api::get();
  const CUresult r = drv.launch_kernel(acs_test::cu_function(fn), 1, 1, 1, 2048, 1, 1, 0,
                                       reinterpret_cast<CUstream>(s), params, nullptr);
  std::printf("%-44s %s\n", "cuLaunchKernel block 2048", drv.name(r));
  show("  then cudaGetLastError", cudaGetLastError());

  // The work in flight is unharmed and no error is left behind.
  rmw(s, b, a, nullptr, n_words, 4, 10);
  ACS_CHECK(cudaStreamSynchronize(s));
  acs_test::print_device_words("a", a, n_words);
  acs_test::print_device_words("b", b, n_words);
}

// An application error set before valid launches must still be reported after
// them: acs's own calls around those launches must not clear it.
void launch_errors_pending() {
  uint32_t *a = acs_test::device_words(n_words), *b = acs_test::device_words(n_words);
  cudaStream_t s = nullptr;
  ACS_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  acs_test::rmw_kernel<<<acs_test::small_grid, acs_test::small_block, 0, s>>>(a, nullptr, nullptr, n_words, 5,
                                                                              long_iters);
  show("cudaMemcpy bad direction", cudaMemcpy(a, b, 16, static_cast<cudaMemcpyKind>(77)));
  for (int k = 0; k < 8; ++k)
    acs_test::rmw_kernel<<<acs_test::small_grid, acs_test::small_block, 0, s>>>(
        k % 2 ? a : b, k % 2 ? b : a, nullptr, n_words, 6u + static_cast<uint32_t>(k), 100);
  show("8 valid launches later: cudaPeekAtLastError", cudaPeekAtLastError());
  show("8 valid launches later: cudaGetLastError", cudaGetLastError());
  show("cudaStreamSynchronize", cudaStreamSynchronize(s));
  show("then cudaGetLastError", cudaGetLastError());
  acs_test::print_device_words("a", a, n_words);
  acs_test::print_device_words("b", b, n_words);
}

// The fault must surface where it does natively: not at the launch, at the sync.
void fault(const char* kind) {
  uint32_t* a = acs_test::device_words(n_words);
  cudaStream_t s = nullptr;
  ACS_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t ev = nullptr;
  ACS_CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  rmw(s, a, nullptr, nullptr, n_words, 1, long_iters);
  ACS_CHECK(cudaStreamSynchronize(s));
  const std::string k = kind;
  if (k == "fault_trap") {
    trap_kernel<<<1, 32, 0, s>>>(a);
    show("trap launch: cudaGetLastError", cudaGetLastError());
    show("cudaStreamSynchronize", cudaStreamSynchronize(s));
  } else if (k == "fault_address") {
    // Far beyond any allocation: an illegal address.
    bad_address_kernel<<<1, 32, 0, s>>>(a, size_t{1} << 40);
    show("bad address launch: cudaGetLastError", cudaGetLastError());
    show("cudaStreamSynchronize", cudaStreamSynchronize(s));
  } else {
    trap_kernel<<<1, 32, 0, s>>>(a);
    show("trap launch: cudaGetLastError", cudaGetLastError());
    show("cudaEventRecord", cudaEventRecord(ev, s));
    show("cudaEventSynchronize", cudaEventSynchronize(ev));
  }
  show("then cudaPeekAtLastError", cudaPeekAtLastError());
  show("then cudaGetLastError", cudaGetLastError());
  show("then cudaGetLastError again (sticky)", cudaGetLastError());
  void* p = nullptr;
  show("then cudaMalloc", cudaMalloc(&p, 1024));
  show("then cudaDeviceSynchronize", cudaDeviceSynchronize());
  acs_test::rmw_kernel<<<acs_test::small_grid, acs_test::small_block, 0, s>>>(a, nullptr, nullptr, n_words, 2,
                                                                              10);
  show("then launch: cudaGetLastError", cudaGetLastError());
}

}  // namespace

int main(int argc, char** argv) {
  acs_test::require_device();
  const std::string scenario = argc > 1 ? argv[1] : "";
  std::printf("scenario %s\n", scenario.c_str());
  if (scenario == "launch_errors") {
    launch_errors();
  } else if (scenario == "launch_errors_pending") {
    launch_errors_pending();
  } else if (scenario == "deferred_error_attribute") {
    deferred_error_attribute();
  } else if (scenario == "fault_trap" || scenario == "fault_address" || scenario == "fault_event") {
    fault(scenario.c_str());
    return 0;  // the context is gone: no final checks
  } else {
    std::fprintf(stderr, "FAILED: unknown scenario '%s'\n", scenario.c_str());
    return 1;
  }
  show("end: cudaDeviceSynchronize", cudaDeviceSynchronize());
  show("end: cudaGetLastError", cudaGetLastError());
  return 0;
}
