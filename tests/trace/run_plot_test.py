#!/usr/bin/env python3
"""CTest driver for scripts/plot_trace.py.

Usage: run_plot_test.py PLOT_SCRIPT TRACE.json OUT_DIR

Draws TRACE.json and an empty trace; each must give a PNG of non-trivial
size, and a file that is not a trace must be refused with status 1. Uses the
first Python that has matplotlib (this one, then /usr/bin/python3: CI's
python3-matplotlib belongs to the system Python); if none has it, prints
SKIPPED and exits 77 (CTest SKIP_RETURN_CODE).
"""
import os
import subprocess
import sys

MIN_PNG_BYTES = 10_000
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def python_with_matplotlib():
    for py in (sys.executable, "/usr/bin/python3"):
        if py and os.path.exists(py):
            if subprocess.run([py, "-c", "import matplotlib"], capture_output=True).returncode == 0:
                return py
    return None


def draw(py, script, trace, png):
    if os.path.exists(png):
        os.remove(png)
    r = subprocess.run([py, script, trace, "--output", png], capture_output=True, text=True)
    sys.stdout.write(r.stdout + r.stderr)
    return r.returncode


def check_png(png, minimum):
    if not os.path.exists(png):
        return "%s was not written" % png
    with open(png, "rb") as f:
        head = f.read(8)
    if head != PNG_MAGIC:
        return "%s is not a PNG" % png
    size = os.path.getsize(png)
    if size < minimum:
        return "%s has only %d bytes (expected at least %d)" % (png, size, minimum)
    return None


def main():
    script, trace, out_dir = sys.argv[1:4]
    py = python_with_matplotlib()
    if py is None:
        print("SKIPPED: matplotlib is not installed (apt-get install python3-matplotlib)")
        return 77
    os.makedirs(out_dir, exist_ok=True)
    failures = []

    png = os.path.join(out_dir, "trace_small.png")
    rc = draw(py, script, trace, png)
    problem = "plot_trace.py exited %d on %s" % (rc, trace) if rc else check_png(png, MIN_PNG_BYTES)
    if problem:
        failures.append(problem)

    empty = os.path.join(out_dir, "empty.json")
    with open(empty, "w") as f:
        f.write('{"traceEvents":[],"otherData":{}}')
    empty_png = os.path.join(out_dir, "empty.png")
    rc = draw(py, script, empty, empty_png)
    problem = "plot_trace.py exited %d on an empty trace" % rc if rc else check_png(empty_png, 1000)
    if problem:
        failures.append(problem)

    broken = os.path.join(out_dir, "broken.json")
    with open(broken, "w") as f:
        f.write('{"traceEvents": [')
    rc = draw(py, script, broken, os.path.join(out_dir, "broken.png"))
    if rc != 1:
        failures.append("plot_trace.py exited %d on a broken file, expected 1" % rc)

    for f in failures:
        print("FAIL: " + f)
    if not failures:
        print("PASS: %s drawn (%d bytes)" % (trace, os.path.getsize(png)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
