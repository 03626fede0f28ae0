#pragma once
// The CUDA driver functions acs itself calls, hooks and runtime alike: one table, generated from
// ACS_DRIVER_USED in hooks_table.inc, resolved once. acs never calls CUDA through its own hooks
// (which export dlsym and wrap cuGetProcAddress), nor by name: libacs.so does not link libcuda.
// As nccl's cudawrap does:
//   dlopen("libcuda.so.1", RTLD_NOLOAD)   the application already loaded it;
//   libc's dlsym (src/support/system_library.hpp), never the one libacs exports;
//   cuGetProcAddress_v2(name, version)    the ABI of that version, not the newest.
//
// Usage:
//   const acs::driver::table* cuda = acs::driver::real();
//   if (cuda == nullptr) ...;                  // no usable driver (yet): pass through
//   cuda->cuEventRecord_(event, stream);
//
// Members are named after the function with a trailing underscore and typed by the versioned PFN
// of cudaTypedefs.h (`cuEventDestroy_` is the cuEventDestroy_v2 ABI, version 4000), so cuda.h's
// renaming macros never touch them and every translation unit sees the same struct.
#include <cuda.h>
#include <cudaTypedefs.h>

#include "interpose/hooks_table.inc"
#include "src/support/hot_flags.hpp"

namespace acs::driver {

struct table {
#define ACS_DRIVER_MEMBER(name, version, required) PFN_##name##_v##version name##_ = nullptr;
  ACS_DRIVER_USED(ACS_DRIVER_MEMBER)
#undef ACS_DRIVER_MEMBER
};

const table* real_slow() noexcept;
void resolve_early_slow() noexcept;

/// @brief The real driver functions, or nullptr when libcuda is not loaded (yet) or lacks a
/// required function (then logged once). Thread-safe, one load after success (inline: every
/// launch asks, src/support/hot_flags.hpp).
inline const table* real() noexcept {
  if (const table* t = hot.driver_table.load(std::memory_order_acquire)) [[likely]] return t;
  return real_slow();
}

/// @brief True once resolution failed for good (libcuda loaded but unusable).
inline bool unavailable() noexcept { return hot.driver_failed.load(std::memory_order_relaxed); }

/// @brief After a hooked call succeeded: resolves the table now if it is not yet (one load once
/// it is). Resolving asks the driver for each of acs's 40 functions (cuGetProcAddress); left to
/// the first launch, which a program may time, it cost that launch 15 µs on the fake driver of
/// this project's CPU machine (2-3 µs natively), and cuda-samples' FDTD3d, timed from an event
/// just before its first launch, lost 40 µs under acs on the H200 (x0.95). A successful call
/// means the driver is loaded, typically while the program sets up.
inline void resolve_early() noexcept {
  if (hot.driver_table.load(std::memory_order_acquire) != nullptr || hot.driver_failed.load(std::memory_order_relaxed))
    [[likely]] return;
  resolve_early_slow();
}

/// @brief Tests only: makes real() return `fake` (a simulated driver), or resolve again when nullptr.
void use_for_testing(const table* fake) noexcept;

}  // namespace acs::driver
