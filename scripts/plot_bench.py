#!/usr/bin/env python3
"""Summary and plots for the GPU benchmark matrix (scripts/bench.sh).

Reads the CSV the benchmark programs append to (one row per configuration, mode and
variant) and writes, into --out:
  summary.md          the targets, then a Markdown table of ratios (last);
  speedup.png         speed-up over serial per configuration       (needs matplotlib);
  kernel_length.png   speed-up against kernel length, random DAG   (needs matplotlib);
  short_kernels.csv   workload,serial_ms,graph_ms,acs_nograph_ms,acs_ms for every configuration
                      run under ACS_GRAPH=auto (issue 16's table: acs without and with graph replay
                      against the program's own CUDA graph).

Every ratio compares times from the same run. T is the median GPU time of one rep (CUDA
events around the whole rep, after a warm-up):
  speed-up(v)  = T_serial / T_v, serial being the unmodified program without acs;
  oracle share = (T_serial / T_acs - 1) / (T_serial / T_oracle - 1): the share of the
                 hand-scheduled oracle's gain over serial that acs gets (1 = all of it;
                 n/a when the oracle gains less than 5 %);
  acs / graph  = T_graph / T_acs: above 1, acs beats the replayed CUDA graph.
acs infer is the serial program under LD_PRELOAD=libacs.so with ACS_INFER=alloc; acs annot
is the annotated program under the preload.
"""
import argparse
import csv
import math
import os
import re
import sys
from collections import OrderedDict

# (configuration, measure, bound): the targets the lead checks, for acs on the
# unannotated serial program.
TARGETS = [
    ("synth-random-long", "share", 0.90),
    ("synth-layered-long", "share", 0.90),
    ("synth-wide-long", "share", 0.90),
    ("drl-ant-long", "share", 0.90),
    ("drl-humanoid-long", "share", 0.90),
    ("drl-walker2d-long", "share", 0.90),
    ("synth-chain-long", "slowdown", 0.03),
]
MIN_ORACLE_GAIN = 0.05

KEYS = {  # column name -> (mode, variant)
    "serial": ("plain", "serial"),
    "annotated": ("plain", "annotated"),
    "oracle": ("plain", "oracle"),
    "graph": ("plain", "graph"),
    "graph_rebuild": ("plain", "graph_rebuild"),
    "acs_infer": ("acs_infer", "serial"),
    "acs_const": ("acs_const", "serial"),
    "acs_annot": ("acs_annot", "annotated"),
    "acs_graph": ("acs_graph", "serial"),
}


def load(path):
    configs = OrderedDict()
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            c = configs.setdefault(row["config"], {"rows": [], "t": {}, "row": {}})
            c["rows"].append(row)
            for key, (mode, variant) in KEYS.items():
                if row["mode"] == mode and row["variant"] == variant:
                    c["t"][key] = float(row["median_ms"])
                    c["row"][key] = row
    return configs


def speedup(c, key):
    t = c["t"]
    if "serial" not in t or key not in t or t[key] <= 0:
        return None
    return t["serial"] / t[key]


def share(c, key):
    s_acs, s_oracle = speedup(c, key), speedup(c, "oracle")
    if s_acs is None or s_oracle is None or s_oracle - 1 < MIN_ORACLE_GAIN:
        return None
    return (s_acs - 1) / (s_oracle - 1)


def versus(c, key, graph):
    t = c["t"]
    if key not in t or graph not in t or t[key] <= 0:
        return None
    return t[graph] / t[key]


def check(c):
    """'ok', or what failed: a row's own check, or a checksum differing from plain serial's."""
    bad = []
    gold = c["row"].get("serial", {}).get("checksum")
    for r in c["rows"]:
        if r["check"] != "ok":
            bad.append(f"{r['mode']}/{r['variant']}")
        elif gold and r["checksum"] != gold:
            bad.append(f"{r['mode']}/{r['variant']} checksum")
    return "ok" if not bad else "MISMATCH " + ", ".join(bad)


def fmt(v, pattern="{:.2f}", none="–"):
    return none if v is None else pattern.format(v)


