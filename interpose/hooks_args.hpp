#pragma once
// Finding a hook's arguments by type, for the handlers of hooks_handlers.hpp: the stream is the
// one CUstream parameter (cudaStream_t is the same type), a capture mode is the one capture-mode
// enum, an allocation size is the first integer after the address. Also the driver queries the
// handlers need (hooks_support.cpp).
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>

#include "interpose/hooks_cuda.hpp"
#include "src/runtime/dispatch.hpp"

namespace acs::hooks {

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

template <std::size_t I, class... A>
using arg_t = std::tuple_element_t<I, std::tuple<A...>>;

template <class T>
inline constexpr bool is_capture_mode_v =
    std::is_same_v<T, CUstreamCaptureMode> || std::is_same_v<T, cudaStreamCaptureMode>;

template <class... A>
constexpr std::size_t capture_mode_index() noexcept {
  std::size_t i = 0;
  (void)((is_capture_mode_v<A> ? false : (++i, true)) && ...);
  return i;
}

// The one stream parameter, or nullptr for an entry point that takes none.
template <class... A>
CUstream stream_arg(A&... a) noexcept {
  if constexpr (count_of<CUstream, A...> == 0) {
    return nullptr;
  } else {
    return arg<index_of<CUstream, A...>()>(a...);
  }
}

// The one context parameter; `fallback` for an entry point that takes none.
template <class... A>
CUcontext context_arg(CUcontext fallback, A&... a) noexcept {
  if constexpr (count_of<CUcontext, A...> == 0) {
    return fallback;
  } else {
    return arg<index_of<CUcontext, A...>()>(a...);
  }
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

}  // namespace acs::hooks
