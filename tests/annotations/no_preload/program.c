/* A host-only program annotated with include/acs/acs.h and built against the
 * header alone (C99, no link to acs). Run as `program not_loaded` it must work
 * with every call returning ACS_NOT_LOADED; run as `program loaded` under
 * LD_PRELOAD of an implementation, every call must reach it. Either way the
 * computed result is the same. Exit status 0 when all of that holds. */
#include <stdio.h>
#include <string.h>

#include "acs/acs.h"

#define N 1024

static int rule_calls;

static void saxpy_rule(acs_footprint* fp, void* const* args, void* user) {
  (void)user;
  ++rule_calls;
  acs_footprint_read(fp, *(const float* const*)args[0], N * sizeof(float));
  acs_footprint_write(fp, *(float* const*)args[1], N * sizeof(float));
}

static int check(const char* what, int got, int loaded) {
  int ok = loaded ? got != ACS_NOT_LOADED : got == ACS_NOT_LOADED;
  printf("%s=%d%s\n", what, got, ok ? "" : " (unexpected)");
  return ok;
}

int main(int argc, char** argv) {
  static float x[N], y[N];
  static const char handle = 0; /* stands for a kernel handle */
  const int loaded = argc > 1 && strcmp(argv[1], "loaded") == 0;
  acs_range in = {x, sizeof x};
  acs_range out = {y, sizeof y};
  int ok = 1;
  double sum = 0;
  int i;

  for (i = 0; i < N; ++i) {
    x[i] = (float)i;
    y[i] = 1.0f;
  }
  ok &= check("register_kernel", acs_register_kernel(&handle, saxpy_rule, NULL, ACS_EXACT), loaded);
  ok &= check("scope_begin", acs_scope_begin(&in, 1, &out, 1, ACS_DEFAULT), loaded);
  ok &= check("barrier", acs_barrier(), loaded);
  ok &= check("next_launch", acs_next_launch(&in, 1, &out, 1, ACS_EXACT), loaded);
  for (i = 0; i < N; ++i) y[i] = 2.0f * x[i] + y[i]; /* "the launch" */
  ok &= check("scope_end", acs_scope_end(), loaded);
  ok &= check("unregister_kernel", acs_register_kernel(&handle, NULL, NULL, 0), loaded);
  printf("active=%d\n", acs_active());

  for (i = 0; i < N; ++i) sum += y[i];
  printf("result=%.1f\n", sum);
  if (sum != 2.0 * (N - 1) * N / 2 + N) ok = 0;
  if (rule_calls != 0) ok = 0; /* nothing launched: the rule never ran */
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
