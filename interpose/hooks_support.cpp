// Driver queries the generic hooks need, made through the real driver table.
#include <atomic>

#include "interpose/hooks_args.hpp"
#include "interpose/real_driver.hpp"
#include "src/support/log.hpp"

namespace acs::hooks {

bool still_capturing(CUstream stream) noexcept {
  const driver::table* cu = driver::real();
  if (cu == nullptr || cu->cuStreamIsCapturing_ == nullptr) return true;
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  // Legal during capture, in every capture mode.
  if (cu->cuStreamIsCapturing_(stream, &status) != CUDA_SUCCESS) return true;
  return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

bool is_current_context(CUcontext context) noexcept {
  if (context == nullptr) return true;
  const driver::table* cu = driver::real();
  if (cu == nullptr || cu->cuCtxGetCurrent_ == nullptr) return false;
  CUcontext current = nullptr;
  return cu->cuCtxGetCurrent_(&current) == CUDA_SUCCESS && current == context;
}

CUdevice current_device() noexcept {
  const driver::table* cu = driver::real();
  CUdevice device = -1;
  if (cu == nullptr || cu->cuCtxGetDevice_ == nullptr || cu->cuCtxGetDevice_(&device) != CUDA_SUCCESS) return -1;
  return device;
}

void report_unsized_allocation(const char* api, CUdeviceptr address) noexcept {
  const driver::table* cu = driver::real();
  CUdeviceptr base = 0;
  std::size_t size = 0;
  if (cu == nullptr || cu->cuMemGetAddressRange_ == nullptr ||
      cu->cuMemGetAddressRange_(&base, &size, address) != CUDA_SUCCESS || size == 0) {
    log::debug("{}: size of the allocation at {:#x} unknown; not reported", api,
                   static_cast<unsigned long long>(address));
    return;
  }
  memory_allocated(base, size);
}

namespace {
constinit std::atomic<bool> missing_warned{false};
}

void report_missing_real(const char* api) noexcept {
  log::print_once(missing_warned, log_level::warn,
           "{} called, but the real library is not loaded or lacks it; returning \"not found\" "
           "(further cases are not reported)",
           api);
}

}  // namespace acs::hooks
