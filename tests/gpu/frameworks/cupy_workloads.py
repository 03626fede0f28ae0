"""CuPy code nobody on this project wrote (its kernels come from NVRTC and reach the driver
through dlsym, as docs/design.md §6 records), run natively and under acs (run_case.sh)."""
from common import cupy_or_skip, digest

cp = cupy_or_skip()

rng = cp.random.default_rng(5)
x = rng.standard_normal((1024, 1024), dtype=cp.float32)
y = rng.standard_normal((1024, 1024), dtype=cp.float32)
outs = []
square_diff = cp.ElementwiseKernel("float32 a, float32 b", "float32 c", "c = (a - b) * (a - b)", "square_diff")
add_scaled = cp.RawKernel(r'''
extern "C" __global__ void add_scaled(float* out, const float* a, const float* b, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + s * b[i];
}''', "add_scaled")
for i in range(10):
    z = x @ y                                  # cuBLAS
    w = square_diff(z, x)                      # elementwise (NVRTC)
    r = cp.sum(w, axis=1)                      # reduction
    f = cp.fft.rfft(x[:, :256], axis=1)        # cuFFT
    out = cp.empty_like(x)
    n = x.size
    add_scaled(((n + 255) // 256,), (256,), (out, x, y, cp.float32(0.5), cp.int32(n)))
    x, y = cp.tanh(out / 32), (y + z / 1024) / 2
    outs += [r, cp.abs(f).astype(cp.float32)]
cp.cuda.Device().synchronize()
digest("cupy.steps", b"".join(cp.asnumpy(o).tobytes() for o in outs))
digest("cupy.final", cp.asnumpy(x).tobytes() + cp.asnumpy(y).tobytes())
