#include "src/support/system_library.hpp"

#include <dlfcn.h>

#include <initializer_list>

namespace acs::system {

dlsym_fn libc_dlsym() noexcept {
  // dlvsym is not hooked; looked up by version, dlsym is libc's, never libacs's own export.
  for (const char* version : {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17"})
    if (void* f = dlvsym(RTLD_NEXT, "dlsym", version)) return reinterpret_cast<dlsym_fn>(f);
  return nullptr;
}

void* function(const char* library, const char* symbol) noexcept {
  void* lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  const dlsym_fn lookup = libc_dlsym();
  void* f = lib != nullptr && lookup != nullptr ? lookup(lib, symbol) : nullptr;
  if (f == nullptr) dlerror();
  return f;
}

}  // namespace acs::system
