// Compiled with --default-stream per-thread: <<<>>> on stream 0 becomes __cudaLaunchKernel_ptsz
// (shared cudart), or a per-thread driver launch (static cudart).
__global__ void add_one_per_thread(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

void launch_on_per_thread_stream(float* x, int n) { add_one_per_thread<<<n / 256, 256>>>(x, n); }
