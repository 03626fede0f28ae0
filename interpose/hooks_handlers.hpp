#pragma once
// One handler per hook kind (hooks_table.inc says what each kind reports): handle(kind_tag<kind>,
// ...) forwards the call to the real function and tells the runtime (src/runtime/dispatch.hpp)
// what happened, in the order that kind needs. Arguments are found by type (hooks_args.hpp), and
// static_asserts reject a table line whose signature does not fit its kind.
//
// Kinds whose arguments need more than that (launches, the upload stream in graph-instantiate
// params, cudaMalloc3D) have no handler here: the generic one hands them to special<Api>,
// which hooks_driver.cpp and hooks_runtime.cpp define before instantiating any hook.
#include <cstddef>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "interpose/hooks_args.hpp"
#include "interpose/hooks_kind.hpp"
#include "interpose/hooks_launch.hpp"
#include "interpose/hooks_lookup.hpp"
#include "src/runtime/dispatch.hpp"
#include "src/support/log.hpp"

namespace acs::hooks {

enum class hook_api : std::uint8_t { driver, runtime };

// Handlers for the kinds generic code cannot handle; specialised per API.
template <hook_api Api>
struct special;

// handle<Entry>(kind_tag<Entry::kind>{}, real, a...) picks the handler of the line's kind.
// `Entry` (hooks_generic.hpp says what it provides) names the table line; `real` is its real
// function and `a...` the application's arguments.
template <hook_kind>
struct kind_tag {};

// The entry points that make the host wait for the GPU: a stream's, an event's or the device's
// synchronize (not a query), counted for the probes' relay verdict (program_waits_for_gpu).
template <class Entry>
inline constexpr bool waits_for_gpu = std::string_view(Entry::name).find("Synchronize") != std::string_view::npos;

template <hook_kind K>
inline constexpr bool is_special_kind = K == hook_kind::launch || K == hook_kind::cooperative_multi ||
                                        K == hook_kind::graph_instantiate || K == hook_kind::alloc_3d;
template <hook_kind K>
inline constexpr bool is_allocation_kind = K == hook_kind::alloc || K == hook_kind::alloc_host ||
                                           K == hook_kind::alloc_pitch || K == hook_kind::alloc_unsized;

template <class Entry, hook_kind K, class R, class... A>
  requires is_special_kind<K>
R handle(kind_tag<K>, R (*real)(A...), A... a) noexcept {
  return special<Entry::api>::template call<Entry>(real, a...);
}

// Work issued directly on `stream` (rule 2): the stream joins its pool work before it, and
// `done(stream)` reports it afterwards (a barrier, or a launch issued as it is).
template <class Entry, class Done, class R, class... A>
R issued_on(CUstream stream, Done done, R (*real)(A...), A... a) noexcept {
  stream_work_begins(stream, Entry::zero);
  const R result = real(a...);
  done(stream);
  return result;
}

template <class Entry>
void barrier_done(CUstream stream) noexcept {
  ACS_LOG_TRACE("{}: barrier on stream {}", Entry::name, static_cast<const void*>(stream));
  stream_barrier(stream, Entry::zero);
}

// Any other stream-ordered operation (rule 2).
template <class Entry, class R, class... A>
R handle(kind_tag<hook_kind::barrier>, R (*real)(A...), A... a) noexcept {
  static_assert(detail::count_of<CUstream, A...> == 1, "a barrier entry point takes exactly one stream");
  return issued_on<Entry>(detail::stream_arg(a...), barrier_done<Entry>, real, a...);
}

// A synchronous copy or memset: a barrier on the implicit default stream, the legacy one or the
// per-thread one for the _ptds twins.
template <class Entry, class R, class... A>
R handle(kind_tag<hook_kind::legacy_barrier>, R (*real)(A...), A... a) noexcept {
  static_assert(detail::count_of<CUstream, A...> == 0, "a synchronous operation names no stream");
  const CUstream implied = Entry::zero == default_stream::per_thread ? CU_STREAM_PER_THREAD : CU_STREAM_LEGACY;
  return issued_on<Entry>(implied, barrier_done<Entry>, real, a...);
}

// A synchronous peer copy: a legacy_barrier, on the other devices' default streams too (CUDA
// serialises it with its source and destination devices' work: dispatch.hpp, peer_copy_begins).
template <class Entry, class R, class... A>
R handle(kind_tag<hook_kind::peer_barrier>, R (*real)(A...), A... a) noexcept {
  static_assert(detail::count_of<CUstream, A...> == 0, "a synchronous operation names no stream");
  peer_copy_begins(Entry::zero);
  const R result = handle<Entry>(kind_tag<hook_kind::legacy_barrier>{}, real, a...);
  peer_copy_done(Entry::zero);
  return result;
}

template <class Entry, class R, class... A>
R handle(kind_tag<hook_kind::sync>, R (*real)(A...), A... a) noexcept {
  static_assert(detail::count_of<CUstream, A...> == 1);
  const CUstream stream = detail::stream_arg(a...);
  if constexpr (waits_for_gpu<Entry>) program_waits_for_gpu();
  const std::uint64_t point = stream_sync_begins(stream, Entry::zero);
  const R result = real(a...);
  if (result == detail::success<R>()) stream_synchronized(stream, Entry::zero, point);
  return result;
}

template <class Entry, class R, class... A>
R handle(kind_tag<hook_kind::device_sync>, R (*real)(A...), A... a) noexcept {
  if constexpr (waits_for_gpu<Entry>) program_waits_for_gpu();
  const std::uint64_t point = device_sync_begins();  // issues every accepted launch first
  const R result = real(a...);
  if (result == detail::success<R>() && is_current_context(detail::context_arg(nullptr, a...)))
    device_synchronized(point);
  return result;
}

template <class Entry, class R, class... A>
R handle(kind_tag<hook_kind::stream_destroy>, R (*real)(A...), A... a) noexcept {
  static_assert(detail::count_of<CUstream, A...> == 1);
  const CUstream stream = detail::stream_arg(a...);
  // Before the call: afterwards the handle may already name a new stream.
  if (stream != nullptr && stream != CU_STREAM_LEGACY && stream != CU_STREAM_PER_THREAD) stream_destroyed(stream);
  return real(a...);
}

template <class Entry, class R, class... A>
R handle(kind_tag<hook_kind::capture_begin>, R (*real)(A...), A... a) noexcept {
  static_assert(detail::count_of<CUstream, A...> == 1);
  constexpr std::size_t mode_at = detail::capture_mode_index<A...>();
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_GLOBAL;  // v1 cuStreamBeginCapture has no mode
  if constexpr (mode_at < sizeof...(A)) mode = static_cast<CUstreamCaptureMode>(detail::arg<mode_at>(a...));
  const CUstream given = detail::stream_arg(a...);
  const CUstream stream = explicit_stream(given, Entry::zero);
  log::debug("{}: capture begins on stream {} (mode {})", Entry::name, static_cast<const void*>(stream),
             static_cast<int>(mode));
  // Before the call, so that acs stops unsafe calls (queries, syncs) before the capture
  // exists and can still record on the stream without the record becoming a graph node;
  // the stream joins its pool work first, while that wait is not a graph node either.
  (void)stream_sync_begins(given, Entry::zero);
  capture_began(stream, mode);
  const R result = real(a...);
  if (result != detail::success<R>() && !still_capturing(stream)) capture_ended(stream);
  return result;
}

template <class Entry, class R, class... A>
R handle(kind_tag<hook_kind::capture_end>, R (*real)(A...), A... a) noexcept {
  static_assert(detail::count_of<CUstream, A...> == 1);
  const R result = real(a...);
  const CUstream stream = explicit_stream(detail::stream_arg(a...), Entry::zero);
  // A failed end may leave the capture running (wrong thread), or end it (invalidated).
  if (result == detail::success<R>() || !still_capturing(stream)) {
    log::debug("{}: capture ended on stream {}", Entry::name, static_cast<const void*>(stream));
    capture_ended(stream);
  }
  return result;
}

// What an allocation of kind K reports, its address being `base`: alloc and alloc_host (the size
// is the first integer argument; alloc_host is pinned host memory, docs/design.md rule 11),
// alloc_pitch (pitch * height), alloc_unsized (asked of the driver).
template <class Entry, hook_kind K, class... A>
void report_allocation(CUdeviceptr base, A&... a) noexcept {
  if constexpr (K == hook_kind::alloc || K == hook_kind::alloc_host) {
    constexpr std::size_t size_at = detail::size_index<A...>();
    static_assert(size_at < sizeof...(A), "an allocation takes its size as an integer");
    memory_allocated(base, static_cast<std::size_t>(detail::arg<size_at>(a...)),
                     K == hook_kind::alloc_host ? memory_kind::host : memory_kind::device);
  } else if constexpr (K == hook_kind::alloc_pitch) {
    // (address*, size_t* pitch, size_t width, size_t height, ...): cuMemAllocPitch, cudaMallocPitch
    static_assert(std::is_same_v<detail::arg_t<1, A...>, std::size_t*> &&
                  std::is_same_v<detail::arg_t<3, A...>, std::size_t>);
    std::size_t* const pitch = detail::arg<1>(a...);
    if (pitch != nullptr) memory_allocated(base, *pitch * detail::arg<3>(a...));
  } else {
    report_unsized_allocation(Entry::name, base);
  }
}

// Allocations that return their address through argument 0.
template <class Entry, hook_kind K, class R, class... A>
  requires is_allocation_kind<K>
R handle(kind_tag<K>, R (*real)(A...), A... a) noexcept {
  using out_t = detail::arg_t<0, A...>;
  static_assert(detail::is_address_out_v<out_t>, "an allocation returns its address through argument 0");
  constexpr bool ordered = detail::count_of<CUstream, A...> == 1;
  if constexpr (ordered) stream_work_begins(detail::stream_arg(a...), Entry::zero);
  const R result = real(a...);
  const out_t out = detail::arg<0>(a...);
  if (result == detail::success<R>() && out != nullptr && *out != std::remove_reference_t<decltype(*out)>{})
    report_allocation<Entry, K>(detail::address(*out), a...);
  if constexpr (ordered) stream_barrier(detail::stream_arg(a...), Entry::zero);
  return result;
}

// Memory mapped at an address the caller gives (VMM map; alloc_host_at: host memory registered).
template <class Entry, hook_kind K, class R, class... A>
  requires(K == hook_kind::alloc_at || K == hook_kind::alloc_host_at)
R handle(kind_tag<K>, R (*real)(A...), A... a) noexcept {
  static_assert(detail::is_address_v<detail::arg_t<0, A...>>, "argument 0 is the address");
  constexpr std::size_t size_at = detail::size_index<A...>();
  static_assert(size_at < sizeof...(A));
  const R result = real(a...);
  if (result == detail::success<R>())
    memory_allocated(detail::address(detail::arg<0>(a...)), static_cast<std::size_t>(detail::arg<size_at>(a...)),
                     K == hook_kind::alloc_host_at ? memory_kind::host : memory_kind::device);
  return result;
}

// cuMemAddressReserve(CUdeviceptr* ptr, size_t size, ...): what is mapped into the reservation is
// one allocation (docs/design.md rule 10).
template <class Entry, class R, class... A>
R handle(kind_tag<hook_kind::reserve>, R (*real)(A...), A... a) noexcept {
  static_assert(std::is_same_v<detail::arg_t<0, A...>, CUdeviceptr*>);
  constexpr std::size_t size_at = detail::size_index<A...>();
  static_assert(size_at < sizeof...(A));
  const R result = real(a...);
  CUdeviceptr* const out = detail::arg<0>(a...);
  if (result == detail::success<R>() && out != nullptr && *out != 0)
    memory_reserved(*out, static_cast<std::size_t>(detail::arg<size_at>(a...)));
  return result;
}

// cuMemAddressFree: before the call, since once released the range may be reserved again.
template <class Entry, class R, class... A>
R handle(kind_tag<hook_kind::unreserve>, R (*real)(A...), A... a) noexcept {
  static_assert(std::is_same_v<detail::arg_t<0, A...>, CUdeviceptr>);
  if (detail::arg<0>(a...) != 0) reservation_freed(detail::arg<0>(a...));
  return real(a...);
}

template <class Entry, class R, class... A>
R handle(kind_tag<hook_kind::free>, R (*real)(A...), A... a) noexcept {
  static_assert(detail::is_address_v<detail::arg_t<0, A...>>, "argument 0 is the address");
  constexpr bool ordered = detail::count_of<CUstream, A...> == 1;
  const CUdeviceptr base = detail::address(detail::arg<0>(a...));
  // Before the call: once freed, the same range may be handed out (and reported) again.
  if (base != 0) memory_freed(base);
  // A free waits for the device's work (cudaFree) or orders after it: that work must be issued.
  if constexpr (ordered) {
    stream_work_begins(detail::stream_arg(a...), Entry::zero);
  } else {
    device_work_issued();
  }
  const R result = real(a...);
  if constexpr (ordered) stream_barrier(detail::stream_arg(a...), Entry::zero);
  return result;
}

// cuGetProcAddress and its runtime twins: real driver pointers are swapped for wrappers.
template <class Entry, class R, class... A>
R handle(kind_tag<hook_kind::proc_address>, R (*real)(A...), A... a) noexcept {
  static_assert(detail::count_of<void**, A...> == 1, "the entry point returns a pointer through void**");
  const R result = real(a...);
  void** const out = detail::arg<detail::index_of<void**, A...>()>(a...);
  if (result == detail::success<R>() && out != nullptr && *out != nullptr)
    *out = driver_wrapper_for(*out, Entry::name, detail::arg<0>(a...));
  return result;
}

template <class Entry, class R, class... A>
R handle(kind_tag<hook_kind::teardown>, R (*real)(A...), A... a) noexcept {
  teardown_begins();
  forget_launch_functions();  // a new context may come back with the old one's handle
  if constexpr (detail::count_of<CUcontext, A...> == 1) {
    const CUcontext context = detail::context_arg(nullptr, a...);
    const R result = real(a...);
    function_attributes_forgotten();  // a new context may come back with the old one's handles
    if (result == detail::success<R>()) context_destroyed(context);
    return result;
  } else {
    // cuDevicePrimaryCtxReset names the device; cudaDeviceReset means the current one,
    // which must be read before the reset.
    CUdevice device = -1;
    if constexpr (sizeof...(A) == 1) {
      device = static_cast<CUdevice>(detail::arg<0>(a...));
    } else {
      device = current_device();
    }
    const R result = real(a...);
    function_attributes_forgotten();
    if (result == detail::success<R>() && device >= 0) device_reset(device);
    return result;
  }
}

// The entry points that set one attribute of one function: cuFuncSetAttribute(CUfunction,
// attribute, value), cudaFuncSetAttribute(host stub, attribute, value), and of one kernel for one
// device: cuKernelSetAttribute(attribute, value, CUkernel, device) (what the CUDA 12+ libraries
// call, cuBLAS and cuDNN among them: a training step of resnet18 made about 44). Their attributes
// are numbered alike where acs remembers values (launch_conditions.cpp, remembers_attribute).
template <class Entry>
inline constexpr bool sets_function_attribute = std::string_view(Entry::name) == "cuFuncSetAttribute" ||
                                                std::string_view(Entry::name) == "cudaFuncSetAttribute";
template <class Entry>
inline constexpr bool sets_kernel_attribute = std::string_view(Entry::name) == "cuKernelSetAttribute";
static_assert(static_cast<int>(cudaFuncAttributeMaxDynamicSharedMemorySize) ==
                  static_cast<int>(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) &&
              static_cast<int>(cudaFuncAttributePreferredSharedMemoryCarveout) ==
                  static_cast<int>(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT) &&
              static_cast<int>(cudaFuncAttributeClusterDimMustBeSet) ==
                  static_cast<int>(CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET) &&
              static_cast<int>(cudaFuncAttributeRequiredClusterWidth) ==
                  static_cast<int>(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH) &&
              static_cast<int>(cudaFuncAttributeRequiredClusterHeight) ==
                  static_cast<int>(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT) &&
              static_cast<int>(cudaFuncAttributeRequiredClusterDepth) ==
                  static_cast<int>(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH) &&
              static_cast<int>(cudaFuncAttributeNonPortableClusterSizeAllowed) ==
                  static_cast<int>(CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED) &&
              static_cast<int>(cudaFuncAttributeClusterSchedulingPolicyPreference) ==
                  static_cast<int>(CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE));

// The real call of an attribute set or an unload, made under the lock of launch_conditions'
// table of attribute values (function_attribute_set, code_unload).
template <class R, class... A>
struct locked_real_call {
  R (*real)(A...);
  std::tuple<A...> args;
  R result;
  static int run(void* context) noexcept {
    auto& k = *static_cast<locked_real_call*>(context);
    k.result = std::apply(k.real, k.args);
    return static_cast<int>(k.result);
  }
};

// What may make a launch of a kind that succeeded before fail (docs/design.md rule 6): every
// launch acs deferred is issued before it changes, none is deferred while it changes, and no
// earlier success counts after it. A set of a function's attribute to the value it already holds
// changes nothing (function_attribute_set); the attributes acs remembers are forgotten after any
// other such call.
template <class Entry, class R, class... A>
R handle(kind_tag<hook_kind::function_config>, R (*real)(A...), A... a) noexcept {
  if constexpr (sets_function_attribute<Entry>) {
    static_assert(sizeof...(A) == 3, "(function, attribute, value)");
    locked_real_call<R, A...> c{real, {a...}, R{}};
    // The function the attribute belongs to: a driver call names it; a runtime call names a host
    // stub, whose function in the current context is looked up (nullptr: a change as any other).
    const void* function = nullptr;
    if constexpr (Entry::api == hook_api::driver)
      function = static_cast<const void*>(detail::arg<0>(a...));
    else
      function = static_cast<const void*>(function_of_host_stub(static_cast<const void*>(detail::arg<0>(a...))));
    const int attribute = static_cast<int>(detail::arg<1>(a...)), value = static_cast<int>(detail::arg<2>(a...));
    (void)function_attribute_set(function, attribute, value, &locked_real_call<R, A...>::run, &c);
    return c.result;
  } else if constexpr (sets_kernel_attribute<Entry>) {
    static_assert(sizeof...(A) == 4, "(attribute, value, kernel, device)");
    locked_real_call<R, A...> c{real, {a...}, R{}};
    const int attribute = static_cast<int>(detail::arg<0>(a...)), value = static_cast<int>(detail::arg<1>(a...));
    const int device = static_cast<int>(detail::arg<3>(a...));
    // A negative device is no device: the driver rejects the call, which then changes nothing.
    (void)function_attribute_set(static_cast<const void*>(detail::arg<2>(a...)), attribute, value,
                                 &locked_real_call<R, A...>::run, &c, device < 0 ? 0 : device);
    return c.result;
  } else {
    log::debug("{}: may change whether launches succeed (every launch kind unproven after it)", Entry::name);
    launch_conditions_change_begins();
    const R result = real(a...);
    function_attributes_forgotten();
    launch_conditions_changed();
    return result;
  }
}

// Unloading code changes them too: function handles may name other kernels afterwards, and
// launches of the old ones must have been issued before. And an executable graph keeps the code
// it was built from, so graph replay's executables are destroyed first (modules_unloading),
// inside the bracket, where none can be built anew: a segment of the same key afterwards (a
// reloaded library's handle at the old address) builds a new one.
// The attribute values acs remembers are forgotten only for the unloaded code (code_unload).
template <class Entry, class R, class... A>
R handle(kind_tag<hook_kind::unload>, R (*real)(A...), A... a) noexcept {
  static_assert(sizeof...(A) == 1, "(module) or (library)");
  log::debug("{}: may change whether launches succeed (every launch kind unproven after it)", Entry::name);
  launch_conditions_change_begins();
  modules_unloading();
  locked_real_call<R, A...> c{real, {a...}, R{}};
  (void)code_unload(static_cast<const void*>(detail::arg<0>(a...)),
                    std::string_view(Entry::name) == "cuLibraryUnload", &locked_real_call<R, A...>::run, &c);
  const R result = c.result;
  launch_conditions_changed();
  if (result == detail::success<R>()) {
    forget_launch_functions();
    modules_unloaded(static_cast<const void*>(detail::arg<0>(a...)));
  }
  return result;
}

// Forwarded as is: hook<> notes the call and reports its status if it failed.
template <class Entry, class R, class... A>
R handle(kind_tag<hook_kind::observe>, R (*real)(A...), A... a) noexcept {
  if constexpr (waits_for_gpu<Entry>) program_waits_for_gpu();  // an event's synchronize
  return real(a...);
}

template <class Entry, class R, class... A>
R handle(kind_tag<hook_kind::code_load>, R (*real)(A...), A... a) noexcept {
  using out_t = detail::arg_t<0, A...>;
  static_assert(std::is_same_v<out_t, CUmodule*> || std::is_same_v<out_t, CUlibrary*>,
                "a load returns its module or library through argument 0");
  static_assert(std::is_same_v<detail::arg_t<1, A...>, const void*>, "argument 1 is the image");
  const R result = real(a...);
  if (result == detail::success<R>() && detail::arg<0>(a...) != nullptr)
    code_loaded(static_cast<const void*>(*detail::arg<0>(a...)), std::is_same_v<out_t, CUlibrary*>,
                detail::arg<1>(a...));
  return result;
}

template <class Entry, pass_reason Why>
void launch_done(CUstream stream) noexcept {
  launched_as_is(Entry::name, stream, Entry::zero, Why);
}

template <class Entry, class R, class... A>
R handle(kind_tag<hook_kind::cooperative>, R (*real)(A...), A... a) noexcept {
  static_assert(detail::count_of<CUstream, A...> == 1);
  return issued_on<Entry>(detail::stream_arg(a...), launch_done<Entry, pass_reason::cooperative>, real, a...);
}

template <class Entry, class R, class... A>
R handle(kind_tag<hook_kind::opaque_launch>, R (*real)(A...), A... a) noexcept {
  static_assert(detail::count_of<CUstream, A...> <= 1);
  // cuLaunch / cuLaunchGrid use the legacy stream.
  const CUstream on = detail::count_of<CUstream, A...> == 1 ? detail::stream_arg(a...) : CU_STREAM_LEGACY;
  return issued_on<Entry>(on, launch_done<Entry, pass_reason::unknown_function>, real, a...);
}

}  // namespace acs::hooks
