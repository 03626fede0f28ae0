"""Code unloaded and loaded again between recurring launches (docs/design.md rule 6 and §8.1):
each round compiles a CuPy RawModule of its own (its kernel scales by the round, so each round's
code differs), launches a recurring segment of independent kernels through it several times,
then drops the module (cuModuleUnload). A new module's functions may come back at the old
handles; under graph replay (ACS_GRAPH=auto) an executable built in an earlier round must not be
launched in a later one, or this round's kernels would run the old round's code. Digests must be
identical natively and under acs (run_case.sh)."""
import gc

from common import cupy_or_skip, digest

cp = cupy_or_skip()

CODE = r'''
extern "C" __global__ void scale_add(float* out, const float* a, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] * (s + ROUND) + ROUND;
}'''
n = 1 << 14
buffers = [cp.full(n, float(k + 1), dtype=cp.float32) for k in range(8)]
outs = [cp.empty(n, dtype=cp.float32) for _ in range(8)]
stream = cp.cuda.Stream(non_blocking=True)
results = []
for round_ in range(6):
    module = cp.RawModule(code=CODE, options=(f"-DROUND={round_}",))
    kernel = module.get_function("scale_add")
    with stream:
        for repeat in range(8):  # the same segment each time: 8 independent kernels, then a sync
            for k in range(8):
                kernel(((n + 255) // 256,), (256,), (outs[k], buffers[k], cp.float32(repeat), cp.int32(n)))
            stream.synchronize()
            results.append(cp.asnumpy(cp.stack(outs)).tobytes())
    del kernel, module
    gc.collect()  # the module's destructor unloads it
cp.cuda.Device().synchronize()
digest("cupy_reload.rounds", b"".join(results))
