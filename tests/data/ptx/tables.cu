#include <cstdint>
#include <cuda_pipeline.h>
struct Params { const float* in; int n; };
struct __attribute__((packed)) packed_params { char tag; const float* in; };
__device__ const float* g_src;
__constant__ float c_table[16];
extern "C" {
// Reads B through a pointer it loads from a struct in device memory: p->in.
__global__ void read_via_table(const Params* p, float* dst) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p->n) dst[i] = p->in[i];
}
// Writes C through a pointer it loads from a table: tab[0].
__global__ void write_via_table(const std::uint64_t* tab, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) reinterpret_cast<float*>(tab[0])[i] = x[i];
}
// A batched kernel over device-side arrays of pointers, as batched GEMMs take them.
__global__ void batched_axpy(const float* const* xs, float* const* ys, float a, int n) {
  const float* x = xs[blockIdx.y];
  float* y = ys[blockIdx.y];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}
// A gather through indices read from memory: in + idx[i] may point anywhere.
__global__ void gather(const float* in, const int* idx, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[idx[i]];
}
// Reads through a __device__ pointer variable.
__global__ void read_via_device_pointer(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = g_src[i];
}
// An asynchronous copy into shared memory from a pointer loaded from memory.
__global__ void async_copy_via_table(const Params* p, float* out) {
  __shared__ float tile[128];
  __pipeline_memcpy_async(&tile[threadIdx.x], &p->in[threadIdx.x], sizeof(float));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  out[threadIdx.x] = tile[127 - threadIdx.x];
}
// Constant memory indexed by values read from memory: only constant memory is read that way.
__global__ void constant_lookup(const int* idx, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = c_table[idx[i] & 15];
}
// The precise case, for contrast: addresses made of parameters and thread indices only.
__global__ void plain_copy(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
// A pointer stored as two 32-bit halves, put together in registers. (Each of these three reads
// at an offset given as an argument: the address then names a parameter word, the offset's.)
__global__ void read_via_split_pointer(const unsigned* halves, float* out, int n, int off) {
  const float* p = reinterpret_cast<const float*>((static_cast<unsigned long long>(halves[1]) << 32) | halves[0]);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = p[i + off];
}
// A pointer in a packed struct, read byte by byte.
__global__ void read_via_packed_pointer(const packed_params* p, float* out, int n, int off) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = p->in[i + off];
}
// A pointer whose halves pass through shared memory.
__global__ void read_via_shared_halves(const unsigned* halves, float* out, int n, int off) {
  __shared__ unsigned long long slot;
  if (threadIdx.x < 2) reinterpret_cast<unsigned*>(&slot)[threadIdx.x] = halves[threadIdx.x];
  __syncthreads();
  const float* p = reinterpret_cast<const float*>(slot);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = p[i + off];
}
// A gather through 64-bit indices: a 64-bit value read from memory may be a whole pointer.
__global__ void gather64(const float* in, const long long* idx, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[idx[i]];
}
// A sparse product: row offsets and column indices read from memory index x and the values.
__global__ void csr_spmv(const int* rows, const int* cols, const float* vals, const float* x, float* y, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  float acc = 0.0f;
  for (int j = rows[r]; j < rows[r + 1]; ++j) acc += vals[j] * x[cols[j]];
  y[r] = acc;
}
}
