#pragma once
// One wrapper template for every hooked entry point.
//
// hook<Entry>::call has exactly the signature of the real function (taken from its type), so
// it can be exported under the symbol's name and returned from dlsym / cuGetProcAddress in
// place of the real pointer. It forwards straight to the real function when nested inside
// another hook (hooks_guard.hpp), and otherwise hands the call to the handler of its kind.
//
// Generic handlers find their arguments by type: the stream is the one CUstream parameter
// (cudaStream_t is the same type), a capture mode is the one capture-mode enum, an allocation
// size is the first integer after the address. static_asserts reject a table line whose
// signature does not fit its kind. Kinds whose arguments need more than that (launches, the
// upload stream in graph-instantiate params, cudaMalloc3D) are handled by special<Api>, which
// hooks_driver.cpp and hooks_runtime.cpp define before instantiating any hook.
//
// Entry (generated from hooks_table.inc in each of those files) provides:
//   static constexpr const char* name; hook_kind kind; acs::default_stream zero;
//   static real_type real() noexcept;   // nullptr when the real library is not loaded
//   static void count(bool nested) noexcept;  // diagnostics (ACS_LOG_LEVEL=debug)
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>

#include "src/runtime/dispatch.hpp"
#include "interpose/hooks_cuda.hpp"
#include "interpose/hooks_guard.hpp"
#include "interpose/hooks_kind.hpp"
#include "interpose/hooks_launch.hpp"
#include "src/support/log.hpp"
#include "interpose/hooks_lookup.hpp"

