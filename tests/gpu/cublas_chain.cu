// cuBLAS GEMMs chained with custom kernels on one stream. cuBLAS embeds its
// own static cudart and launches through the driver (cuGetProcAddress), so
// acs sees its kernels only at the driver level.
//
// Matrices hold small integers, so every FP32 sum is exact and the result is
// the same whatever reduction order cuBLAS picks (split-K included). Custom
// kernels turn each product back into small integers through a hash of the
// values: any reordering of a GEMM against its neighbours changes the output.
#include <vector>

#include "common.cuh"
#include "cublas_check.cuh"

using std::uint32_t;

namespace {

constexpr int dim = 1024;  // square matrices, column-major
constexpr int batch = 8, bdim = 128;

// out[i] = small integer in [-4, 4] derived from in[i], in[j] and a salt;
// `iters` rounds of hashing make the kernel last.
__global__ void requantize(float* out, const float* in, int n, uint32_t salt, int iters) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const auto u = static_cast<uint32_t>(i);
    const auto v = static_cast<uint32_t>(static_cast<int>(in[i]));
    const auto w = static_cast<uint32_t>(static_cast<int>(in[(u * 2654435761u) % static_cast<uint32_t>(n)]));
    const uint32_t h = acs_test::churn(acs_test::mix32(v ^ salt) + w, iters);
    out[i] = static_cast<float>(static_cast<int>(h % 9u) - 4);
  }
}

float* device_floats(size_t n) {
  void* p = nullptr;
  ACS_CHECK(cudaMalloc(&p, n * sizeof(float)));
  ACS_CHECK(cudaMemset(p, 0, n * sizeof(float)));
  ACS_CHECK(cudaDeviceSynchronize());  // the memset is asynchronous, on another stream
  return static_cast<float*>(p);
}

void print_floats(const char* name, const float* dev, size_t n) {
  static_assert(sizeof(float) == sizeof(uint32_t));
  acs_test::print_device_words(name, dev, n);
}

}  // namespace

int main() {
  acs_test::require_device();
  cudaStream_t s = nullptr;
  ACS_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cublasHandle_t h = nullptr;
  CUBLAS_CHECK(cublasCreate(&h));
  CUBLAS_CHECK(cublasSetStream(h, s));

  const size_t nn = static_cast<size_t>(dim) * dim;
  const size_t nb = static_cast<size_t>(batch) * bdim * bdim;
  float *a = device_floats(nn), *b = device_floats(nn), *c = device_floats(nn), *d = device_floats(nn);
  float *e = device_floats(nb), *f = device_floats(nb), *g = device_floats(nb);
  const int grid = 16, block = 256, n = static_cast<int>(nn), m = static_cast<int>(nb);
  const float one = 1.0f, zero = 0.0f;

  requantize<<<grid, block, 0, s>>>(a, d, n, 1, 50);  // d is zero: a, b become seeded small integers
  requantize<<<grid, block, 0, s>>>(b, d, n, 2, 50);
  ACS_CHECK(cudaGetLastError());
  for (int r = 0; r < 5; ++r) {
    const auto salt = 100u * static_cast<uint32_t>(r);
    CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, dim, dim, dim, &one, a, dim, b, dim, &zero, c, dim));
    requantize<<<grid, block, 0, s>>>(a, c, n, salt + 1, 200);  // overwrites an input of the GEMM
    requantize<<<grid, block, 0, s>>>(b, c, n, salt + 2, 20);
    CUBLAS_CHECK(cublasSgeam(h, CUBLAS_OP_N, CUBLAS_OP_T, dim, dim, &one, a, dim, &one, b, dim, d, dim));
    requantize<<<grid, block, 0, s>>>(a, d, n, salt + 3, 100);
    ACS_CHECK(cudaGetLastError());
    // Batched GEMM: pointers derived from one base inside cuBLAS.
    requantize<<<grid, block, 0, s>>>(e, a, m, salt + 4, 100);
    requantize<<<grid, block, 0, s>>>(f, b, m, salt + 5, 10);
    CUBLAS_CHECK(cublasSgemmStridedBatched(
        h, CUBLAS_OP_N, CUBLAS_OP_T, bdim, bdim, bdim, &one, e, bdim, static_cast<long long>(bdim) * bdim, f,
        bdim, static_cast<long long>(bdim) * bdim, &zero, g, bdim, static_cast<long long>(bdim) * bdim, batch));
    requantize<<<grid, block, 0, s>>>(b, g, m, salt + 6, 10);  // b's first part from the batched result
    ACS_CHECK(cudaGetLastError());
  }
  ACS_CHECK(cudaStreamSynchronize(s));
  std::printf("cublas chain dim=%d batch=%dx%d\n", dim, batch, bdim);
  print_floats("a", a, nn);
  print_floats("b", b, nn);
  print_floats("c", c, nn);
  print_floats("d", d, nn);
  print_floats("g", g, nb);
  CUBLAS_CHECK(cublasDestroy(h));
  std::printf("last-error: %s\n", cudaGetErrorName(cudaGetLastError()));
  return 0;
}
