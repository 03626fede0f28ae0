"""A Triton kernel (written with triton.language, compiled at run time, launched through
cuLaunchKernelEx from a dlopen'd libcuda), run natively and under acs (run_case.sh)."""
from common import digest, skip

try:
    import torch
    import triton
    import triton.language as tl
except Exception as e:  # noqa: BLE001
    skip(f"Triton not importable ({e.__class__.__name__})")
if not torch.cuda.is_available():
    skip("no CUDA device")


@triton.jit
def axpy(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a * x + y, mask=mask)


torch.manual_seed(6)
n = 1 << 20
x = torch.randn(n, device="cuda")
y = torch.randn(n, device="cuda")
outs = []
for i in range(20):
    out = torch.empty_like(x)
    axpy[(triton.cdiv(n, 1024),)](x, y, out, 0.5 + i, n, BLOCK=1024)
    x, y = y, out.sin()
    outs.append(out)
torch.cuda.synchronize()
digest("triton.steps", b"".join(o.cpu().numpy().tobytes() for o in outs))
