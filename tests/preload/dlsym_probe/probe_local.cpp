// Opened by main with dlopen(RTLD_LOCAL). Its own dependency is in its scope, not the global one:
// RTLD_DEFAULT and RTLD_NEXT from here must find it, from main they must not.
#include <dlfcn.h>

extern "C" {
const char* probe_local_only();
const char* probe_local_keep() { return probe_local_only(); }  // a real DT_NEEDED use
const char* probe_local_default() {
  auto f = reinterpret_cast<const char* (*)()>(dlsym(RTLD_DEFAULT, "probe_local_only"));
  return f != nullptr ? f() : "none";
}
const char* probe_local_next() {
  auto f = reinterpret_cast<const char* (*)()>(dlsym(RTLD_NEXT, "probe_local_only"));
  return f != nullptr ? f() : "none";
}
}
