#pragma once
// The call log shared by the fake libcuda.so.1 and libcudart.so.13 of the preload tests.
#include <cstddef>
#include <cstdint>

struct fake_call {
  const char* name;  // the exact entry point that ran (cuLaunchKernel_ptsz...)
  void* stream;
  void* function;
  // cuLaunchKernelEx: 1 when an attribute allowed programmatic stream serialization, else 0;
  // -1 for every other call.
  int programmatic = -1;
};

// What the fake device records of a kernel it ran (its function and its two 8-byte parameters),
// summed over every kernel run, whatever their order: a launch, or a node of a graph launch with
// the parameters the node was last given (fake_cuda_run_digest). A program that knows what it
// launched computes the same sum and compares.
inline std::uint64_t fake_kernel_digest(const void* function, std::uint64_t a, std::uint64_t b) {
  std::uint64_t h = reinterpret_cast<std::uintptr_t>(function) * 0x9e3779b97f4a7c15ull;
  h = (h ^ a) * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 29) ^ b) * 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

extern "C" {
using fake_call_count_fn = std::size_t (*)();
using fake_call_at_fn = int (*)(std::size_t, fake_call*);
using fake_reset_fn = void (*)();
using fake_self_fn = void* (*)(const char* symbol);
}
