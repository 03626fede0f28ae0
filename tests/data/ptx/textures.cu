extern "C" {
// A texture over linear memory (cudaResourceTypeLinear): the memory behind it is no argument.
__global__ void tex_linear(cudaTextureObject_t tex, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = tex1Dfetch<float>(tex, i);
}
// A texture over a CUDA array, read with filtering coordinates.
__global__ void tex_array(cudaTextureObject_t tex, float* y, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y;
  if (x < w && row < h) y[row * w + x] = tex2D<float>(tex, x + 0.5f, row + 0.5f);
}
// A four-texel gather (tld4).
__global__ void tex_gather(cudaTextureObject_t tex, float4* y, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < w) y[x] = tex2Dgather<float4>(tex, x + 0.5f, 0.5f, 0);
}
// Surfaces: a writer (sust) and a reader (suld) of a CUDA array.
__global__ void surf_writer(cudaSurfaceObject_t surf, const float* in, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < w) surf2Dwrite(in[x], surf, x * 4, blockIdx.y);
}
__global__ void surf_reader(cudaSurfaceObject_t surf, float* out, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < w) out[blockIdx.y * w + x] = surf2Dread<float>(surf, x * 4, blockIdx.y);
}
}
