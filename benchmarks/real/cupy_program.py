#!/usr/bin/env python3
"""CuPy program for the real-program benchmark: a reaction-diffusion solver as CuPy users
write it, with plain array expressions (each one an elementwise kernel CuPy generates and
compiles with NVRTC), a cuFFT spectral filter and cuBLAS projections.

Eight independent Gray-Scott fields of 128x128, each step: a 5-point Laplacian from shifted
slices and the reaction update for each field (about a dozen small kernels per field), every
10th step a low-pass filter through rfft2/irfft2 and a 128x128 matrix projection, and a sum
read back to the host (the host sync a simulation loop does to log or check). The fields do
not depend on each other: that is the parallelism acs could find. No atomics: the digest of
the final fields must be the same natively and under acs.

Each iteration is 10 steps; median ms after warm-up. --numpy runs the same code on NumPy
(to test the script without a GPU; the digest then differs from CuPy's).

  cupy_program.py [--numpy] [--quick] [--fields 8] [--size 128] [--iters N]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from real_common import digest, report, report_error, time_iterations  # noqa: E402


def laplacian(xp, u):
    lap = -4.0 * u
    lap = lap + xp.roll(u, 1, 0) + xp.roll(u, -1, 0)
    return lap + xp.roll(u, 1, 1) + xp.roll(u, -1, 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--numpy", action="store_true", help="NumPy instead of CuPy (no GPU needed)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--fields", type=int, default=8)
    ap.add_argument("--size", type=int, default=128)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    args = ap.parse_args()
    if args.quick:
        args.iters, args.warmup = 2, 1
    name = "cupy-grayscott"
    try:
        if args.numpy:
            import numpy as xp
            sync = lambda: None  # noqa: E731
        else:
            import cupy as xp
            sync = xp.cuda.get_current_stream().synchronize
        import numpy as np
        n, f = args.size, args.fields
        rng = np.random.default_rng(0)
        us, vs = [], []
        for _ in range(f):
            u = np.ones((n, n), np.float32)
            v = np.zeros((n, n), np.float32)
            c = slice(n // 2 - 8, n // 2 + 8)
            u[c, c], v[c, c] = 0.5, 0.25
            v += 0.05 * rng.random((n, n), dtype=np.float32)
            us.append(xp.asarray(u))
            vs.append(xp.asarray(v))
        feed = [xp.float32(0.030 + 0.002 * i) for i in range(f)]
        kill = [xp.float32(0.060 + 0.001 * i) for i in range(f)]
        ky = np.fft.fftfreq(n)[:, None]
        kx = np.fft.rfftfreq(n)[None, :]
        lowpass = xp.asarray(np.exp(-((kx ** 2 + ky ** 2) * 40.0)).astype(np.complex64))
        proj = xp.asarray((np.eye(n) + 0.01 * rng.standard_normal((n, n))).astype(np.float32))
        sums = []

        def iteration():
            for step in range(10):
                for i in range(f):
                    u, v = us[i], vs[i]
                    uvv = u * v * v
                    us[i] = u + (0.16 * laplacian(xp, u) - uvv + feed[i] * (1.0 - u))
                    vs[i] = v + (0.08 * laplacian(xp, v) + uvv - (feed[i] + kill[i]) * v)
            total = 0.0
            for i in range(f):
                smooth = xp.fft.irfft2(xp.fft.rfft2(vs[i]) * lowpass, s=(n, n)).astype(xp.float32)
                vs[i] = xp.clip(0.05 * (smooth @ proj) + 0.95 * vs[i], 0.0, 1.0)
                total += float(vs[i].sum())  # host sync, as a loop that logs its state does
            sums.append(total)

        ms, _ = time_iterations(iteration, sync, args.warmup, args.iters)
        host = [np.asarray(a.get() if hasattr(a, "get") else a) for a in us + vs]
        report(name + ("-numpy" if args.numpy else ""), "cupy", ms,
               digest(*(a.tobytes() for a in host), np.array(sums).tobytes()),
               fields=f, size=n, v_mean=f"{float(np.mean([a.mean() for a in host[f:]])):.6f}")
        return 0
    except Exception as e:  # noqa: BLE001
        report_error(name, "cupy", e)
        return 1


if __name__ == "__main__":
    sys.exit(main())
