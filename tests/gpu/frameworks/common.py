"""Shared by the framework workloads: skip cleanly, print digests that must match bit for bit."""
import hashlib
import sys


def skip(reason):
    print(f"SKIPPED: {reason}")
    sys.exit(77)


def digest(name, data: bytes):
    print(f"{name:<28} sha256={hashlib.sha256(data).hexdigest()[:32]} bytes={len(data)}")
