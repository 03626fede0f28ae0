// Source of the fatbins next to it (tests/unit/test_fatbin.cpp reads them);
// regenerate with ./make_fatbins.sh and nvcc 13.
struct pair_args {
  float* out;
  const float* in;
  int n;
};

__global__ void axpy(const float* x, float* y, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void copy_pair(pair_args p) {
  const int i = threadIdx.x;
  if (i < p.n) p.out[i] = p.in[i];
}

__device__ int counter;

__global__ void count(const float* x, int n) {
  if (threadIdx.x < n && x[threadIdx.x] > 0) atomicAdd(&counter, 1);
}
