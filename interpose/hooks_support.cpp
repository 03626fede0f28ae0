// Driver queries the generic hooks need, made through the real driver table.
#include <atomic>

#include "hooks_generic.hpp"
#include "real_driver.hpp"

namespace acs::hooks {

bool still_capturing(CUstream stream) noexcept {
  const real::driver_api* cu = real::driver();
  if (cu == nullptr || cu->cuStreamIsCapturing == nullptr) return true;
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  // Legal during capture, in every capture mode.
  if (cu->cuStreamIsCapturing(stream, &status) != CUDA_SUCCESS) return true;
  return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

bool is_current_context(CUcontext context) noexcept {
  if (context == nullptr) return true;
  const real::driver_api* cu = real::driver();
  if (cu == nullptr || cu->cuCtxGetCurrent == nullptr) return false;
  CUcontext current = nullptr;
  return cu->cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == context;
}

CUdevice current_device() noexcept {
  const real::driver_api* cu = real::driver();
  CUdevice device = -1;
  if (cu == nullptr || cu->cuCtxGetDevice == nullptr || cu->cuCtxGetDevice(&device) != CUDA_SUCCESS) return -1;
  return device;
}

void report_unsized_allocation(const char* api, CUdeviceptr address) noexcept {
  const real::driver_api* cu = real::driver();
  CUdeviceptr base = 0;
  std::size_t size = 0;
  if (cu == nullptr || cu->cuMemGetAddressRange_v2 == nullptr ||
      cu->cuMemGetAddressRange_v2(&base, &size, address) != CUDA_SUCCESS || size == 0) {
    ACS_HOOK_DEBUG("%s: size of the allocation at %#llx unknown; not reported", api,
                   static_cast<unsigned long long>(address));
    return;
  }
  memory_allocated(base, size);
}

namespace {
constinit std::atomic<bool> missing_warned{false};
}

void report_missing_real(const char* api) noexcept {
  log_once(missing_warned, log_level::warn,
           "%s called, but the real library is not loaded or lacks it; returning \"not found\" "
           "(further cases are not reported)",
           api);
}

}  // namespace acs::hooks
