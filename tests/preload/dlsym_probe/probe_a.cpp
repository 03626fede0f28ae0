// First of two libraries that define probe_value; main links a before b.
#include <dlfcn.h>

extern "C" {
const char* probe_value() { return "a"; }
// glibc: the next definition after this library, i.e. b's.
const char* probe_a_next() {
  auto next = reinterpret_cast<const char* (*)()>(dlsym(RTLD_NEXT, "probe_value"));
  return next != nullptr ? next() : "none";
}
}