def target_lines(configs):
    lines = []
    for name, measure, bound in TARGETS:
        c = configs.get(name)
        if c is None:
            lines.append(f"- {name}: NOT RUN")
            continue
        if measure == "share":
            v = share(c, "acs_infer")
            annot = share(c, "acs_annot")
            state = "MISSING" if v is None else ("PASS" if v >= bound else "FAIL")
            const = share(c, "acs_const")
            lines.append(
                f"- {name}: acs infer reaches {fmt(v, '{:.0%}')} of the oracle's gain "
                f"(target >= {bound:.0%}): **{state}**; ACS_INFER=const {fmt(const, '{:.0%}')}; "
                f"acs annot {fmt(annot, '{:.0%}')}; "
                f"oracle x{fmt(speedup(c, 'oracle'))}, acs infer x{fmt(speedup(c, 'acs_infer'))}")
        else:
            s = speedup(c, "acs_infer")
            slow = None if s is None else 1 / s - 1
            state = "MISSING" if slow is None else ("PASS" if slow <= bound else "FAIL")
            lines.append(
                f"- {name}: acs infer is {fmt(slow, '{:+.1%}')} vs serial "
                f"(target at most +{bound:.0%}): **{state}**; acs annot "
                f"{fmt(None if speedup(c, 'acs_annot') is None else 1 / speedup(c, 'acs_annot') - 1, '{:+.1%}')}")
    return lines


def table(configs):
    head = ("| config | kernels/rep | kernel µs | serial ms | annotated, no acs | oracle | graph | "
            "graph rebuild | acs infer | acs const | acs annot | share infer | share const | share annot | "
            "acs infer / graph | acs infer / rebuild | instantiate µs | check |")
    rule = "|" + "---|" * (head.count("|") - 1)
    out = [head, rule]
    for name, c in configs.items():
        base = c["row"].get("serial") or c["rows"][0]
        inst = c["row"].get("graph", {}).get("instantiate_us")
        x = lambda k: fmt(speedup(c, k), "x{:.2f}")
        out.append("| " + " | ".join([
            name,
            base["kernels"],
            fmt(float(base["kernel_us"]), "{:.1f}"),
            fmt(c["t"].get("serial"), "{:.3f}"),
            x("annotated"), x("oracle"), x("graph"), x("graph_rebuild"),
            x("acs_infer"), x("acs_const"), x("acs_annot"),
            fmt(share(c, "acs_infer"), "{:.0%}"), fmt(share(c, "acs_const"), "{:.0%}"),
            fmt(share(c, "acs_annot"), "{:.0%}"),
            fmt(versus(c, "acs_infer", "graph")), fmt(versus(c, "acs_infer", "graph_rebuild")),
            fmt(None if inst is None else float(inst), "{:.0f}"),
            check(c),
        ]) + " |")
    return out


def short_kernel_rows(configs):
    """(workload, serial, graph, acs without graphs, acs with graphs) in ms, for every
    configuration that ran under ACS_GRAPH=auto; a missing time is an empty cell."""
    rows = []
    for name, c in configs.items():
        t = c["t"]
        if "acs_graph" not in t:
            continue
        rows.append((name, t.get("serial"), t.get("graph"), t.get("acs_infer"), t.get("acs_graph")))
    return rows


def write_short_kernels(configs, path):
    rows = short_kernel_rows(configs)
    if not rows:
        return []
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["workload", "serial_ms", "graph_ms", "acs_nograph_ms", "acs_ms"])
        for row in rows:
            w.writerow([row[0]] + ["" if v is None else f"{v:.4f}" for v in row[1:]])
    # The graph's gain over serial that acs with graphs gets (issue 16's target: at least half).
    lines = ["", "## Graph replay (ACS_GRAPH=auto; short_kernels.csv)", "",
             "| workload | graph x | acs no graphs x | acs graphs x | share of the graph's gain | graphs on / off |",
             "|---|---|---|---|---|---|"]
    for name, serial, graph, nograph, acs in rows:
        x = lambda v: None if v is None or serial is None or v <= 0 else serial / v
        gain = None
        if x(graph) is not None and x(acs) is not None and x(graph) - 1 >= MIN_ORACLE_GAIN:
            gain = (x(acs) - 1) / (x(graph) - 1)
        onoff = None if nograph is None or acs is None or acs <= 0 else nograph / acs
        lines.append(f"| {name} | {fmt(x(graph), 'x{:.2f}')} | {fmt(x(nograph), 'x{:.2f}')} | "
                     f"{fmt(x(acs), 'x{:.2f}')} | {fmt(gain, '{:.0%}')} | {fmt(onoff, 'x{:.2f}')} |")
    return lines


