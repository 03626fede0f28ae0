// [pdl] Programmatic dependent launch, as XLA issues every kernel: each launch allows
// programmatic stream serialization, and each kernel lets its dependents start early
// (cudaTriggerProgrammaticLaunchCompletion) before it writes, then waits for its own
// prerequisites (cudaGridDependencySynchronize) before it reads. Two chains are interleaved on one
// stream, so each kernel is independent of the one launched before it and depends on the one
// before that. Natively the order is the stream's; under acs with ACS_PDL=reorder the kernels
// move to pool streams without the attribute (interpose/hooks_launch.hpp), ordered by events:
// the checksums must be the native ones.
#include "common.cuh"

namespace {

constexpr int n = 1 << 16;
constexpr int steps = 24;

__global__ void step(const float* in, float* out, int count, int rounds) {
#if __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();  // dependents may start now: they must wait to read
  cudaGridDependencySynchronize();
#endif
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  float v = in[i];
  for (int r = 0; r < rounds; ++r) v = v * 0.999f + 0.5f;  // long enough to overlap a neighbour
  out[i] = v;
}

void launch(cudaStream_t s, const float* in, float* out) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(n / 256);
  config.blockDim = dim3(256);
  config.stream = s;
  config.attrs = &attribute;
  config.numAttrs = 1;
  ACS_CHECK(cudaLaunchKernelEx(&config, step, in, out, n, 2000));
}

}  // namespace

int main() {
  acs_test::require_device();
  int major = 0;
  ACS_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  if (major < 9) {
    std::printf("SKIPPED: programmatic dependent launch needs compute capability 9.0\n");
    return acs_test::skip_code;
  }
  cudaStream_t s = nullptr;
  ACS_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  // Chain c (0 or 1) ping-pongs between buffers[c][0] and buffers[c][1].
  float* buffers[2][2];
  std::vector<float> host(n);
  for (int c = 0; c < 2; ++c) {
    for (int b = 0; b < 2; ++b) ACS_CHECK(cudaMalloc(&buffers[c][b], n * sizeof(float)));
    for (int i = 0; i < n; ++i) host[i] = static_cast<float>((i * (c + 3)) % 97);
    ACS_CHECK(cudaMemcpyAsync(buffers[c][0], host.data(), n * sizeof(float), cudaMemcpyHostToDevice, s));
  }
  for (int k = 0; k < steps; ++k)
    for (int c = 0; c < 2; ++c) launch(s, buffers[c][k % 2], buffers[c][(k + 1) % 2]);
  ACS_CHECK(cudaStreamSynchronize(s));
  for (int c = 0; c < 2; ++c) {
    ACS_CHECK(cudaMemcpy(host.data(), buffers[c][steps % 2], n * sizeof(float), cudaMemcpyDeviceToHost));
    double sum = 0;
    for (float v : host) sum += v;
    std::printf("chain %d: checksum %.6f, element 12345 %.6f\n", c, sum, host[12345]);
  }
  for (auto& chain : buffers)
    for (float* b : chain) ACS_CHECK(cudaFree(b));
  ACS_CHECK(cudaStreamDestroy(s));
  return 0;
}
