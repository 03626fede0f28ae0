// Second definition of probe_value. Nothing after b defines it: RTLD_NEXT from here finds
// nothing. (Had libacs been taken for the caller, it would have found a's.)
#include <dlfcn.h>

extern "C" {
const char* probe_value() { return "b"; }
const char* probe_b_next() {
  auto next = reinterpret_cast<const char* (*)()>(dlsym(RTLD_NEXT, "probe_value"));
  return next != nullptr ? next() : "none";
}
}