def plots(configs, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_bench.py: matplotlib not found: plots skipped (the table is complete)")
        return
    series = [("oracle", "oracle"), ("graph", "CUDA graph"), ("acs_infer", "acs (inferred)"),
              ("acs_const", "acs (ACS_INFER=const)"), ("acs_annot", "acs (annotated)")]

    names = [n for n in configs if not re.match(r"synth-random-k\d+$", n)]
    if names:
        fig, ax = plt.subplots(figsize=(max(8, 0.55 * len(names) * len(series) / 2), 5))
        width = 0.8 / len(series)
        for i, (key, label) in enumerate(series):
            ys = [speedup(configs[n], key) or 0 for n in names]
            ax.bar([j + i * width for j in range(len(names))], ys, width, label=label)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(names))])
        ax.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
        ax.set_ylabel("speed-up over serial")
        ax.set_title("Speed-up per workload (same run)")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "speedup.png"), dpi=120)
        plt.close(fig)

    sweep = [n for n in configs
             if re.match(r"synth-random-(k\d+|long|short)$", n) and "serial" in configs[n]["row"]]
    if len(sweep) >= 2:
        sweep.sort(key=lambda n: float(configs[n]["row"]["serial"]["kernel_us"]))
        xs = [float(configs[n]["row"]["serial"]["kernel_us"]) for n in sweep]
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for key, label in series:
            pts = [(x, speedup(configs[n], key)) for x, n in zip(xs, sweep)]
            pts = [(x, y) for x, y in pts if y is not None]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("mean kernel length (µs, measured)")
        ax.set_ylabel("speed-up over serial")
        ax.set_title("Random DAG: speed-up against kernel length")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "kernel_length.png"), dpi=120)
        plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csv", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--meta", default="")
    ap.add_argument("--failure", action="append", default=[])
    ap.add_argument("--skipped", action="append", default=[])
    args = ap.parse_args()

    if not os.path.exists(args.csv):
        print(f"plot_bench.py: {args.csv} does not exist: no run produced results")
        return 1
    configs = load(args.csv)
    lines = ["# acs benchmark summary", ""]
    if args.meta:
        lines += [args.meta, ""]
    lines += [
        "Times: median GPU time of a rep (CUDA events) over the reps (bench.csv: reps) after a warm-up; one run.",
        "x = speed-up over serial (T_serial / T). share = (T_serial/T_acs - 1) / (T_serial/T_oracle - 1),",
        "the share of the oracle's gain acs gets (n/a when the oracle gains < 5 %). acs / graph =",
        "T_graph / T_acs (> 1: acs faster). acs infer: serial under the preload, ACS_INFER=alloc;",
        "acs annot: the annotated program under the preload. graph: replay of graphs instantiated",
        "once per distinct DAG (instantiate µs is per graph, not in the replay time); graph rebuild:",
        "capture + instantiate for every input-dependent DAG, inside the timed rep.",
        "",
        "## Targets (acs on the unannotated serial program)",
        "",
    ]
    lines += target_lines(configs)
    if args.failure or args.skipped:
        lines += ["", "## Problems", ""]
        lines += [f"- FAILED: {f}" for f in args.failure]
        lines += [f"- skipped (deadline): {s}" for s in args.skipped]
    lines += ["", "## Results", ""]
    lines += table(configs)
    lines += write_short_kernels(configs, os.path.join(args.out, "short_kernels.csv"))
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    plots(configs, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
