#pragma once
// Pieces shared by the driver and runtime launch hooks.
#include <cstdint>
#include <optional>

#include "src/runtime/dispatch.hpp"
#include "interpose/hooks_cuda.hpp"
#include "src/support/log.hpp"
#include "src/support/stage_timer.hpp"

namespace acs::hooks {

// The runtime's launch attributes are the driver's, value for value.
static_assert(static_cast<int>(cudaLaunchAttributeCooperative) == CU_LAUNCH_ATTRIBUTE_COOPERATIVE);
static_assert(static_cast<int>(cudaLaunchAttributeProgrammaticStreamSerialization) ==
              CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);
static_assert(static_cast<int>(cudaLaunchAttributeProgrammaticEvent) == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT);
static_assert(static_cast<int>(cudaLaunchAttributeLaunchCompletionEvent) ==
              CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT);
static_assert(static_cast<int>(cudaLaunchAttributeDeviceUpdatableKernelNode) ==
              CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE);
static_assert(static_cast<int>(cudaLaunchAttributePreferredSharedMemoryCarveout) ==
              CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT);
static_assert(static_cast<int>(cudaLaunchAttributeNvlinkUtilCentricScheduling) ==
              CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING);

inline int cooperative_value(const CUlaunchAttribute& a) noexcept { return a.value.cooperative; }
inline int cooperative_value(const cudaLaunchAttribute& a) noexcept { return a.val.cooperative; }
inline int serialization_value(const CUlaunchAttribute& a) noexcept {
  return a.value.programmaticStreamSerializationAllowed;
}
inline int serialization_value(const cudaLaunchAttribute& a) noexcept {
  return a.val.programmaticStreamSerializationAllowed;
}

// Why a launch with these attributes must stay on its own stream, in order; nullopt when acs
// may re-issue it, attributes unchanged, on another stream. Only attributes known to be about
// the kernel itself (placement, caching, priority hints) are allowed: programmatic dependent
// launch, completion events and anything newer than this list keep the launch in order.
template <class Attribute>
std::optional<pass_reason> ordering_of(const Attribute* attrs, unsigned count) noexcept {
  if (count != 0 && attrs == nullptr) return pass_reason::ordering_attribute;  // the call will fail
  for (unsigned i = 0; i < count; ++i) {
    switch (static_cast<int>(attrs[i].id)) {
      case CU_LAUNCH_ATTRIBUTE_IGNORE:
      case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
      case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
      case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
      case CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
      case CU_LAUNCH_ATTRIBUTE_PRIORITY:
      case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
      case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
      case CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION:
      case CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
      case CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING:
        break;
      case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
        if (cooperative_value(attrs[i]) != 0) return pass_reason::cooperative;
        break;
      case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
        if (serialization_value(attrs[i]) != 0) return pass_reason::ordering_attribute;
        break;
      default:  // programmatic event, launch completion event, device-updatable node, unknown
        return pass_reason::ordering_attribute;
    }
  }
  return std::nullopt;
}

// Hands a launch to the runtime, with the diagnostic line of ACS_LOG_LEVEL=debug.
inline int dispatch(const launch_request& request, launch_closure issue) noexcept {
  log::debug("launch via {}: stream {} ({} default stream), function {}", request.api,
                 static_cast<const void*>(request.stream),
                 request.stream_zero == default_stream::per_thread ? "per-thread" : "legacy",
                 static_cast<const void*>(request.function));
  const int status = dispatch_launch(request, issue);
  ACS_STAGE(leave);
  return status;
}

// Modules or libraries were unloaded: the CUfunctions cached for host stubs and kernels
// (hooks_runtime.cpp) may name unloaded code, and their handles may be reused.
void forget_launch_functions() noexcept;

inline void launched_as_is(const char* api, CUstream stream, default_stream zero, pass_reason why) noexcept {
  log::debug("launch via {}: stream {}, issued as-is (reason {})", api, static_cast<const void*>(stream),
                 static_cast<int>(why));
  launched_directly(stream, zero, why);
}

}  // namespace acs::hooks
