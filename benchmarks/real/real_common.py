"""Shared by the real-program scripts: timing of steady-state iterations and the result line
that run_real.py reads ('real-result: name=... suite=... ms=... sha256=...')."""
import hashlib
import statistics
import sys
import time
import traceback


def digest(*chunks: bytes) -> str:
    h = hashlib.sha256()
    for c in chunks:
        h.update(c)
    return h.hexdigest()[:32]


def time_iterations(step, sync, warmup, iters):
    """Median ms of one call of step() (synchronised before and after each), after warm-up.
    Returns (median_ms, [what step returned at the first and the last timed iteration])."""
    for _ in range(warmup):
        step()
    sync()
    times, outs = [], []
    for i in range(iters):
        t0 = time.perf_counter()
        out = step()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
        if i in (0, iters - 1):
            outs.append(out)
    return statistics.median(times), outs


def report(name, suite, ms, sha, **extra):
    fields = " ".join(f"{k}={v}" for k, v in extra.items())
    print(f"real-result: name={name} suite={suite} ms={ms:.4f} sha256={sha} {fields}".rstrip(), flush=True)


def report_error(name, suite, exc):
    msg = f"{type(exc).__name__}: {exc}".replace("\n", " ")[:300]
    traceback.print_exc(file=sys.stderr)
    print(f"real-result: name={name} suite={suite} error={msg}", flush=True)
