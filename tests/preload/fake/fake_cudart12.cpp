// A fake CUDA 12 runtime: one entry point, under libcudart.so.12's symbol version. The runtime
// hooks of libacs (compiled for CUDA 13) must not take calls made against it.
#include <cstddef>

extern "C" {
int fake_cudart12_calls = 0;
int cudaMemcpyAsync(void*, const void*, std::size_t, int, void*) {
  ++fake_cudart12_calls;
  return 0;
}
}
