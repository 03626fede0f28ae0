#pragma once
// Re-entry guard: a launch or barrier is handled by the outermost hook only.
//
// While a hook runs (classifying a call, inside acs::dispatch_launch, while its closure re-issues
// the launch through the real runtime), every hook reached on the same thread forwards straight to
// the real function. That covers the real cudart calling the driver through the pointers
// cuGetProcAddress gave it (our wrappers), and any CUDA call acs makes by mistake through a hook
// instead of the real-function table. Pointer substitution (dlsym, cuGetProcAddress) is not
// affected: a pointer handed out while nested is cached by its caller forever.
namespace acs::hooks {

// initial-exec: one static TLS slot, no __tls_get_addr call on the launch path. Fine for a
// preloaded library; a dlopen()ed libacs.so takes it from glibc's static TLS reserve.
extern constinit thread_local int hook_depth [[gnu::tls_model("initial-exec")]];

inline bool nested() noexcept { return hook_depth != 0; }

class hook_scope {
 public:
  hook_scope() noexcept { ++hook_depth; }
  ~hook_scope() { --hook_depth; }
  hook_scope(const hook_scope&) = delete;
  hook_scope& operator=(const hook_scope&) = delete;
};

}  // namespace acs::hooks
