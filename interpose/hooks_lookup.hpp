#pragma once
// Swapping real driver pointers for their wrappers: the part of the driver table that other
// translation units (the runtime hooks, the dlsym hook) need. Mode-neutral: no decltype of
// CUDA symbols here.
namespace acs::hooks {

// The wrapper of the driver variant whose real pointer is `real`, or `real` itself when acs
// does not hook it (then it is returned unchanged). `api` (who handed the pointer out) and
// `symbol` (what the caller asked for) are for diagnostics only and may be null.
void* driver_wrapper_for(void* real, const char* api, const char* symbol) noexcept;

// For dlsym(handle, symbol) that returned `real`: the wrapper of that exact symbol if `real`
// is the libcuda definition of it, else `real`.
void* driver_wrapper_for_symbol(const char* symbol, void* real) noexcept;

}  // namespace acs::hooks
