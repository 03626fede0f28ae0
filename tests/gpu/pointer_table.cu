// Memory reached through pointers loaded from memory (docs/design.md rule 9) [pointer_table].
//
//   pointer_table tables [--reps=5] [--min-us=500]
//       A slow producer writes B; read_via_table copies B into dst through p->in (p in device
//       memory); write_via_table writes C through tab[0], slowly; a plain kernel copies C. All on
//       one stream. No argument of the two table kernels shows B or C: only their PTX does.
//   pointer_table gemm_batched [--reps=3] [--min-us=500]
//       cuBLAS batched GEMMs through device-side pointer arrays (cublasSgemmBatched and
//       cublasGemmBatchedEx): a slow kernel writes their input matrices first, a kernel reads
//       their outputs after. cuBLAS's kernels come without PTX: only ACS_NO_PTX=everything (the
//       default) orders them.
//
// Every rep writes its results to buffers of its own; stdout holds their digests, compared bit
// for bit with the native run. A wrong reordering reads stale data and changes them. Matrices
// hold small integers, so every FP32 sum is exact whatever order cuBLAS sums in.
#include <string>
#include <vector>

#include "common.cuh"
#include "cublas_check.cuh"

using std::uint32_t;
using stamp_t = unsigned long long;

namespace {

constexpr int grid = 8, block = 256;

// ---- tables

struct params {
  const uint32_t* in;
  int n;
};

// Lasts min_ns, then writes w[i] = f(i, salt).
__global__ void slow_fill(uint32_t* w, int n, uint32_t salt, stamp_t min_ns) {
  acs_test::spin_for(min_ns);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    w[i] = acs_test::mix32(static_cast<uint32_t>(i) * 0x9e3779b9u + salt);
}

// dst[i] = p->in[i]: reads B through a pointer it loads from memory.
__global__ void read_via_table(const params* p, uint32_t* dst) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < p->n; i += gridDim.x * blockDim.x) dst[i] = p->in[i];
}

// tab[0][i] = f(x[i], salt), after lasting min_ns: writes C through a pointer it loads from memory.
__global__ void write_via_table(const unsigned long long* tab, const uint32_t* x, int n, uint32_t salt,
                                stamp_t min_ns) {
  acs_test::spin_for(min_ns);
  auto* c = reinterpret_cast<uint32_t*>(tab[0]);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    c[i] = acs_test::mix32(x[i] ^ salt);
}

__global__ void copy_words(uint32_t* out, const uint32_t* in, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = in[i];
}

template <class T>
T* device_alloc(std::size_t count) {
  void* p = nullptr;
  ACS_CHECK(cudaMalloc(&p, count * sizeof(T)));
  ACS_CHECK(cudaMemset(p, 0, count * sizeof(T)));
  return static_cast<T*>(p);
}

void tables(int reps, stamp_t min_ns, cudaStream_t s) {
  constexpr int n = 1 << 16;
  uint32_t* b = device_alloc<uint32_t>(n);
  uint32_t* c = device_alloc<uint32_t>(n);
  uint32_t* x = device_alloc<uint32_t>(n);
  params* p = device_alloc<params>(1);
  auto* tab = device_alloc<unsigned long long>(1);
  const params hp{b, n};
  const auto hc = static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(c));
  ACS_CHECK(cudaMemcpy(p, &hp, sizeof hp, cudaMemcpyHostToDevice));
  ACS_CHECK(cudaMemcpy(tab, &hc, sizeof hc, cudaMemcpyHostToDevice));
  std::vector<uint32_t*> dst, copies;
  for (int r = 0; r < reps; ++r) {
    dst.push_back(device_alloc<uint32_t>(n));
    copies.push_back(device_alloc<uint32_t>(n));
  }
  slow_fill<<<grid, block, 0, s>>>(x, n, 7u, 0);
  ACS_CHECK(cudaDeviceSynchronize());
  std::printf("tables reps=%d n=%d\n", reps, n);
  for (int r = 0; r < reps; ++r) {
    const auto salt = 1000u * static_cast<uint32_t>(r + 1);
    slow_fill<<<grid, block, 0, s>>>(b, n, salt, min_ns);
    read_via_table<<<grid, block, 0, s>>>(p, dst[r]);  // must see this rep's B
    write_via_table<<<grid, block, 0, s>>>(tab, x, n, salt + 1, min_ns);
    copy_words<<<grid, block, 0, s>>>(copies[r], c, n);  // must see this rep's C
    ACS_CHECK(cudaGetLastError());
  }
  ACS_CHECK(cudaStreamSynchronize(s));
  for (int r = 0; r < reps; ++r) {
    acs_test::print_device_words(("dst" + std::to_string(r)).c_str(), dst[r], n);
    acs_test::print_device_words(("copy_c" + std::to_string(r)).c_str(), copies[r], n);
  }
}

// ---- batched GEMMs

constexpr int dim = 256, batch = 8;

struct matrices {
  float* m[batch];  // by value: argument inference sees every matrix
};

