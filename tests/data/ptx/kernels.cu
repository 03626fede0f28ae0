#include <cassert>
#include <cstdio>
#include <cstdint>
#include <cuda_pipeline.h>
struct args { float* out; const float* in; int n; };
struct table { float* ptrs[4]; unsigned char which[32]; };
struct big_table { float* ptrs[8]; int sizes[8]; unsigned char which[64]; };
__device__ float g_out[16];
__device__ const args* volatile g_sink;
__device__ __noinline__ void store_it(float* p, float v) { p[threadIdx.x] = v; }
extern "C" {
__global__ void axpy(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void by_struct(args a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < a.n) a.out[i] = 2.0f * a.in[i];
}
__global__ void choose(float* a, float* b, const float* c, int sel) {
  float* p = sel ? a : b;
  p[threadIdx.x + 3] = c[threadIdx.x];
}
__global__ void int_as_pointer(const float* in, unsigned long long out_bits, int n) {
  float* out = reinterpret_cast<float*>(out_bits) + 4;
  int i = threadIdx.x;
  if (i < n) out[i] = in[i];
}
__global__ void atomics(int* counter, const int* in) { atomicAdd(counter, in[threadIdx.x]); }
__global__ void via_shared(float* p, const float* q) {
  __shared__ float* sp[32];
  sp[threadIdx.x] = p;
  __syncthreads();
  if (q[threadIdx.x] > 0.0f) sp[(threadIdx.x + 1) % 32][threadIdx.x] = 1.0f;
}
__global__ void scatter(float* out, const long long* idx, const float* in) {
  out[idx[threadIdx.x]] = in[threadIdx.x];  // the index read from memory could reach any allocation
}
__global__ void through_memory(float** tbl, const float* in) { tbl[1][threadIdx.x] = in[threadIdx.x]; }
__global__ void asm_store(float* p, const float* q) {
  float v = q[threadIdx.x];
  asm volatile("{ .reg .u64 t; add.u64 t, %0, 4; st.global.f32 [t], %1; }" ::"l"(p), "f"(v) : "memory");
}
__global__ void write_global(const float* q) { g_out[threadIdx.x] = q[threadIdx.x]; }
__global__ void calls(float* p, const float* q) { store_it(p, q[threadIdx.x]); }
__global__ void dynamic_index(table t, const float* q) {
  float* p = t.ptrs[t.which[blockIdx.x] & 3];
  p[threadIdx.x] = q[threadIdx.x];
}
__global__ void param_address(big_table t, const float* q) {
  float* p = t.ptrs[t.which[blockIdx.x]];
  p[threadIdx.x] = q[threadIdx.x];
}
__global__ void grid_constant(const __grid_constant__ args a, float* out) {
  g_sink = &a;  // the parameter's address escapes
  out[threadIdx.x] = a.in[threadIdx.x];
}
__global__ void textures(cudaTextureObject_t tex, cudaSurfaceObject_t surf, float* out) {
  float v = tex1Dfetch<float>(tex, threadIdx.x);
  surf1Dwrite(v, surf, threadIdx.x * 4);
  out[threadIdx.x] = v;
}
__global__ void async_copy(const float* in, float* out) {
  __shared__ float tile[128];
  __pipeline_memcpy_async(&tile[threadIdx.x], &in[threadIdx.x], sizeof(float));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  out[threadIdx.x] = tile[127 - threadIdx.x];
}
__global__ void rotate(float* out, const float* in, int n) {
  __shared__ float s1[64], s2[64];
  float* a = s1;
  float* b = s2;
  float* c = out;
  for (int i = 0; i < n; ++i) {
    a[threadIdx.x] = in[i];
    float* t = a;
    a = b;
    b = c;
    c = t;
  }
}
__global__ void prints_value(const float* q) { printf("%f\n", q[threadIdx.x]); }
__global__ void prints_pointer(float* p, const float* q) { printf("%p %f\n", p, q[0]); }
__global__ void asserts(const float* in, float* out, int n) {
  assert(n > 0 && in != out);
  out[threadIdx.x] = in[threadIdx.x];
}
}
template <class T> __global__ void scale(const T* in, T* out, T s) { out[threadIdx.x] = s * in[threadIdx.x]; }
template __global__ void scale<float>(const float*, float*, float);
template __global__ void scale<double>(const double*, double*, double);
