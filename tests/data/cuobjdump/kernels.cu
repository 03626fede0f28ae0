__global__ void saxpy(int n, float a, const float* x, float* y) { int i = blockIdx.x*blockDim.x+threadIdx.x; if (i<n) y[i]=a*x[i]+y[i]; }
template <typename T> __global__ void fill(T* p, T v, int n) { int i = threadIdx.x; if (i<n) p[i]=v; }
template __global__ void fill<float>(float*, float, int);
int main() { return 0; }
