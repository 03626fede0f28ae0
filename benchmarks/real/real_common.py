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


def time_interleaved(steps, sync, warmup, rounds, per_round):
    """Times several steps in one process, round-robin: every round runs per_round synchronised
    iterations of each step in turn, so that a slow spell of the machine (a host-bound Python
    row varied 1.5-2x between processes, and over seconds within one) falls on every step alike
    instead of on whichever one ran then. steps: {key: callable}. Returns {key: (median_ms,
    [what it returned at its first and last timed iteration])}, or {key: exception} for a step
    that raised (it is dropped from the later rounds)."""
    live, times, outs, result = dict(steps), {k: [] for k in steps}, {k: [] for k in steps}, {}
    for key, step in list(live.items()):
        try:
            for _ in range(warmup):
                step()
            sync()
        except Exception as e:  # noqa: BLE001 - one step's failure must not hide the others
            result[key] = e
            del live[key]
    for r in range(rounds):
        for key, step in list(live.items()):
            try:
                for i in range(per_round):
                    t0 = time.perf_counter()
                    out = step()
                    sync()
                    times[key].append((time.perf_counter() - t0) * 1e3)
                    if (r, i) in ((0, 0), (rounds - 1, per_round - 1)):
                        outs[key].append(out)
            except Exception as e:  # noqa: BLE001
                result[key] = e
                del live[key]
    for key in live:
        result[key] = (statistics.median(times[key]), outs[key])
    return result


def report(name, suite, ms, sha, **extra):
    fields = " ".join(f"{k}={v}" for k, v in extra.items())
    print(f"real-result: name={name} suite={suite} ms={ms:.4f} sha256={sha} {fields}".rstrip(), flush=True)


def report_error(name, suite, exc):
    msg = f"{type(exc).__name__}: {exc}".replace("\n", " ")[:300]
    traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    print(f"real-result: name={name} suite={suite} error={msg}", flush=True)
