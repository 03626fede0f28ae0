// dlsym(RTLD_NEXT / RTLD_DEFAULT / handle) must behave exactly as without libacs: glibc resolves
// the special handles relative to the caller, which libacs's dlsym hook must not become.
// Prints each result and exits 1 if any differs from glibc's documented answer; CTest runs it
// with and without the preload.
#include <dlfcn.h>
#include <stdlib.h>

#include <cstdio>
#include <cstring>

extern "C" {
const char* probe_a_next();
const char* probe_b_next();
}

namespace {

int failures = 0;

void expect(const char* what, const char* got, const char* want) {
  const bool ok = std::strcmp(got, want) == 0;
  std::printf("%-44s %-5s %s\n", what, got, ok ? "ok" : "WRONG");
  if (!ok) ++failures;
}

void expect_true(const char* what, bool ok) {
  std::printf("%-44s %s\n", what, ok ? "ok" : "WRONG");
  if (!ok) ++failures;
}

const char* call(void* f) { return f != nullptr ? reinterpret_cast<const char* (*)()>(f)() : "none"; }

}  // namespace

int main() {
  expect("RTLD_NEXT from main", call(dlsym(RTLD_NEXT, "probe_value")), "a");
  expect("RTLD_DEFAULT from main", call(dlsym(RTLD_DEFAULT, "probe_value")), "a");
  expect("RTLD_NEXT from a", probe_a_next(), "b");
  expect("RTLD_NEXT from b", probe_b_next(), "none");

  void* local = dlopen("libprobe_local.so", RTLD_NOW | RTLD_LOCAL);
  expect_true("dlopen(libprobe_local.so, RTLD_LOCAL)", local != nullptr);
  if (local != nullptr) {
    expect("RTLD_DEFAULT from an RTLD_LOCAL library", call(dlsym(local, "probe_local_default")) ,"dep");
    expect("RTLD_NEXT from an RTLD_LOCAL library", call(dlsym(local, "probe_local_next")), "dep");
    expect("RTLD_DEFAULT from main, local-only symbol", call(dlsym(RTLD_DEFAULT, "probe_local_only")), "none");
  }

  void* b = dlopen("libprobe_b.so", RTLD_NOW | RTLD_NOLOAD);
  expect_true("dlopen(libprobe_b.so, RTLD_NOLOAD)", b != nullptr);
  if (b != nullptr) expect("dlsym(handle of b)", call(dlsym(b, "probe_value")), "b");

  (void)dlerror();
  expect_true("dlsym(handle, missing) is NULL", dlsym(b, "probe_missing") == nullptr);
  expect_true("... and sets dlerror", dlerror() != nullptr);
  expect_true("RTLD_NEXT, missing: NULL", dlsym(RTLD_NEXT, "probe_missing") == nullptr);
  expect_true("... and sets dlerror", dlerror() != nullptr);

  void* libc_malloc = dlsym(RTLD_NEXT, "malloc");
  expect_true("RTLD_NEXT malloc == RTLD_DEFAULT malloc", libc_malloc != nullptr && libc_malloc == dlsym(RTLD_DEFAULT, "malloc"));
  void* p = reinterpret_cast<void* (*)(size_t)>(libc_malloc)(16);
  expect_true("that malloc works", p != nullptr);
  free(p);

  std::printf("%d wrong\n", failures);
  return failures == 0 ? 0 : 1;
}
