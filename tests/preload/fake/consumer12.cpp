// A library built against the CUDA 12 runtime (the fake one): its reference to cudaMemcpyAsync
// asks for version libcudart.so.12.
#include <cstddef>

extern "C" {
int cudaMemcpyAsync(void*, const void*, std::size_t, int, void*);
int consumer12_copy() { return cudaMemcpyAsync(nullptr, nullptr, 8, 3, nullptr); }
}
