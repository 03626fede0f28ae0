"""Shared by the framework workloads: skip cleanly, print digests that must match bit for bit."""
import hashlib
import sys


def skip(reason):
    print(f"SKIPPED: {reason}")
    sys.exit(77)


def digest(name, data: bytes):
    print(f"{name:<28} sha256={hashlib.sha256(data).hexdigest()[:32]} bytes={len(data)}")


def cupy_or_skip():
    """CuPy, with a CUDA device to run on; else a clean skip (exit 77)."""
    try:
        import cupy as cp
    except Exception as e:  # noqa: BLE001
        skip(f"CuPy not importable ({e.__class__.__name__})")
    try:
        if cp.cuda.runtime.getDeviceCount() == 0:
            skip("no CUDA device")
    except Exception:  # noqa: BLE001
        skip("no CUDA device")
    return cp
