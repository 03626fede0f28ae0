#pragma once
// The dynamic loader as acs uses it: glibc's own dlsym (never the exported hook), the already
// loaded libcuda.so.1, and the runtime's definitions that come after libacs. Nothing here loads a
// library the application has not loaded itself.
#include <atomic>

#include "src/support/system_library.hpp"

namespace acs::real {

using dlsym_fn = system::dlsym_fn;

// glibc's dlsym: dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34"), else the older default versions.
// Called from inside libacs, RTLD_NEXT lookups through it are relative to libacs.
dlsym_fn real_dlsym() noexcept;

// A reference to libcuda.so.1 if the process has loaded it (RTLD_NOLOAD), else nullptr.
// Once found, the reference is kept: the real pointers stay valid even if the application
// dlcloses its own handle.
void* libcuda() noexcept;

// The definition of a runtime symbol of the given symbol version ("libcudart.so.13") that the
// application would have bound to without libacs: the next one after libacs in the global
// scope; failing that (a libcudart that came in through an RTLD_LOCAL dlopen), the one in the
// first loaded libcudart.so* that has it. A runtime of another major version is never used.
void* cudart_symbol(const char* symbol, const char* version) noexcept;

// Clears the thread's dlerror() state after acs's own look-ups, which may fail on purpose
// (variants an older driver lacks); the application must not read acs's errors.
void clear_dlerror() noexcept;

// Publishes a table of real functions resolved by this thread, unless another thread published
// one first (then `fresh` is freed): returns the table everyone uses from now on.
template <class T>
const T* publish(std::atomic<const T*>& slot, T* fresh) noexcept {
  const T* expected = nullptr;
  if (slot.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) return fresh;
  delete fresh;
  return expected;
}

// The table published in `slot`, or, before one is, what `resolve` resolves and publishes.
template <class T>
const T* published_or(const std::atomic<const T*>& slot, const T* (*resolve)() noexcept) noexcept {
  const T* t = slot.load(std::memory_order_acquire);
  return t != nullptr ? t : resolve();
}

}  // namespace acs::real
