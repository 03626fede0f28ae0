// The C++ helpers of include/acs/acs.h in a host-only program built against the
// header alone (no link to acs): `program not_loaded` must work with every
// call a no-op; `program loaded`, under LD_PRELOAD of an implementation, must
// reach it. The computed result is the same either way. Exit 0 when it holds.
#include <cstdio>
#include <cstring>
#include <vector>
#if __cplusplus >= 202002L
#include <span>
#endif

#include "acs/acs.h"

namespace {

bool check(const char* what, acs_status got, bool loaded) {
  const bool ok = loaded ? got != ACS_NOT_LOADED : got == ACS_NOT_LOADED;
  std::printf("%s=%d%s\n", what, static_cast<int>(got), ok ? "" : " (unexpected)");
  return ok;
}

void typed_rule(acs::footprint& fp, const float* in, float* out, int n) {
  fp.reads(in, static_cast<std::size_t>(n));
  fp.writes(out, static_cast<std::size_t>(n));
}

}  // namespace

int main(int argc, char** argv) {
  const bool loaded = argc > 1 && std::strcmp(argv[1], "loaded") == 0;
  constexpr int n = 4096;
  std::vector<float> x(n), y(n, 1.0f);
  for (int i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = static_cast<float>(i % 7);
  bool ok = true;
  static const char handle = 0;  // stands for a kernel handle
  ok &= check("register_kernel",
              acs_register_kernel(&handle, &acs::detail::typed_trampoline<const float*, float*, int>,
                                  reinterpret_cast<void*>(&typed_rule), ACS_EXACT),
              loaded);
  {
    const acs::scope task(acs::reads(acs::elements(x.data(), x.size())),
                          acs::writes(acs::elements(y.data(), y.size())));
    ok &= check("scope_begin", task.status(), loaded);
#if __cplusplus >= 202002L
    ok &= check(
        "next_launch",
        acs::next_launch(acs::reads(std::span<const float>(x)), acs::writes(std::span<float>(y)), ACS_EXACT),
        loaded);
#else
    ok &= check("next_launch",
                acs::next_launch(acs::reads(acs::elements(x.data(), x.size())),
                                 acs::writes(acs::elements(y.data(), y.size())), ACS_EXACT),
                loaded);
#endif
    for (int i = 0; i < n; ++i) y[static_cast<std::size_t>(i)] += 3.0f * x[static_cast<std::size_t>(i)];
    ok &= check("barrier", acs::barrier(), loaded);
  }
  ok &= check("unregister_kernel", acs_register_kernel(&handle, nullptr, nullptr, 0), loaded);
  std::printf("active=%d\n", acs_active());
  double sum = 0;
  for (float v : y) sum += v;
  std::printf("result=%.1f\n", sum);
  double expected = n;
  for (int i = 0; i < n; ++i) expected += 3.0 * (i % 7);
  ok &= sum == expected;
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