namespace acs::hooks {

enum class hook_api : std::uint8_t { driver, runtime };

// Handlers for the kinds generic code cannot handle; specialised per API.
template <hook_api Api>
struct special;

namespace detail {

template <class T, class... A>
inline constexpr std::size_t count_of = (std::size_t{std::is_same_v<T, A>} + ... + 0);

// Position of the first parameter of type T (sizeof...(A) if none).
template <class T, class... A>
constexpr std::size_t index_of() noexcept {
  std::size_t i = 0;
  (void)((std::is_same_v<T, A> ? false : (++i, true)) && ...);
  return i;
}

template <class T>
inline constexpr bool is_size_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// Position of the first integer parameter after the first one.
template <class... A>
constexpr std::size_t size_index() noexcept {
  constexpr bool integral[] = {is_size_v<A>..., false};
  for (std::size_t i = 1; i < sizeof...(A); ++i) {
    if (integral[i]) return i;
  }
  return sizeof...(A);
}

template <std::size_t I, class... A>
decltype(auto) arg(A&... a) noexcept {
  return std::get<I>(std::tie(a...));
}

template <class T>
inline constexpr bool is_capture_mode_v =
    std::is_same_v<T, CUstreamCaptureMode> || std::is_same_v<T, cudaStreamCaptureMode>;

template <class... A>
constexpr std::size_t capture_mode_index() noexcept {
  std::size_t i = 0;
  (void)((is_capture_mode_v<A> ? false : (++i, true)) && ...);
  return i;
}

// An address argument as the dispatch contract wants it.
inline CUdeviceptr address(CUdeviceptr p) noexcept { return p; }
inline CUdeviceptr address(const void* p) noexcept { return reinterpret_cast<CUdeviceptr>(p); }

template <class T>
inline constexpr bool is_address_out_v = std::is_same_v<T, CUdeviceptr*> || std::is_same_v<T, void**>;
template <class T>
inline constexpr bool is_address_v =
    std::is_same_v<T, CUdeviceptr> || std::is_same_v<T, void*> || std::is_same_v<T, const void*>;

template <class R>
constexpr R success() noexcept {
  return R{};  // CUDA_SUCCESS and cudaSuccess are both 0
}

}  // namespace detail

// Stream 0 of a per-thread variant is the calling thread's default stream; notifications that
// carry no default_stream (capture, destroy) name it by its explicit handle instead.
inline CUstream explicit_stream(CUstream stream, default_stream zero) noexcept {
  return stream == nullptr && zero == default_stream::per_thread ? CU_STREAM_PER_THREAD : stream;
}

// True while `stream` is being captured, or when that cannot be told (the conservative answer:
// acs keeps passing the stream's work through).
bool still_capturing(CUstream stream) noexcept;

// Whether a synchronisation of `context` (nullptr: the current one) covers the current context.
bool is_current_context(CUcontext context) noexcept;

// The device of the current context; -1 when none is current.
CUdevice current_device() noexcept;

// The allocation that contains `address`, for entry points that do not say its size.
void report_unsized_allocation(const char* api, CUdeviceptr address) noexcept;

// The real function is missing (its library is not loaded, or lacks the symbol). 500 is
// CUDA_ERROR_NOT_FOUND and cudaErrorSymbolNotFound alike.
void report_missing_real(const char* api) noexcept;

template <class Entry, class R, class... A>
R handle(R (*real)(A...), A... a) noexcept {
  using namespace detail;
  constexpr hook_kind kind = Entry::kind;
  constexpr default_stream zero = Entry::zero;
  constexpr std::size_t streams = count_of<CUstream, A...>;
  constexpr std::size_t stream_at = index_of<CUstream, A...>();
  [[maybe_unused]] auto stream_of = [&]() noexcept -> CUstream {
    if constexpr (streams == 0) {
      return nullptr;
    } else {
      return arg<stream_at>(a...);
    }
  };

  if constexpr (kind == hook_kind::barrier) {
    static_assert(streams == 1, "a barrier entry point takes exactly one stream");
    stream_work_begins(stream_of(), zero);
    const R result = real(a...);
    log::trace("{}: barrier on stream {}", Entry::name, static_cast<const void*>(stream_of()));
    stream_barrier(stream_of(), zero);
    return result;
  } else if constexpr (kind == hook_kind::legacy_barrier) {
    static_assert(streams == 0, "a synchronous operation names no stream");
    // The implicit default stream: the legacy one, or the per-thread one for the _ptds twins.
    const CUstream implied = zero == default_stream::per_thread ? CU_STREAM_PER_THREAD : CU_STREAM_LEGACY;
    stream_work_begins(implied, zero);
    const R result = real(a...);
    log::trace("{}: barrier on the default stream", Entry::name);
    stream_barrier(implied, zero);
    return result;
  } else if constexpr (kind == hook_kind::sync) {
    static_assert(streams == 1);
    const std::uint64_t point = stream_sync_begins(stream_of(), zero);
    const R result = real(a...);
    if (result == success<R>()) stream_synchronized(stream_of(), zero, point);
    return result;
  } else if constexpr (kind == hook_kind::device_sync) {
    const std::uint64_t point = device_sync_begins();  // issues every accepted launch first
    const R result = real(a...);
    bool whole_current_device = true;
    if constexpr (count_of<CUcontext, A...> == 1) {
      whole_current_device = is_current_context(arg<index_of<CUcontext, A...>()>(a...));
    }
    if (result == success<R>() && whole_current_device) device_synchronized(point);
    return result;
  } else if constexpr (kind == hook_kind::stream_destroy) {
    static_assert(streams == 1);
    const CUstream stream = stream_of();
    // Before the call: afterwards the handle may already name a new stream.
    if (stream != nullptr && stream != CU_STREAM_LEGACY && stream != CU_STREAM_PER_THREAD) {
      stream_destroyed(stream);
    }
    return real(a...);
  } else if constexpr (kind == hook_kind::capture_begin) {
    static_assert(streams == 1);
    constexpr std::size_t mode_at = capture_mode_index<A...>();
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_GLOBAL;  // v1 cuStreamBeginCapture has no mode
    if constexpr (mode_at < sizeof...(A)) {
      mode = static_cast<CUstreamCaptureMode>(arg<mode_at>(a...));
    }
    const CUstream stream = explicit_stream(stream_of(), zero);
    log::debug("{}: capture begins on stream {} (mode {})", Entry::name, static_cast<const void*>(stream),
                   static_cast<int>(mode));
    // Before the call, so that acs stops unsafe calls (queries, syncs) before the capture
    // exists and can still record on the stream without the record becoming a graph node;
    // the stream joins its pool work first, while that wait is not a graph node either.
    (void)stream_sync_begins(stream_of(), zero);
    capture_began(stream, mode);
    const R result = real(a...);
    if (result != success<R>() && !still_capturing(stream)) capture_ended(stream);
    return result;
  } else if constexpr (kind == hook_kind::capture_end) {
    static_assert(streams == 1);
    const R result = real(a...);
    const CUstream stream = explicit_stream(stream_of(), zero);
    // A failed end may leave the capture running (wrong thread), or end it (invalidated).
    if (result == success<R>() || !still_capturing(stream)) {
      log::debug("{}: capture ended on stream {}", Entry::name, static_cast<const void*>(stream));
      capture_ended(stream);
    }
    return result;
  } else if constexpr (kind == hook_kind::alloc || kind == hook_kind::alloc_host || kind == hook_kind::alloc_pitch ||
                       kind == hook_kind::alloc_unsized) {
    using out_t = std::tuple_element_t<0, std::tuple<A...>>;
    static_assert(is_address_out_v<out_t>, "an allocation returns its address through argument 0");
    if constexpr (streams == 1) stream_work_begins(stream_of(), zero);
    const R result = real(a...);
    const out_t out = arg<0>(a...);
    if (result == success<R>() && out != nullptr && *out != std::remove_reference_t<decltype(*out)>{}) {
      const CUdeviceptr base = address(*out);
      if constexpr (kind == hook_kind::alloc || kind == hook_kind::alloc_host) {
        constexpr std::size_t size_at = size_index<A...>();
        static_assert(size_at < sizeof...(A), "an allocation takes its size as an integer");
        memory_allocated(base, static_cast<std::size_t>(arg<size_at>(a...)),
                         kind == hook_kind::alloc_host ? memory_kind::host : memory_kind::device);
      } else if constexpr (kind == hook_kind::alloc_pitch) {
        // (address*, size_t* pitch, size_t width, size_t height, ...): cuMemAllocPitch, cudaMallocPitch
        static_assert(std::is_same_v<std::tuple_element_t<1, std::tuple<A...>>, std::size_t*> &&
                      std::is_same_v<std::tuple_element_t<3, std::tuple<A...>>, std::size_t>);
        std::size_t* const pitch = arg<1>(a...);
        if (pitch != nullptr) memory_allocated(base, *pitch * arg<3>(a...));
      } else {
        report_unsized_allocation(Entry::name, base);
      }
    }
    if constexpr (streams == 1) stream_barrier(stream_of(), zero);
    return result;
  } else if constexpr (kind == hook_kind::alloc_at || kind == hook_kind::alloc_host_at) {
    using at_t = std::tuple_element_t<0, std::tuple<A...>>;
    static_assert(is_address_v<at_t>, "argument 0 is the address");
    constexpr std::size_t size_at = size_index<A...>();
    static_assert(size_at < sizeof...(A));
    const R result = real(a...);
    if (result == success<R>()) {
      memory_allocated(address(arg<0>(a...)), static_cast<std::size_t>(arg<size_at>(a...)),
                       kind == hook_kind::alloc_host_at ? memory_kind::host : memory_kind::device);
    }
    return result;
  } else if constexpr (kind == hook_kind::reserve) {
    // cuMemAddressReserve(CUdeviceptr* ptr, size_t size, ...): what is mapped into it is one allocation.
    static_assert(std::is_same_v<std::tuple_element_t<0, std::tuple<A...>>, CUdeviceptr*>);
    constexpr std::size_t size_at = size_index<A...>();
    static_assert(size_at < sizeof...(A));
    const R result = real(a...);
    CUdeviceptr* const out = arg<0>(a...);
    if (result == success<R>() && out != nullptr && *out != 0)
      memory_reserved(*out, static_cast<std::size_t>(arg<size_at>(a...)));
    return result;
  } else if constexpr (kind == hook_kind::unreserve) {
    static_assert(std::is_same_v<std::tuple_element_t<0, std::tuple<A...>>, CUdeviceptr>);
    // Before the call: once released, the range may be reserved (and reported) again.
    if (arg<0>(a...) != 0) reservation_freed(arg<0>(a...));
    return real(a...);
  } else if constexpr (kind == hook_kind::free) {
    using at_t = std::tuple_element_t<0, std::tuple<A...>>;
    static_assert(is_address_v<at_t>, "argument 0 is the address");
    const CUdeviceptr base = address(arg<0>(a...));
    // Before the call: once freed, the same range may be handed out (and reported) again.
    if (base != 0) memory_freed(base);
    // A free waits for the device's work (cudaFree) or orders after it: that work must be issued.
    if constexpr (streams == 0) device_work_issued();
    if constexpr (streams == 1) stream_work_begins(stream_of(), zero);
    const R result = real(a...);
    if constexpr (streams == 1) stream_barrier(stream_of(), zero);
    return result;
  } else if constexpr (kind == hook_kind::proc_address) {
    static_assert(count_of<void**, A...> == 1, "the entry point returns a pointer through void**");
    const R result = real(a...);
    void** const out = arg<index_of<void**, A...>()>(a...);
    if (result == success<R>() && out != nullptr && *out != nullptr) {
      const char* const symbol = arg<0>(a...);
      *out = driver_wrapper_for(*out, Entry::name, symbol);
    }
    return result;
  } else if constexpr (kind == hook_kind::teardown) {
    teardown_begins();
    if constexpr (count_of<CUcontext, A...> == 1) {
      const CUcontext context = arg<index_of<CUcontext, A...>()>(a...);
      const R result = real(a...);
      if (result == success<R>()) context_destroyed(context);
      return result;
    } else {
      // cuDevicePrimaryCtxReset names the device; cudaDeviceReset means the current one,
      // which must be read before the reset.
      CUdevice device = -1;
      if constexpr (sizeof...(A) == 1) {
        device = static_cast<CUdevice>(arg<0>(a...));
      } else {
        device = current_device();
      }
      const R result = real(a...);
      if (result == success<R>() && device >= 0) device_reset(device);
      return result;
    }
  } else if constexpr (kind == hook_kind::unload) {
    const R result = real(a...);
    if (result == success<R>()) modules_unloaded(static_cast<const void*>(arg<0>(a...)));
    return result;
  } else if constexpr (kind == hook_kind::code_load) {
    using out_t = std::tuple_element_t<0, std::tuple<A...>>;
    static_assert(std::is_same_v<out_t, CUmodule*> || std::is_same_v<out_t, CUlibrary*>,
                  "a load returns its module or library through argument 0");
    static_assert(std::is_same_v<std::tuple_element_t<1, std::tuple<A...>>, const void*>,
                  "argument 1 is the image");
    const R result = real(a...);
    if (result == success<R>() && arg<0>(a...) != nullptr)
      code_loaded(static_cast<const void*>(*arg<0>(a...)), std::is_same_v<out_t, CUlibrary*>, arg<1>(a...));
    return result;
  } else if constexpr (kind == hook_kind::cooperative) {
    static_assert(streams == 1);
    stream_work_begins(stream_of(), zero);
    const R result = real(a...);
    launched_as_is(Entry::name, stream_of(), zero, pass_reason::cooperative);
    return result;
  } else if constexpr (kind == hook_kind::opaque_launch) {
    static_assert(streams <= 1);
    // cuLaunch / cuLaunchGrid use the legacy stream.
    const CUstream on = streams == 1 ? stream_of() : CU_STREAM_LEGACY;
    stream_work_begins(on, zero);
    const R result = real(a...);
    launched_as_is(Entry::name, on, zero, pass_reason::unknown_function);
    return result;
  } else {
    static_assert(kind == hook_kind::launch || kind == hook_kind::cooperative_multi ||
                      kind == hook_kind::graph_instantiate || kind == hook_kind::alloc_3d,
                  "no handler for this kind");
    return special<Entry::api>::template call<Entry>(real, a...);
  }
}

template <class Entry, class Fn = decltype(Entry::real())>
struct hook;

template <class Entry, class R, class... A>
struct hook<Entry, R (*)(A...)> {
  static R call(A... a) noexcept {
    if constexpr (Entry::kind == hook_kind::launch) ACS_STAGE_BEGIN();
    const auto real = Entry::real();
    if (real == nullptr) [[unlikely]] {
      report_missing_real(Entry::name);
      return static_cast<R>(500);
    }
    // Pointer substitution must happen even when nested: the caller keeps the pointer.
    // So must recording loaded code: the runtime loads it from inside other entry points.
    if (Entry::kind != hook_kind::proc_address && Entry::kind != hook_kind::code_load && nested()) {
      Entry::count(true);
      return real(a...);
    }
    hook_scope scope;
    Entry::count(false);
    return handle<Entry>(real, a...);
  }
};

}  // namespace acs::hooks
