#include "interpose/real_dl.hpp"

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstring>

#include "src/support/system_library.hpp"

// Read by the dlsym trampoline (hooks_dlsym.cpp) on every RTLD_NEXT / RTLD_DEFAULT call: a
// plain pointer-sized load there.
extern "C" {
[[gnu::visibility("hidden")]] constinit std::atomic<acs::real::dlsym_fn> dlsym_hook_real{nullptr};
}
static_assert(sizeof(std::atomic<acs::real::dlsym_fn>) == sizeof(void*) &&
              std::atomic<acs::real::dlsym_fn>::is_always_lock_free);

namespace acs::real {
namespace {

void* no_dlsym(void*, const char*) { return nullptr; }

constinit std::atomic<void*> cuda_handle{nullptr};
constinit std::atomic<void*> cudart_handle{nullptr};

struct cudart_search {
  const char* version;  // the symbol version the library must define
  void* handle = nullptr;
};

// dl_iterate_phdr callback: the first loaded libcudart.so* that defines `version` symbols.
int find_cudart(dl_phdr_info* info, std::size_t, void* data) {
  auto* search = static_cast<cudart_search*>(data);
  const char* path = info->dlpi_name;
  if (path == nullptr || *path == '\0') return 0;
  const char* base = std::strrchr(path, '/');
  base = base != nullptr ? base + 1 : path;
  if (std::strncmp(base, "libcudart.so", 12) != 0) return 0;
  void* handle = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return 0;
  if (dlvsym(handle, "cudaRuntimeGetVersion", search->version) == nullptr) {
    dlclose(handle);
    return 0;
  }
  search->handle = handle;
  return 1;
}

void* loaded_cudart(const char* version) noexcept {
  void* handle = cudart_handle.load(std::memory_order_acquire);
  if (handle != nullptr) return handle;
  cudart_search search{version};
  dl_iterate_phdr(find_cudart, &search);
  handle = search.handle;
  if (handle == nullptr) return nullptr;
  void* expected = nullptr;
  if (!cudart_handle.compare_exchange_strong(expected, handle, std::memory_order_acq_rel)) {
    dlclose(handle);  // another thread won; it holds the same object
    return expected;
  }
  return handle;
}

}  // namespace

dlsym_fn real_dlsym() noexcept {
  dlsym_fn fn = dlsym_hook_real.load(std::memory_order_acquire);
  if (fn != nullptr) return fn;
  fn = system::libc_dlsym();
  if (fn == nullptr) fn = no_dlsym;  // not glibc: every look-up fails rather than recursing
  dlsym_hook_real.store(fn, std::memory_order_release);
  return fn;
}

void* libcuda() noexcept {
  void* handle = cuda_handle.load(std::memory_order_acquire);
  if (handle != nullptr) return handle;
  handle = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
  if (handle == nullptr) {
    clear_dlerror();
    return nullptr;
  }
  void* expected = nullptr;
  if (!cuda_handle.compare_exchange_strong(expected, handle, std::memory_order_acq_rel)) {
    dlclose(handle);
    return expected;
  }
  return handle;
}

void* cudart_symbol(const char* symbol, const char* version) noexcept {
  // dlvsym is not hooked; RTLD_NEXT from here starts after libacs.
  void* fn = dlvsym(RTLD_NEXT, symbol, version);
  if (fn == nullptr) {
    if (void* handle = loaded_cudart(version); handle != nullptr) fn = dlvsym(handle, symbol, version);
  }
  return fn;
}

void clear_dlerror() noexcept { (void)dlerror(); }

}  // namespace acs::real

// The trampoline's slow path, the first time it runs.
extern "C" [[gnu::visibility("hidden")]] acs::real::dlsym_fn dlsym_hook_resolve_real() noexcept {
  return acs::real::real_dlsym();
}
