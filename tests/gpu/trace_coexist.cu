// A program that is its own CUPTI client, as a profiler would be: it
// subscribes before any CUDA work and counts its launch callbacks. Under
// LD_PRELOAD=libacs.so with ACS_TRACE set, acs must find CUPTI taken, warn
// once, trace nothing, and leave the program's subscription working: the
// same stdout as natively, its callbacks still delivered, and a clean
// unsubscribe at the end.
#include <cupti.h>

#include <atomic>

#include "common.cuh"

using std::uint32_t;

namespace {

std::atomic<int> launch_callbacks{0};

bool is_launch(CUpti_CallbackId cbid) {
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000:
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000:
      return true;
    default:
      return false;
  }
}

void CUPTIAPI on_runtime_api(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  const auto* info = static_cast<const CUpti_CallbackData*>(data);
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && info->callbackSite == CUPTI_API_ENTER && is_launch(cbid))
    ++launch_callbacks;
}

}  // namespace

int main() {
  // Before any CUDA call: the program owns CUPTI from the start.
  CUpti_SubscriberHandle subscriber = nullptr;
  const CUptiResult subscribed = cuptiSubscribe(&subscriber, on_runtime_api, nullptr);
  if (subscribed != CUPTI_SUCCESS) {
    acs_test::require_device();  // no device: skip; a device: CUPTI refused us
    const char* why = nullptr;
    cuptiGetResultString(subscribed, &why);
    std::printf("FAILED: cuptiSubscribe: %s\n", why != nullptr ? why : "?");
    return 1;
  }
  if (cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API) != CUPTI_SUCCESS) {
    std::printf("FAILED: cuptiEnableDomain\n");
    return 1;
  }
  acs_test::require_device();

  constexpr int n = 1 << 14, kernels = 8;
  uint32_t *a = acs_test::device_words(n), *b = acs_test::device_words(n), *c = acs_test::device_words(n);
  cudaStream_t s = nullptr;
  ACS_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  acs_test::fill(s, a, nullptr, n, 1u);
  acs_test::fill(s, b, nullptr, n, 2u);
  for (int k = 0; k < kernels - 2; ++k) acs_test::rmw(s, k % 2 ? b : c, a, k % 2 ? c : b, n, 10u + k, 50);
  ACS_CHECK(cudaStreamSynchronize(s));
  acs_test::print_device_words("a", a, n);
  acs_test::print_device_words("b", b, n);
  acs_test::print_device_words("c", c, n);

  const int seen = launch_callbacks.load();
  std::printf("program's launch callbacks cover its launches: %s\n", seen >= kernels ? "yes" : "no");
  std::fprintf(stderr, "acs-test: cupti_launch_callbacks=%d kernels=%d\n", seen, kernels);
  const CUptiResult unsubscribed = cuptiUnsubscribe(subscriber);
  std::printf("unsubscribe: %s\n", unsubscribed == CUPTI_SUCCESS ? "ok" : "failed");
  return 0;
}
