// GPU diagnostic: every way a kernel launch and a stream operation can reach the driver, each
// checked to be seen by the hooks exactly once (docs/design.md §6).
//
// With LD_PRELOAD=libacs_recording.so (the hooks + tests/preload/dispatch_recording.cpp, which
// forwards every launch unchanged and records every call into dispatch.hpp) each step checks
// the events it caused and prints them; exit 1 if any check fails. With LD_PRELOAD=libacs.so
// the steps only run (no events to read): use ACS_LOG_LEVEL=debug to see which hook saw what.
// Without a GPU it exits 77 (CTest: skipped).
//
// Built twice, with the static cudart (nvcc's default: only the driver hooks can see it) and the
// shared one (the runtime hooks see it first, the driver hooks must then stay silent).
#include <cublas_v2.h>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "src/runtime/dispatch.hpp"
#include "recording.hpp"

void launch_on_per_thread_stream(float* x, int n);  // launch_paths_ptds.cu

__global__ void add_one(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

namespace {

acs_test_event_count_fn event_count = nullptr;
acs_test_event_at_fn event_at = nullptr;
int failures = 0;

const char* what_name(recorded w) {
  switch (w) {
    case recorded::launch: return "launch";
    case recorded::launched_directly: return "launched_directly";
    case recorded::barrier: return "barrier";
    case recorded::synchronized: return "synchronized";
    case recorded::device_synchronized: return "device_synchronized";
    case recorded::stream_destroyed: return "stream_destroyed";
    case recorded::capture_began: return "capture_began";
    case recorded::capture_ended: return "capture_ended";
    case recorded::allocated: return "allocated";
    case recorded::freed: return "freed";
  }
  return "?";
}

struct step_events {
  std::vector<recorded_event> all;
  std::size_t count(recorded w) const {
    std::size_t n = 0;
    for (const auto& e : all) n += e.what == w;
    return n;
  }
  const recorded_event* first(recorded w) const {
    for (const auto& e : all)
      if (e.what == w) return &e;
    return nullptr;
  }
};

void check(bool ok, const char* what) {
  std::printf("    %-66s %s\n", what, ok ? "ok" : "FAILED");
  if (!ok) ++failures;
}

// Runs one path; with the recording library, prints its events and runs the checks on them.
void step(const char* name, const std::function<cudaError_t()>& body,
          const std::function<void(const step_events&)>& checks) {
  const std::size_t before = event_count != nullptr ? event_count() : 0;
  const cudaError_t status = body();
  const cudaError_t synced = cudaDeviceSynchronize();
  std::printf("%s: %s%s\n", name, cudaGetErrorName(status), synced != cudaSuccess ? " (sync failed)" : "");
  if (status != cudaSuccess) ++failures;
  if (event_count == nullptr) return;
  step_events events;
  const std::size_t after = event_count();
  for (std::size_t i = before; i < after; ++i) {
    recorded_event e{};
    event_at(i, &e);
    events.all.push_back(e);
    std::printf("    event %-20s api %-26s stream %-14p per-thread %d function %-14p detail %d nesting %d\n",
                what_name(e.what), e.api != nullptr ? e.api : "-", e.stream, e.per_thread, e.function,
                e.detail, e.nesting);
  }
  // The device synchronize of every step is one event of its own.
  if (!events.all.empty() && events.all.back().what == recorded::device_synchronized) events.all.pop_back();
  bool outermost = true;
  for (const auto& e : events.all) outermost = outermost && e.nesting == 1;
  check(outermost, "every event comes from the outermost hook");
  checks(events);
}

void one_launch(const step_events& e, CUstream stream, bool per_thread) {
  check(e.count(recorded::launch) == 1, "exactly one launch reported");
  check(e.count(recorded::launched_directly) == 0, "no direct launch reported");
  if (const recorded_event* l = e.first(recorded::launch)) {
    check(l->function != nullptr, "its CUfunction was identified");
    const bool right_stream = per_thread ? (l->per_thread == 1 && l->stream == nullptr) || l->stream == CU_STREAM_PER_THREAD
                                         : l->stream == stream;
    check(right_stream, per_thread ? "on the per-thread default stream" : "on the application's stream");
  }
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: skipped\n");
    return 77;
  }
  event_count = reinterpret_cast<acs_test_event_count_fn>(dlsym(RTLD_DEFAULT, "acs_test_event_count"));
  event_at = reinterpret_cast<acs_test_event_at_fn>(dlsym(RTLD_DEFAULT, "acs_test_event_at"));
  std::printf("events: %s\n", event_count != nullptr ? "recorded (libacs_recording.so)"
                                                      : "not recorded (not the recording library): paths only");

  constexpr int n = 1 << 16;
  float* x = nullptr;
  cudaStream_t s = nullptr;
  step("cudaMalloc", [&] { return cudaMalloc(&x, n * sizeof(float)); }, [&](const step_events& e) {
    bool found = false;  // the runtime may allocate for itself while it starts
    for (const auto& a : e.all)
      found = found || (a.what == recorded::allocated && a.address == reinterpret_cast<std::uint64_t>(x) &&
                        a.bytes == n * sizeof(float));
    check(found, "the allocation reported with its range");
  });
  step("cudaStreamCreate", [&] { return cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); },
       [&](const step_events&) {});
  const CUstream cs = s;
  step("cudaMemsetAsync", [&] { return cudaMemsetAsync(x, 0, n * sizeof(float), s); }, [&](const step_events& e) {
    check(e.count(recorded::barrier) == 1 && e.first(recorded::barrier)->stream == cs, "one barrier on the stream");
  });

  step("<<<>>> on a stream", [&] {
    add_one<<<n / 256, 256, 0, s>>>(x, n);
    return cudaGetLastError();
  }, [&](const step_events& e) { one_launch(e, cs, false); });

  step("<<<>>> under --default-stream per-thread", [&] {
    launch_on_per_thread_stream(x, n);
    return cudaGetLastError();
  }, [&](const step_events& e) { one_launch(e, nullptr, true); });

  int count = n;
  void* args[] = {&x, &count};
  step("cudaLaunchKernel", [&] {
    return cudaLaunchKernel(reinterpret_cast<const void*>(&add_one), dim3(n / 256), dim3(256), args, 0, s);
  }, [&](const step_events& e) { one_launch(e, cs, false); });

  step("cudaLaunchKernelExC", [&] {
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(n / 256);
    config.blockDim = dim3(256);
    config.stream = s;
    return cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(&add_one), args);
  }, [&](const step_events& e) { one_launch(e, cs, false); });

  step("cudaLaunchKernelEx, programmatic stream serialization", [&] {
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(n / 256);
    config.blockDim = dim3(256);
    config.stream = s;
    config.attrs = &attribute;
    config.numAttrs = 1;
    return cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(&add_one), args);
  }, [&](const step_events& e) {
    // ACS_PDL=reorder (interpose/hooks_launch.hpp): dispatched like any launch, which may then copy it.
    const char* pdl = std::getenv("ACS_PDL");
    if (pdl != nullptr && std::string(pdl) == "reorder") {
      one_launch(e, cs, false);
      if (const auto* d = e.first(recorded::launch)) check(d->detail == 0, "no attribute left to follow it");
      return;
    }
    check(e.count(recorded::launch) == 0 && e.count(recorded::launched_directly) == 1, "issued as-is, once");
    if (const auto* d = e.first(recorded::launched_directly))
      check(d->detail == static_cast<int>(acs::pass_reason::ordering_attribute), "reason: ordering attribute");
  });

  step("cudaLaunchCooperativeKernel", [&] {
    return cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&add_one), dim3(1), dim3(256), args, 0, s);
  }, [&](const step_events& e) {
    check(e.count(recorded::launch) == 0 && e.count(recorded::launched_directly) == 1, "issued as-is, once");
    if (const auto* d = e.first(recorded::launched_directly))
      check(d->detail == static_cast<int>(acs::pass_reason::cooperative), "reason: cooperative");
  });

  // The driver as PyTorch and NCCL get it (cudaGetDriverEntryPointByVersion) ...
  cudaFunction_t function = nullptr;
  cudaGetFuncBySymbol(&function, reinterpret_cast<const void*>(&add_one));
  step("cuLaunchKernel from cudaGetDriverEntryPointByVersion", [&] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    const cudaError_t r = cudaGetDriverEntryPointByVersion("cuLaunchKernel", &p, 12000, cudaEnableDefault, &found);
    if (r != cudaSuccess || p == nullptr) return r != cudaSuccess ? r : cudaErrorSymbolNotFound;
    const CUresult launched = reinterpret_cast<PFN_cuLaunchKernel_v4000>(p)(
        reinterpret_cast<CUfunction>(function), n / 256, 1, 1, 256, 1, 1, 0, cs, args, nullptr);
    return launched == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure;
  }, [&](const step_events& e) { one_launch(e, cs, false); });

  // ... and as Triton and CuPy do (dlopen + dlsym).
  step("cuLaunchKernelEx from dlsym(libcuda.so.1)", [&] {
    void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    auto launch_ex = cuda != nullptr ? reinterpret_cast<PFN_cuLaunchKernelEx_v11060>(dlsym(cuda, "cuLaunchKernelEx"))
                                     : nullptr;
    if (launch_ex == nullptr) return cudaErrorSymbolNotFound;
    CUlaunchConfig config{};
    config.gridDimX = n / 256;
    config.gridDimY = config.gridDimZ = 1;
    config.blockDimX = 256;
    config.blockDimY = config.blockDimZ = 1;
    config.hStream = cs;
    const CUresult launched = launch_ex(&config, reinterpret_cast<CUfunction>(function), args, nullptr);
    return launched == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure;
  }, [&](const step_events& e) { one_launch(e, cs, false); });

  // A library with its own static cudart.
  cublasHandle_t blas = nullptr;
  float* m = nullptr;
  step("cuBLAS sgemm", [&] {
    if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) return cudaErrorUnknown;
    cublasSetStream(blas, s);
    if (cudaMalloc(&m, 3 * 256 * 256 * sizeof(float)) != cudaSuccess) return cudaErrorMemoryAllocation;
    const float one = 1.0f;
    const float zero = 0.0f;
    const cublasStatus_t r = cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, 256, 256, 256, &one, m, 256,
                                         m + 256 * 256, 256, &zero, m + 2 * 256 * 256, 256);
    return r == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
  }, [&](const step_events& e) {
    check(e.count(recorded::launch) + e.count(recorded::launched_directly) >= 1, "its kernels were seen");
  });

  step("cudaMemcpyAsync", [&] {
    static float host[16];
    return cudaMemcpyAsync(host, x, sizeof host, cudaMemcpyDeviceToHost, s);
  }, [&](const step_events& e) {
    check(e.count(recorded::barrier) == 1 && e.first(recorded::barrier)->stream == cs, "one barrier on the stream");
  });

  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  step("stream capture", [&] {
    cudaError_t r = cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    if (r != cudaSuccess) return r;
    add_one<<<n / 256, 256, 0, s>>>(x, n);
    r = cudaStreamEndCapture(s, &graph);
    return r != cudaSuccess ? r : cudaGraphInstantiate(&exec, graph, 0);
  }, [&](const step_events& e) {
    check(e.count(recorded::capture_began) == 1 && e.count(recorded::capture_ended) == 1, "capture began and ended");
    check(e.count(recorded::launch) == 1, "the captured launch reported once");
  });
  step("cudaGraphLaunch", [&] { return cudaGraphLaunch(exec, s); }, [&](const step_events& e) {
    check(e.count(recorded::barrier) == 1 && e.first(recorded::barrier)->stream == cs, "one barrier on the stream");
    check(e.count(recorded::launch) == 0, "no launch (the graph is one operation)");
  });

  step("cudaStreamSynchronize", [&] { return cudaStreamSynchronize(s); }, [&](const step_events& e) {
    check(e.count(recorded::synchronized) == 1 && e.first(recorded::synchronized)->stream == cs, "reported once");
  });
  step("cudaMallocAsync + cudaFreeAsync", [&] {
    void* p = nullptr;
    const cudaError_t r = cudaMallocAsync(&p, 1 << 20, s);
    return r != cudaSuccess ? r : cudaFreeAsync(p, s);
  }, [&](const step_events& e) {
    check(e.count(recorded::allocated) == 1 && e.count(recorded::freed) == 1, "allocation and free reported once");
    check(e.count(recorded::barrier) == 2, "both are barriers");
  });
  step("cudaMemcpy (legacy stream)", [&] {
    static float host[16];
    return cudaMemcpy(host, x, sizeof host, cudaMemcpyDeviceToHost);
  }, [&](const step_events& e) {
    check(e.count(recorded::barrier) == 1 && e.first(recorded::barrier)->stream == CU_STREAM_LEGACY,
          "one barrier on the legacy stream");
  });

  float host[4] = {};
  cudaMemcpy(host, x, sizeof host, cudaMemcpyDeviceToHost);
  // memset 0, then +1 by: <<<>>>, per-thread <<<>>>, cudaLaunchKernel, ExC, PSS ExC, cooperative
  // (first block only), cuLaunchKernel, cuLaunchKernelEx, captured graph = 9 for element 0.
  check(host[0] == 9.0f, "x[0] == 9: every launch ran exactly once");
  std::printf("x[0] = %g\n", host[0]);

  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cublasDestroy(blas);
  cudaFree(m);
  cudaStreamDestroy(s);
  cudaFree(x);
  std::printf("%d checks failed\n", failures);
  return failures == 0 ? 0 : 1;
}
