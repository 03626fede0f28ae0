// Per-scope annotations: around a library call whose kernels acs cannot see
// into, declare what the whole call reads and writes.
//
// C = A * B, computed as one SGEMM per block of columns: C_k = A * B_k. In
// column-major order each B_k and C_k is contiguous, and all the C_k lie in
// one allocation, so allocation inference would serialize the SGEMMs. Each
// scope declares one SGEMM's inputs and output; every kernel cuBLAS launches
// inside it gets those ranges, and the kernels of one scope keep their order.
// Without ACS_EXACT, acs also adds any other allocation a kernel's arguments
// point into (cuBLAS's workspace): each SGEMM gets a workspace of its own, so
// that they do not share one.
//   ./acs_example_scope_cublas
//   LD_PRELOAD=libacs.so ACS_STATS=1 ./acs_example_scope_cublas
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "acs/acs.h"

#define CHECK(call)                                                           \
  do {                                                                        \
    const cudaError_t e_ = (call);                                            \
    if (e_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                           \
    }                                                                         \
  } while (0)
#define CHECK_BLAS(call)                                                           \
  do {                                                                             \
    const cublasStatus_t s_ = (call);                                              \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                             \
      std::fprintf(stderr, "%s failed: status %d\n", #call, static_cast<int>(s_)); \
      std::exit(1);                                                                \
    }                                                                              \
  } while (0)

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: no CUDA device\n");
    return 77;
  }
  constexpr int m = 1024, k = 1024, blocks = 8, nb = 128, n = blocks * nb;
  constexpr std::size_t workspace_bytes = std::size_t{4} << 20;
  std::vector<float> a(static_cast<std::size_t>(m) * k), b(static_cast<std::size_t>(k) * n);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>((i * 7) % 13) / 13.0f - 0.5f;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>((i * 5) % 11) / 11.0f - 0.5f;

  float *da = nullptr, *db = nullptr, *dc = nullptr;
  CHECK(cudaMalloc(&da, a.size() * sizeof(float)));
  CHECK(cudaMalloc(&db, b.size() * sizeof(float)));
  CHECK(cudaMalloc(&dc, static_cast<std::size_t>(m) * n * sizeof(float)));
  CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  std::vector<void*> workspaces(blocks);
  for (void*& w : workspaces) CHECK(cudaMalloc(&w, workspace_bytes));

  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cublasHandle_t handle;
  CHECK_BLAS(cublasCreate(&handle));
  CHECK_BLAS(cublasSetStream(handle, stream));
  const float one = 1.0f, zero = 0.0f;
  for (int j = 0; j < blocks; ++j) {
    const float* b_j = db + static_cast<std::size_t>(j) * nb * k;
    float* c_j = dc + static_cast<std::size_t>(j) * nb * m;
    CHECK_BLAS(cublasSetWorkspace(handle, workspaces[j], workspace_bytes));
    // The C equivalent: acs_scope_begin(reads, 2, writes, 1, ACS_DEFAULT); ... acs_scope_end();
    const acs::scope sgemm(acs::reads(acs::elements(da, static_cast<std::size_t>(m) * k),
                                      acs::elements(b_j, static_cast<std::size_t>(k) * nb)),
                           acs::writes(acs::elements(c_j, static_cast<std::size_t>(m) * nb)));
    CHECK_BLAS(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, nb, k, &one, da, m, b_j, k, &zero, c_j, m));
  }
  CHECK(cudaStreamSynchronize(stream));

  std::vector<float> c(static_cast<std::size_t>(m) * n);
  CHECK(cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  double sum = 0;
  for (float v : c) sum += v;
  for (int col = 0; col < n; col += 97)
    for (int row = 0; row < m; row += 89) {
      double ref = 0;
      for (int p = 0; p < k; ++p)
        ref += double{a[static_cast<std::size_t>(p) * m + row]} * b[static_cast<std::size_t>(col) * k + p];
      if (std::fabs(ref - c[static_cast<std::size_t>(col) * m + row]) > 1e-3 * (1 + std::fabs(ref))) ++bad;
    }
  std::printf("scope_cublas: %d SGEMMs of %dx%dx%d, sum %.6e, %s\n", blocks, m, nb, k, sum,
              bad == 0 ? "ok" : "WRONG");
  CHECK_BLAS(cublasDestroy(handle));
  CHECK(cudaStreamDestroy(stream));
  for (void* w : workspaces) CHECK(cudaFree(w));
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  return bad == 0 ? 0 : 1;
}
