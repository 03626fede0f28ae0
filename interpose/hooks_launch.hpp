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

// Programmatic dependent launch (CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, set by
// XLA on every launch) lets a kernel start before the kernel ahead of it in its stream has
// finished; the kernel waits for that one's results itself (cudaGridDependencySynchronize). With
// ACS_PDL=reorder such a launch is scheduled like any other, and on a pool stream it is issued
// without the attribute: it then starts only when everything before it on that stream, and every
// event acs made it wait for, is complete, an order stronger than the one asked for, and its
// cudaGridDependencySynchronize returns at once (no grid it depends on programmatically). On its
// own stream it is issued as the program made it.
inline constexpr unsigned max_moved_attributes = 16;  // a copy on the stack, with the attribute off

template <class Attribute>
bool allows_programmatic(const Attribute& a) noexcept {
  return static_cast<int>(a.id) == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION && serialization_value(a) != 0;
}

// Whether every attribute is inert or programmatic stream serialization: a launch that needs no
// attribute once moved (acs may copy it and issue it through cuLaunchKernel, or as a graph node).
template <class Attribute>
bool only_programmatic(const Attribute* attrs, unsigned count) noexcept {
  for (unsigned i = 0; i < count; ++i) {
    const int id = static_cast<int>(attrs[i].id);
    if (id != CU_LAUNCH_ATTRIBUTE_IGNORE && id != CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION) return false;
  }
  return true;
}

// Whether a launch's attributes must follow it to a pool stream (launch_shape::attributes): then
// acs cannot copy it into a plain cuLaunchKernel or a graph node (cuda_backend::detach). With
// `reorder_programmatic`, programmatic stream serialization alone does not, since a moved launch
// drops it anyway (moved_attributes).
template <class Attribute>
bool attributes_follow(const Attribute* attrs, unsigned count, bool reorder_programmatic) noexcept {
  return count != 0 && !(reorder_programmatic && only_programmatic(attrs, count));
}

// Why a launch with these attributes must stay on its own stream, in order; nullopt when acs
// may re-issue it on another stream (its attributes unchanged, but for programmatic stream
// serialization with `reorder_programmatic`, which is then turned off). Only attributes known to
// be about the kernel itself (placement, caching, priority hints) are allowed: completion events
// and anything newer than this list keep the launch in order.
template <class Attribute>
std::optional<pass_reason> ordering_of(const Attribute* attrs, unsigned count,
                                       bool reorder_programmatic = false) noexcept {
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
        if (serialization_value(attrs[i]) != 0 && (!reorder_programmatic || count > max_moved_attributes))
          return pass_reason::ordering_attribute;
        break;
      default:  // programmatic event, launch completion event, device-updatable node, unknown
        return pass_reason::ordering_attribute;
    }
  }
  return std::nullopt;
}

// The attributes a launch moved to a pool stream is issued with: `attrs` with programmatic
// stream serialization turned off, copied into `out` (count <= max_moved_attributes, as
// ordering_of checked). Returns `attrs` itself when none allows it.
template <class Attribute>
const Attribute* moved_attributes(const Attribute* attrs, unsigned count, Attribute (&out)[max_moved_attributes]) noexcept {
  bool any = false;
  for (unsigned i = 0; i < count; ++i) any = any || allows_programmatic(attrs[i]);
  if (!any || count > max_moved_attributes) return attrs;
  for (unsigned i = 0; i < count; ++i) {
    out[i] = attrs[i];
    if (allows_programmatic(out[i])) out[i].id = static_cast<decltype(out[i].id)>(CU_LAUNCH_ATTRIBUTE_IGNORE);
  }
  return out;
}

// Hands a launch to the runtime, with the diagnostic line of ACS_LOG_LEVEL=debug.
inline int dispatch(launch_request& request, launch_closure issue) noexcept {
  log::debug("launch via {}: stream {} ({} default stream), {} {}", request.api,
                 static_cast<const void*>(request.stream),
                 request.stream_zero == default_stream::per_thread ? "per-thread" : "legacy",
                 request.function != nullptr ? "function" : "kernel",
                 request.function != nullptr ? static_cast<const void*>(request.function) : request.kernel);
  const int status = dispatch_launch(request, issue);
  ACS_STAGE(leave);
  return status;
}

// Modules or libraries were unloaded: the CUfunctions cached for host stubs and kernels
// (hooks_runtime.cpp) may name unloaded code, and their handles may be reused.
void forget_launch_functions() noexcept;

// The CUfunction of a host stub in the current context (cached as for launches), nullptr where
// it cannot be known without disturbing the runtime's error state (hooks_runtime.cpp).
CUfunction function_of_host_stub(const void* stub) noexcept;

inline void launched_as_is(const char* api, CUstream stream, default_stream zero, pass_reason why) noexcept {
  log::debug("launch via {}: stream {}, issued as-is (reason {})", api, static_cast<const void*>(stream),
                 static_cast<int>(why));
  launched_directly(stream, zero, why);
}

}  // namespace acs::hooks
