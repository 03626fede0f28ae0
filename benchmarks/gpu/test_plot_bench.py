#!/usr/bin/env python3
"""scripts/plot_bench.py without a GPU: a bench.csv written by hand (two short-kernel
configurations run under ACS_GRAPH=auto, one without) must give summary.md, and a
short_kernels.csv with exactly the rows and times of the configurations that ran with graph
replay (issue 16's columns). Exit 0 on success, 1 with the reasons."""
import csv
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PLOT = os.path.join(HERE, "..", "..", "scripts", "plot_bench.py")
FIELDS = ["config", "mode", "variant", "median_ms", "check", "checksum", "kernels", "kernel_us", "instantiate_us"]


def row(config, mode, variant, ms):
    return {"config": config, "mode": mode, "variant": variant, "median_ms": str(ms), "check": "ok",
            "checksum": "abc", "kernels": "2000", "kernel_us": "3", "instantiate_us": "900"}


def main():
    rows = []
    for config, (serial, graph, nograph, acs) in {"synth-random-short": (10.0, 1.25, 8.0, 2.5),
                                                  "synth-wide-short": (10.0, 0.5, 5.0, 1.0)}.items():
        rows += [row(config, "plain", "serial", serial), row(config, "plain", "graph", graph),
                 row(config, "acs_infer", "serial", nograph), row(config, "acs_graph", "serial", acs)]
    rows += [row("synth-random-long", "plain", "serial", 50.0), row("synth-random-long", "acs_infer", "serial", 20.0)]
    problems = []
    with tempfile.TemporaryDirectory() as out:
        path = os.path.join(out, "bench.csv")
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS)
            w.writeheader()
            w.writerows(rows)
        r = subprocess.run([sys.executable, PLOT, "--csv", path, "--out", out], capture_output=True, text=True)
        if r.returncode != 0:
            problems.append(f"plot_bench.py exited {r.returncode}: {r.stderr.strip()[-400:]}")
        short = os.path.join(out, "short_kernels.csv")
        if not os.path.exists(short):
            problems.append("short_kernels.csv was not written")
        else:
            with open(short, newline="") as f:
                got = list(csv.reader(f))
            want = [["workload", "serial_ms", "graph_ms", "acs_nograph_ms", "acs_ms"],
                    ["synth-random-short", "10.0000", "1.2500", "8.0000", "2.5000"],
                    ["synth-wide-short", "10.0000", "0.5000", "5.0000", "1.0000"]]
            if got != want:
                problems.append(f"short_kernels.csv is {got}, expected {want}")
        summary = os.path.join(out, "summary.md")
        text = open(summary).read() if os.path.exists(summary) else ""
        # random: graph x8, acs x4: 3/7 of the graph's gain; wide: graph x20, acs x10: 9/19.
        for needed in ("## Graph replay", "| synth-random-short | x8.00 | x1.25 | x4.00 | 43% | x3.20 |",
                       "| synth-wide-short | x20.00 | x2.00 | x10.00 | 47% | x5.00 |"):
            if needed not in text:
                problems.append(f"summary.md lacks {needed!r}")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print("plot_bench.py: short_kernels.csv and its summary table are right")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
