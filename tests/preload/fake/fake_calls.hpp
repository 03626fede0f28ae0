#pragma once
// The call log shared by the fake libcuda.so.1 and libcudart.so.13 of the preload tests.
#include <cstddef>

struct fake_call {
  const char* name;  // the exact entry point that ran (cuLaunchKernel_ptsz...)
  void* stream;
  void* function;
  // cuLaunchKernelEx: 1 when an attribute allowed programmatic stream serialization, else 0;
  // -1 for every other call.
  int programmatic = -1;
};

extern "C" {
using fake_call_count_fn = std::size_t (*)();
using fake_call_at_fn = int (*)(std::size_t, fake_call*);
using fake_reset_fn = void (*)();
using fake_self_fn = void* (*)(const char* symbol);
}