// Lasts min_ns, then fills every matrix with small integers in [-4, 4].
__global__ void slow_fill_matrices(matrices a, uint32_t salt, stamp_t min_ns) {
  acs_test::spin_for(min_ns);
  const int count = dim * dim;
  for (int k = 0; k < batch; ++k)
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
      a.m[k][i] = static_cast<float>(static_cast<int>(acs_test::mix32(static_cast<uint32_t>(k * count + i) ^ salt) % 9u) - 4);
}

// out[k][i] = small integer derived from in[k][i] (a product, exact) and a salt.
__global__ void requantize_matrices(matrices out, matrices in, uint32_t salt) {
  const int count = dim * dim;
  for (int k = 0; k < batch; ++k)
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
      const auto v = static_cast<uint32_t>(static_cast<int>(in.m[k][i]));
      out.m[k][i] = static_cast<float>(static_cast<int>(acs_test::mix32(v ^ salt) % 9u) - 4);
    }
}

matrices new_matrices() {
  matrices m{};
  for (float*& p : m.m) p = device_alloc<float>(static_cast<std::size_t>(dim) * dim);  // one allocation each
  return m;
}

// The device-side array of the batch's pointers, as cuBLAS takes it.
float** pointer_array(const matrices& m) {
  auto** p = device_alloc<float*>(batch);
  ACS_CHECK(cudaMemcpy(p, m.m, sizeof m.m, cudaMemcpyHostToDevice));
  return p;
}

void gemm_batched(int reps, stamp_t min_ns, cudaStream_t s) {
  cublasHandle_t h = nullptr;
  CUBLAS_CHECK(cublasCreate(&h));
  CUBLAS_CHECK(cublasSetStream(h, s));
  const matrices a = new_matrices(), b = new_matrices(), c = new_matrices(), e = new_matrices();
  float** a_array = pointer_array(a);
  float** b_array = pointer_array(b);
  float** c_array = pointer_array(c);
  float** e_array = pointer_array(e);
  std::vector<matrices> d, f;
  for (int r = 0; r < reps; ++r) {
    d.push_back(new_matrices());
    f.push_back(new_matrices());
  }
  slow_fill_matrices<<<grid, block, 0, s>>>(b, 5u, 0);
  ACS_CHECK(cudaDeviceSynchronize());
  const float one = 1.0f, zero = 0.0f;
  std::printf("gemm_batched reps=%d dim=%d batch=%d\n", reps, dim, batch);
  for (int r = 0; r < reps; ++r) {
    const auto salt = 100u * static_cast<uint32_t>(r + 1);
    slow_fill_matrices<<<grid, block, 0, s>>>(a, salt, min_ns);  // the GEMMs' inputs
    ACS_CHECK(cudaGetLastError());
    CUBLAS_CHECK(cublasSgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, dim, dim, dim, &one, a_array, dim, b_array, dim,
                                    &zero, c_array, dim, batch));
    requantize_matrices<<<grid, block, 0, s>>>(d[r], c, salt + 1);  // reads the GEMM's outputs
    ACS_CHECK(cudaGetLastError());
    CUBLAS_CHECK(cublasGemmBatchedEx(h, CUBLAS_OP_T, CUBLAS_OP_N, dim, dim, dim, &one,
                                     reinterpret_cast<const void* const*>(c_array), CUDA_R_32F, dim,
                                     reinterpret_cast<const void* const*>(a_array), CUDA_R_32F, dim, &zero,
                                     reinterpret_cast<void* const*>(e_array), CUDA_R_32F, dim, batch,
                                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    requantize_matrices<<<grid, block, 0, s>>>(f[r], e, salt + 2);
    ACS_CHECK(cudaGetLastError());
  }
  ACS_CHECK(cudaStreamSynchronize(s));
  const std::size_t words = static_cast<std::size_t>(dim) * dim;
  for (int r = 0; r < reps; ++r)
    for (int k = 0; k < batch; ++k) {
      acs_test::print_device_words(("d" + std::to_string(r) + "." + std::to_string(k)).c_str(), d[r].m[k], words);
      acs_test::print_device_words(("f" + std::to_string(r) + "." + std::to_string(k)).c_str(), f[r].m[k], words);
    }
  CUBLAS_CHECK(cublasDestroy(h));
}

}  // namespace

int main(int argc, char** argv) {
  acs_test::require_device();
  const std::string scenario = argc > 1 ? argv[1] : "";
  const auto min_ns = static_cast<stamp_t>(acs_test::arg_long(argc, argv, "--min-us", 500)) * 1000;
  cudaStream_t s = nullptr;
  ACS_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  if (scenario == "tables") {
    tables(static_cast<int>(acs_test::arg_long(argc, argv, "--reps", 5)), min_ns, s);
  } else if (scenario == "gemm_batched") {
    gemm_batched(static_cast<int>(acs_test::arg_long(argc, argv, "--reps", 3)), min_ns, s);
  } else {
    std::fprintf(stderr, "FAILED: unknown scenario '%s'\n", scenario.c_str());
    return 2;
  }
  std::printf("last-error: %s\n", cudaGetErrorName(cudaGetLastError()));
  return 0;
}
