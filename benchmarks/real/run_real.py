#!/usr/bin/env python3
"""Real-program benchmark runner: each program natively and under LD_PRELOAD=libacs.so.

Reads one or more TOML manifests (benchmarks/real/*.toml; format in README.md), runs every
program in every mode, interleaved (repeat r runs the modes in order, repeat r+1 in reverse:
A B B A ..., which cancels a linear drift), keeps the medians, compares the output digests
bit for bit with the native ones, then runs it once more under ACS_STATS=1 (untimed, for
the acs-stats: lines). Ratios only ever compare runs of this one invocation.

Modes: native (no preload), acs (preload), acs_disable (preload, ACS_DISABLE=1), and any
--mode NAME:VAR=VAL[,VAR=VAL] (preload plus those variables), e.g. --mode graph_off:ACS_GRAPH=off.

Writes into --out: real_programs.csv (program,suite,native_ms,acs_ms,speedup,identical),
real_programs_modes.csv (every mode), real_programs_stats.txt (acs-stats: lines),
real_programs.md (the table), real_programs_runs.log (each run's command and output tail),
real_programs.json (the results, for --merge: run_real.py --merge DIR... --out OUT makes one
table from runs that each measured some of the programs, as --only picked them).
Prints the table last. Exit status: 0 when every run succeeded and every digest matched
(or without a GPU); 1 otherwise. Standard library only.
"""
import argparse
import collections
import csv
import hashlib
import json
import math
import os
import re
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
RESULT_PREFIX = "real-result:"
LOG_TAIL = 3000  # characters of each stream kept per run in the log


# ---------------------------------------------------------------- manifests

def load_programs(paths, bin_dir, python):
    """Programs of the manifests, in order; placeholders in cmd expanded."""
    programs = []
    for path in paths:
        with open(path, "rb") as f:
            data = tomllib.load(f)
        defaults = data.get("defaults", {})
        subst = {"bin": bin_dir, "here": HERE, "python": python, "root": os.path.dirname(os.path.dirname(HERE)),
                 "tmp": tempfile.gettempdir()}
        for p in data.get("program", []):
            p = {**defaults, **p}
            for key in ("name", "suite", "cmd"):
                if key not in p:
                    raise SystemExit(f"{path}: a program lacks '{key}': {p}")
            p["cmd"] = [a.format(**subst) for a in p["cmd"]]
            p["env"] = {k: str(v).format(**subst) for k, v in p.get("env", {}).items()}
            p["requires"] = [r.format(**subst) for r in p.get("requires", [])]  # paths that must exist
            p.setdefault("time", "lines")     # lines | wall | regex
            p.setdefault("digest", "lines")   # lines | stdout | none
            p["manifest"] = path
            programs.append(p)
    # Lower priority first, then manifest order: a deadline cuts from the end.
    return sorted(programs, key=lambda p: p.get("priority", 50))


# ---------------------------------------------------------------- one run

def parse_cpus(text):
    """'2-7,9' -> {2, 3, 4, 5, 6, 7, 9}; '' -> None (no pinning)."""
    cpus = set()
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        lo, _, hi = part.partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()) or (hi and int(hi) < int(lo)):
            raise SystemExit(f"run_real.py: --cpus {text!r}: expected a list such as 2-7,9")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus or None


HOST_LOOP = 100_000   # iterations of the host-speed loop: about 4 ms of one CPU (x3 before each run)
HOST_SLOW = 1.15      # a run whose host loop took this much longer than the median is flagged


NOT_RUN = "not run (hard deadline)"
CUT = "cut by the hard deadline"
HUNG_FACTOR = 3       # a run the deadline stopped after this many times its program's longest finished run hung


def cut_short(run):
    """A run the command's hard deadline left out, or stopped before the program's own limit."""
    return run["status"] == NOT_RUN or run["status"].startswith(CUT)


def hung(run, earlier):
    """A run stopped by the deadline after more than HUNG_FACTOR times the longest run of the same
    program that finished: likely a hang (acs's own, perhaps), so a failure, not a cut."""
    done = [r["wall_ms"] for _, r, _ in earlier if r["status"] == "ok" and r["wall_ms"]]
    return bool(done) and run["wall_ms"] is not None and run["wall_ms"] > HUNG_FACTOR * max(done)


def host_speed_ms(cpus=None):
    """The host's speed right now: the fastest of 3 timings of a fixed pure-Python loop, on the
    runs' CPUs. Taken before every run: on 2026-12-06 one GPU host's CPU ran at half speed, then
    full speed, within single processes, which moves host-bound rows more than acs does; this
    tells such a run apart (the markdown's host-speed line, `host_ms` in the JSON)."""
    before = os.sched_getaffinity(0)
    if cpus:
        os.sched_setaffinity(0, cpus)
    try:
        best = None
        for _ in range(3):
            t0 = time.perf_counter()
            x = 0
            for i in range(HOST_LOOP):
                x = (x * 31 + i) & 0xFFFF
            ms = (time.perf_counter() - t0) * 1e3
            best = ms if best is None else min(best, ms)
        return best
    finally:
        if cpus:
            os.sched_setaffinity(0, before)


def host_speed_line(host_ms):
    """What the host's speed did over a command's runs (host_speed_ms before each), for the
    table's notes: None without any."""
    xs = [x for x in host_ms if x is not None]
    if not xs:
        return None
    m = median(xs)
    slow = sum(1 for x in xs if x > HOST_SLOW * m)
    return (f"Host speed (a fixed Python loop timed before each run, on the runs' CPUs): median {m:.2f} ms "
            f"over {len(xs)} runs, {min(xs):.2f}-{max(xs):.2f} ms; {slow} run(s) more than "
            f"{round((HOST_SLOW - 1) * 100)}% slower than the median"
            + (": the host's speed moved during the command, so compare its ratios with care." if slow else "."))


def host_speeds(results):
    """Each run's host_speed_ms once: a process that prints several rows (PyTorch's models) has
    the same runs under each of them."""
    runs = {(r["process"], mode, i): x for r in results for mode, pm in r["modes"].items()
            for i, x in enumerate(pm.get("host_ms", []))}
    return list(runs.values())


def run_once(prog, mode_env, timeout, cpus=None):
    """Runs the program once; returns a dict with rc, status, wall_ms, stdout, stderr. With cpus,
    the program runs on those CPUs only, every mode alike, to rule out where the OS puts it as a
    cause of the host-bound programs' spread (on the H200 machines it was not: README.md)."""
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    env.update(prog["env"])
    env.update(mode_env)
    exe = prog["cmd"][0]
    if os.sep in exe and not os.path.exists(exe):
        return {"rc": None, "status": f"missing {exe}", "wall_ms": None, "stdout": "", "stderr": ""}
    t0 = time.perf_counter()
    try:
        proc = subprocess.Popen(prog["cmd"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, start_new_session=True,
                                cwd=prog.get("cwd") or None,
                                preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None)
    except OSError as e:
        return {"rc": None, "status": f"cannot start: {e}", "wall_ms": None, "stdout": "", "stderr": ""}
    try:
        out, err = proc.communicate(timeout=timeout)
        status = "ok" if proc.returncode == 0 else f"rc={proc.returncode}"
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the program's own process group: it and its children
        out, err = proc.communicate()
        status = f"timeout after {timeout:.0f} s"
    wall_ms = (time.perf_counter() - t0) * 1e3
    return {"rc": proc.returncode, "status": status, "wall_ms": wall_ms,
            "stdout": out.decode("utf-8", "replace"), "stderr": err.decode("utf-8", "replace")}


def parse_result_lines(text):
    """'real-result: name=X suite=Y ms=1.2 sha256=abc' lines -> {name: fields}; error= takes the rest."""
    rows = {}
    for line in text.splitlines():
        if not line.startswith(RESULT_PREFIX):
            continue
        body = line[len(RESULT_PREFIX):].strip()
        fields = {}
        if " error=" in " " + body:
            head, _, msg = (" " + body).partition(" error=")
            body, fields["error"] = head.strip(), msg.strip()
        for tok in body.split():
            k, _, v = tok.partition("=")
            fields[k] = v
        if "name" in fields:
            rows[fields["name"]] = fields
    return rows


def stdout_digest(prog, text):
    """sha256 of stdout without the lines matching any 'drop' regex (timings), optionally sorted."""
    drop = [re.compile(r) for r in prog.get("drop", [])]
    lines = [l.rstrip() for l in text.splitlines()
             if not l.startswith(RESULT_PREFIX) and not any(d.search(l) for d in drop)]
    if prog.get("sort_lines"):
        lines.sort()
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:32]


def regex_time(prog, text):
    """ms from the program's own timing lines: named group t (ms = t * scale) or n and rate
    (ms = scale * n / rate); several matches combine with time_pick (sum, first, last)."""
    rx = re.compile(prog["time_regex"], re.MULTILINE)  # ^ and $ per line
    scale = float(prog.get("time_scale", 1.0))
    values = []
    for m in rx.finditer(text):
        g = m.groupdict()
        if g.get("t") is not None:
            values.append(float(g["t"]) * scale)
        elif g.get("n") is not None and g.get("rate") is not None and float(g["rate"]) > 0:
            values.append(scale * float(g["n"]) / float(g["rate"]))
    if not values:
        return None
    pick = prog.get("time_pick", "sum")
    return {"sum": sum(values), "first": values[0], "last": values[-1]}[pick]


def results_of(prog, run):
    """{row: {'ms', 'digest', 'error', 'suite'}} for one run. The rows a program printed count
    even when it then failed (one model's error must not hide the others); a program timed
    from its whole output counts only when it exited 0."""
    if prog["time"] != "lines" and run["status"] != "ok":
        return {}
    if prog["time"] == "lines" or prog["digest"] == "lines":
        lines = parse_result_lines(run["stdout"])
    else:
        lines = {}
    if prog["time"] == "lines":
        rows = {}
        for name, f in lines.items():
            ms = float(f["ms"]) if "ms" in f and "error" not in f else None
            rows[name] = {"ms": ms, "digest": f.get("sha256"), "error": f.get("error"),
                          "suite": f.get("suite", prog["suite"])}
        return rows
    ms = run["wall_ms"] if prog["time"] == "wall" else regex_time(prog, run["stdout"])
    if prog["digest"] == "stdout":
        digest = stdout_digest(prog, run["stdout"])
    elif prog["digest"] == "lines":
        digest = lines.get(prog["name"], {}).get("sha256")
    else:
        digest = None
    error = None if ms is not None else "no timing line matched"
    return {prog["name"]: {"ms": ms, "digest": digest, "error": error, "suite": prog["suite"]}}


# ---------------------------------------------------------------- aggregation

def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def lower_quartile(xs):
    """The value a quarter of the way up the sorted values (the lowest of fewer than five): where
    a machine's processes fall into a fast and a slow state, it follows the fast one, which every
    mode reaches, while the median follows whichever state the mode's processes fell into."""
    xs = sorted(x for x in xs if x is not None)
    return xs[(len(xs) - 1) // 4] if xs else None


# A repeat counts as in its mode's fast state when its score is within this much of the mode's best.
# The states the H100/H200 hosts showed were 1.3-2x apart; repeats within one state, 2-10%.
FAST_STATE_TOLERANCE = 0.15


def fast_runs(scores):
    """Indices of the scores within FAST_STATE_TOLERANCE of the lowest (the fast state's repeats)."""
    known = [x for x in scores if x is not None]
    if not known:
        return []
    limit = min(known) * (1 + FAST_STATE_TOLERANCE)
    return [i for i, x in enumerate(scores) if x is not None and x <= limit]


def fast_state(xs):
    """The median of the repeats in the fast state (within FAST_STATE_TOLERANCE of the fastest).
    For one program on its own; apply_fast_state decides the state of a process that measured
    several rows from all of them together."""
    return median([xs[i] for i in fast_runs(xs)])


def fastest(xs):
    """The fastest repeat. Where a machine's processes fall into states up to 2x apart and few
    of a mode's repeats reach the fast one (the H200 host: native's five PyTorch processes scored
    0.83-1.71 of their median), a mode's best process is the nearest measure of its own cost."""
    xs = [x for x in xs if x is not None]
    return min(xs) if xs else None


# What native_ms, acs_ms and the ratios are (--estimator): the median of the repeats, their
# lower quartile, the median of the fast state's repeats, or the fastest repeat.
ESTIMATORS = {"median": median, "lower-quartile": lower_quartile, "fast-state": fast_state, "fastest": fastest}
ESTIMATOR_WORDS = {"median": "median", "lower-quartile": "lower quartile",
                   "fast-state": "fast-state median", "fastest": "fastest"}
FAST_STATE_WORDS = (f": those within {FAST_STATE_TOLERANCE:.0%} of the mode's fastest, a process of several rows "
                    "scored over all of them")
estimator = "median"


def apply_fast_state(results):
    """Where one process measured several rows (the PyTorch models), a repeat's state is the
    process's: its score is the geometric mean over the rows of its ms against the row's median
    over every mode, and each mode's fast repeats (fast_runs of its scores) give every row's
    estimate. Each mode's `fast_runs` says how many of its repeats were fast, so a mode whose
    processes fall into the slow state more often shows. Rows whose repeats do not line up (a run
    failed for some rows only) keep their own fast state."""
    by_process = {}
    for r in results:
        by_process.setdefault(r["process"], []).append(r)
    for rows in by_process.values():
        refs = [median([x for pm in r["modes"].values() for x in pm["ms"]]) for r in rows]
        for mode in {m for r in rows for m in r["modes"]}:
            mine = [(r["modes"][mode], ref) for r, ref in zip(rows, refs) if mode in r["modes"]]
            lengths = {len(pm["ms"]) for pm, _ in mine}
            if len(lengths) == 1 and all(ref for _, ref in mine):
                n = lengths.pop()
                scores = [geomean([pm["ms"][i] / ref for pm, ref in mine if pm["ms"][i]]) for i in range(n)]
                fast = fast_runs(scores)
                for pm, _ in mine:
                    pm["estimate_ms"] = median([pm["ms"][i] for i in fast])
                    pm["fast_runs"] = len(fast)
            else:
                for pm, _ in mine:
                    pm["estimate_ms"] = fast_state(pm["ms"])
                    pm["fast_runs"] = len(fast_runs(pm["ms"]))


def summarise(prog, mode_names, runs, verdict_if_none="failed", extra_modes=("acs_stats",)):
    """runs: list of (mode, run, rows). Returns per-row dicts with per-mode medians and verdicts
    (verdict_if_none for a program that did not run: missing, skipped)."""
    names = []
    for _, _, rows in runs:
        names += [n for n in rows if n not in names]
    if not names:
        names = [prog["name"]]
    out = []
    for name in names:
        suite = next((rows[name]["suite"] for _, _, rows in runs if name in rows), prog["suite"])
        per_mode = {}
        for mode in mode_names + list(extra_modes):
            # A run the hard deadline left out or stopped measures nothing: skipped, not failed.
            mine = [(run, rows.get(name)) for m, run, rows in runs if m == mode and not cut_short(run)]
            if not mine:
                continue
            problems = []
            for run, r in mine:
                if r is None:
                    problems.append(run["status"] if run["status"] != "ok" else "row missing")
                elif r["error"]:
                    problems.append(r["error"])
            good = [r for _, r in mine if r is not None and not r["error"]]
            per_mode[mode] = {
                "runs": len(mine), "ok": len(good),
                "ms": [r["ms"] for r in good], "median_ms": median([r["ms"] for r in good]),
                "q1_ms": lower_quartile([r["ms"] for r in good]),
                "estimate_ms": ESTIMATORS[estimator]([r["ms"] for r in good]),
                "wall_ms": median([run["wall_ms"] for run, _ in mine]),
                "host_ms": [run.get("host_ms") for run, _ in mine],
                "digests": [r["digest"] for r in good], "problems": problems,
            }
        native = per_mode.get("native", {"digests": [], "problems": ["not run"], "ok": 0})
        ref = set(native["digests"])
        verdict = "yes"
        for mode, pm in per_mode.items():
            pm["identical"] = ("n/a" if not pm["digests"] or None in pm["digests"] or len(ref) != 1
                               else "yes" if set(pm["digests"]) == ref else "no")
        if not runs:
            verdict = verdict_if_none
        elif any(pm["problems"] for pm in per_mode.values()):
            verdict = "failed"
        elif any(m not in per_mode for m in mode_names):  # every run of a mode cut by the deadline
            verdict = "cut"
        elif not ref or None in ref:
            verdict = "n/a"
        elif len(ref) > 1:
            verdict = "native-varies"
        elif any(pm["identical"] == "no" for pm in per_mode.values()):
            verdict = "no"
        out.append({"program": name, "suite": suite, "modes": per_mode, "identical": verdict,
                    "process": prog["name"], "wall": prog["time"] == "wall"})
    return out


def fmt(x, digits=3):
    return "" if x is None else f"{x:.{digits}f}"


def ratio(a, b):
    return a / b if a is not None and b else None


def geomean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


# ---------------------------------------------------------------- outputs

def write_outputs(out_dir, results, mode_names, mode_envs, meta, failures, skipped):
    os.makedirs(out_dir, exist_ok=True)
    if estimator == "fast-state":
        apply_fast_state(results)
    with open(os.path.join(out_dir, "real_programs.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["program", "suite", "native_ms", "acs_ms", "speedup", "identical"])
        for r in results:
            n = r["modes"].get("native", {}).get("estimate_ms")
            a = r["modes"].get("acs", {}).get("estimate_ms")
            w.writerow([r["program"], r["suite"], fmt(n), fmt(a), fmt(ratio(n, a)), r["identical"]])
    with open(os.path.join(out_dir, "real_programs_modes.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["program", "suite", "mode", "env", "runs", "ok_runs", "median_ms", "min_ms", "max_ms",
                    "speedup_vs_native", "wall_median_ms", "digest", "identical_to_native", "problems",
                    "lower_quartile_ms", "fast_runs"])
        for r in results:
            n = r["modes"].get("native", {}).get("estimate_ms")
            for mode, pm in r["modes"].items():
                ms = [x for x in pm["ms"] if x is not None]
                env = " ".join(f"{k}={v}" for k, v in mode_envs.get(mode, {}).items() if k != "LD_PRELOAD")
                w.writerow([r["program"], r["suite"], mode, env, pm["runs"], pm["ok"], fmt(pm["median_ms"]),
                            fmt(min(ms) if ms else None), fmt(max(ms) if ms else None),
                            fmt(ratio(n, pm["estimate_ms"])) if mode != "native" else "",
                            fmt(pm["wall_ms"], 1), "|".join(sorted(set(str(d) for d in pm["digests"]))),
                            pm["identical"], "; ".join(pm["problems"]), fmt(pm.get("q1_ms")),
                            pm.get("fast_runs", "")])
    md = markdown(results, mode_names, meta, failures, skipped)
    with open(os.path.join(out_dir, "real_programs.md"), "w") as f:
        f.write(md)
    with open(os.path.join(out_dir, RESULTS_JSON), "w") as f:  # what --merge reads back
        json.dump({"meta": meta, "mode_names": mode_names, "mode_envs": mode_envs, "results": results,
                   "failures": failures, "skipped": skipped}, f, indent=1)
    return md


RESULTS_JSON = "real_programs.json"


def as_acs(run, mode):
    """A run's `mode` becomes its acs column (--acs-mode: runs made before that mode's settings
    became acs's defaults); its own acs column, if it had one, is dropped. Says so in its meta."""
    if mode not in run["mode_names"]:
        raise SystemExit(f"run_real.py --acs-mode {mode}: [{run['meta']}] has no such mode "
                         f"({', '.join(run['mode_names'])})")
    for r in run["results"]:
        r["modes"].pop("acs", None)
        if mode in r["modes"]:
            r["modes"]["acs"] = r["modes"].pop(mode)
    run["mode_names"] = ["acs" if m == mode else m for m in run["mode_names"] if m != "acs"]
    run["mode_envs"] = {("acs" if m == mode else m): e for m, e in run["mode_envs"].items() if m != "acs"}
    run["meta"] += f"; acs column: mode {mode}"
    return run


def merge_outputs(dirs, out_dir, acs_mode=None):
    """One table from several runs' outputs (one device command is too short for every program):
    each DIR's real_programs.json; a program measured in several takes the last DIR's rows.
    Its stats files are concatenated; the runs' logs stay in their folders. `acs_mode`: see as_acs."""
    runs = []
    for d in dirs:
        path = os.path.join(d, RESULTS_JSON)
        if not os.path.isfile(path):
            raise SystemExit(f"run_real.py --merge: {path} does not exist (a run of this version writes it)")
        with open(path) as f:
            runs.append(json.load(f))
        if acs_mode:
            as_acs(runs[-1], acs_mode)
    latest = {}
    for run in runs:
        for r in run["results"]:
            latest[r["process"]] = run
            for pm in r["modes"].values():  # this run's estimator, also over older runs' repeats
                pm["q1_ms"] = lower_quartile(pm["ms"])
                pm["estimate_ms"] = ESTIMATORS[estimator](pm["ms"])
    results, mode_names, mode_envs, failures, skipped = [], [], {}, [], []
    for run in runs:
        mine = {r["process"] for r in run["results"] if latest[r["process"]] is run}
        results += [r for r in run["results"] if r["process"] in mine]
        mode_names += [m for m in run["mode_names"] if m not in mode_names]
        mode_envs = {**run["mode_envs"], **mode_envs}
        failures += [x for x in run["failures"] if x.split(":")[0] in mine or x.split(":")[0] not in latest]
        skipped += [x for x in run["skipped"] if x.split(" ")[0].rstrip(":") in mine]
    meta = "merged from " + " + ".join(f"[{run['meta']}]" for run in runs)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "real_programs_stats.txt"), "w") as out:
        for d in dirs:
            stats = os.path.join(d, "real_programs_stats.txt")
            if os.path.isfile(stats) and os.path.abspath(d) != os.path.abspath(out_dir):
                out.write(open(stats).read())
    return write_outputs(out_dir, results, mode_names, mode_envs, meta, failures, skipped)


def fast_state_processes(results):
    """The first row of each process that measured several rows (their fast_runs are the process's)."""
    count, first = {}, {}
    for r in results:
        count[r["process"]] = count.get(r["process"], 0) + 1
        first.setdefault(r["process"], r)
    return {p: r for p, r in first.items() if count[p] > 1}


def markdown(results, mode_names, meta, failures, skipped):
    extra = [m for m in mode_names if m not in ("native", "acs")]
    head = ["program", "suite", "native ms", "acs ms", "speed-up"] + [f"{m} (x)" for m in extra] + ["identical"]
    lines = [f"Real programs: {meta}", "",
             f"speed-up = native ms / acs ms ({ESTIMATOR_WORDS[estimator]} of the repeats"
             f"{FAST_STATE_WORDS if estimator == 'fast-state' else ''}; each program times its own steady "
             "state, or as stated in benchmarks/real/README.md); the other columns are native ms / that "
             "mode's ms; identical: every run's output digest equals the native one.", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    speedups = {}
    for r in results:
        n = r["modes"].get("native", {}).get("estimate_ms")
        a = r["modes"].get("acs", {}).get("estimate_ms")
        s = ratio(n, a)
        speedups.setdefault(r["suite"], []).append(s)
        name = r["program"] + (" (whole process)" if r["wall"] else "")
        cells = [name, r["suite"], fmt(n), fmt(a), f"x{s:.2f}" if s else "–"]
        for m in extra:
            x = ratio(n, r["modes"].get(m, {}).get("estimate_ms"))
            cells.append(f"x{x:.2f}" if x else "–")
        cells.append(r["identical"] if r["identical"] == "yes" else f"**{r['identical']}**")
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    parts = [f"{suite} x{g:.2f} ({len([x for x in v if x])})" for suite, v in speedups.items()
             if (g := geomean(v))]
    allg = geomean([x for v in speedups.values() for x in v])
    if allg:
        lines.append(f"Geometric mean of the speed-ups: all x{allg:.2f}; " + ", ".join(parts) + ".")
    host = host_speed_line(host_speeds(results))
    if host:
        lines.append("")
        lines.append(host)
    if estimator == "fast-state":
        lines.append("")
        lines.append("Repeats in the fast state, per process of several rows and mode: " + "; ".join(
            f"{process}: " + ", ".join(f"{m} {pm['fast_runs']}/{len(pm['ms'])}" for m, pm in first["modes"].items()
                                       if "fast_runs" in pm)
            for process, first in fast_state_processes(results).items()) + ".")
    for f in failures:
        lines.append(f"- FAILED: {f}")
    for s in skipped:
        lines.append(f"- SKIPPED: {s}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- main

def have_gpu():
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return out.splitlines()[0] if "GPU" in out else None


def parse_modes(args):
    envs = {"native": {}}
    if args.lib:
        envs["acs"] = {"LD_PRELOAD": args.lib}
        envs["acs_disable"] = {"LD_PRELOAD": args.lib, "ACS_DISABLE": "1"}
        for spec in args.mode:
            name, _, assigns = spec.partition(":")
            env = {"LD_PRELOAD": args.lib}
            for a in filter(None, assigns.split(",")):
                k, eq, v = a.partition("=")
                if not eq:
                    raise SystemExit(f"--mode {spec}: expected NAME:VAR=VAL[,VAR=VAL]")
                env[k] = v
            envs[name] = env
    wanted = [m for m in args.modes.split(",") if m] + [m.partition(":")[0] for m in args.mode]
    names = [m for m in dict.fromkeys(wanted) if m in envs]
    if args.lib:
        envs["acs_stats"] = {"LD_PRELOAD": args.lib, "ACS_STATS": "1"}
        for m in args.stats_mode:  # the counters under an extra mode's settings too
            if m not in names or m not in envs or m == "native":
                raise SystemExit(f"--stats-mode {m}: not one of the preloaded modes ({', '.join(names[1:])})")
            envs[f"{m}_stats"] = {**envs[m], "ACS_STATS": "1"}
    return names, envs


def stats_modes(args):
    """The ACS_STATS=1 passes, in run order: the default settings', then --stats-mode's."""
    return ["acs_stats"] + [f"{m}_stats" for m in args.stats_mode] if args.lib and not args.no_stats else []


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("manifests", nargs="*", help="TOML manifests (benchmarks/real/*.toml)")
    ap.add_argument("--merge", nargs="+", metavar="DIR",
                    help="measure nothing: write --out's tables from these runs' --out folders")
    ap.add_argument("--acs-mode", metavar="NAME",
                    help="with --merge: the runs' mode NAME is the tables' acs column (runs made before "
                         "NAME's settings became acs's defaults); their own acs column is dropped")
    ap.add_argument("--lib", default=os.environ.get("ACS_LIB"), help="libacs.so (default: $ACS_LIB)")
    ap.add_argument("--out", default=os.path.join(HERE, "..", "..", "docs", "results"))
    ap.add_argument("--reps", type=int, help="timed runs per mode, for every program (default: the "
                    "manifest's reps, else 3)")
    ap.add_argument("--modes", default="native,acs,acs_disable", help="base modes, in run order")
    ap.add_argument("--mode", action="append", default=[], help="extra mode NAME:VAR=VAL[,VAR=VAL]")
    ap.add_argument("--only", help="regex: only programs (processes) whose name matches")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per run unless the manifest says")
    ap.add_argument("--deadline", type=float, help="seconds after which the remaining programs are skipped")
    ap.add_argument("--hard-deadline", type=float,
                    help="seconds after which every remaining run is skipped, within a program too")
    ap.add_argument("--bin-dir", default=os.environ.get("ACS_REAL_BIN", ".real-src/bin"),
                    help="folder of built programs, {bin} in manifests")
    ap.add_argument("--python", default=sys.executable, help="{python} in manifests")
    ap.add_argument("--no-stats", action="store_true", help="skip the ACS_STATS=1 passes")
    ap.add_argument("--stats-mode", action="append", default=[],
                    help="one more ACS_STATS=1 pass, under this preloaded mode's settings (repeatable)")
    ap.add_argument("--allow-no-gpu", action="store_true", help="run even without a GPU (tests)")
    ap.add_argument("--meta", default="", help="text for the table's heading")
    ap.add_argument("--estimator", choices=sorted(ESTIMATORS), default=os.environ.get("ACS_REAL_ESTIMATOR", "median"),
                    help="what the tables' ms are: the median of the repeats; their lower quartile, which "
                         "follows a machine's fast state where processes fall into two; or fast-state, the "
                         "median of each mode's repeats within 15%% of its fastest (a process of several rows "
                         "scored over all of them), with each mode's count of such repeats in "
                         "real_programs_modes.csv; or fastest, each mode's fastest repeat "
                         "(default: $ACS_REAL_ESTIMATOR, else median)")
    ap.add_argument("--cpus", default=os.environ.get("ACS_REAL_CPUS", ""),
                    help="run every program on these CPUs only, e.g. 2-7 (default: $ACS_REAL_CPUS, else unpinned)")
    args = ap.parse_args()
    global estimator
    estimator = args.estimator
    if args.merge:
        print(merge_outputs(args.merge, args.out, args.acs_mode), end="")
        return 0
    if not args.manifests:
        ap.error("a manifest is needed (or --merge)")
    cpus = parse_cpus(args.cpus)
    if cpus and not cpus <= os.sched_getaffinity(0):
        raise SystemExit(f"run_real.py: --cpus {args.cpus}: not all of them are available to this process")
    t_start = time.monotonic()

    gpu = have_gpu()
    if not gpu and not args.allow_no_gpu:
        print("run_real.py: no NVIDIA GPU found (nvidia-smi -L): nothing measured; run it on a GPU machine.")
        return 0
    if args.lib and not os.path.isfile(args.lib):
        raise SystemExit(f"run_real.py: --lib {args.lib} does not exist")
    mode_names, mode_envs = parse_modes(args)
    bin_dir = os.path.abspath(args.bin_dir)
    programs = load_programs(args.manifests, bin_dir, args.python)
    if args.only:
        programs = [p for p in programs if re.search(args.only, p["name"])]
    os.makedirs(args.out, exist_ok=True)
    log = open(os.path.join(args.out, "real_programs_runs.log"), "w")
    stats = open(os.path.join(args.out, "real_programs_stats.txt"), "w")
    failures, skipped, results = [], [], []
    if not args.lib:
        failures.append("no libacs.so (--lib or ACS_LIB): native runs only")
    print(f"== real programs: {len(programs)} programs, modes {','.join(mode_names)}, {args.reps or 'manifest'} reps"
          f"{', no GPU' if not gpu else ''}", flush=True)

    for prog in programs:
        if args.deadline is not None and time.monotonic() - t_start >= args.deadline:
            skipped.append(f"{prog['name']} (deadline {args.deadline:.0f} s reached)")
            results += summarise(prog, mode_names, [], "skipped")
            continue
        exe = prog["cmd"][0]
        absent = [p for p in ([exe] if os.sep in exe else []) + prog["requires"] if not os.path.exists(p)]
        if absent:
            failures.append(f"{prog['name']}: missing {', '.join(absent)}")
            results += summarise(prog, mode_names, [], "missing")
            print(f"  {prog['name']:<28} MISSING {', '.join(absent)}", flush=True)
            continue
        timeout = float(prog.get("timeout", args.timeout))
        reps = args.reps or int(prog.get("reps", 3))
        runs, problems, cut = [], {}, {}
        t_prog = time.monotonic()
        plan = []
        for rep in range(reps):
            plan += [(m, rep) for m in (mode_names if rep % 2 == 0 else mode_names[::-1])]
        plan += [(m, reps) for m in stats_modes(args)]
        planned = collections.Counter(m for m, _ in plan)
        for mode, rep in plan:
            env = dict(mode_envs.get(mode, {}))
            left = None if args.hard_deadline is None else args.hard_deadline - (time.monotonic() - t_start)
            if left is not None and left < 1:
                run = {"rc": None, "status": NOT_RUN, "wall_ms": None, "stdout": "", "stderr": ""}
            else:
                host_ms = host_speed_ms(cpus)
                clamped = left is not None and left < timeout
                run = run_once(prog, env, left if clamped else timeout, cpus)
                run["host_ms"] = host_ms
                if clamped and run["status"].startswith("timeout") and not hung(run, runs):
                    # The command's time ran out, not the program's own limit: says nothing of acs.
                    run["status"] = f"{CUT} after {left:.0f} s"
            rows = results_of(prog, run)
            runs.append((mode, run, rows))
            log.write(f"### {prog['name']} {mode} rep {rep}: {run['status']}, {fmt(run['wall_ms'], 0)} ms wall, "
                      f"host loop {fmt(run.get('host_ms'), 2)} ms\n"
                      f"$ {' '.join(f'{k}={shlex.quote(v)}' for k, v in {**prog['env'], **env}.items())} "
                      f"{shlex.join(prog['cmd'])}\n"
                      f"--- stdout (tail)\n{run['stdout'][-LOG_TAIL:]}\n--- stderr (tail)\n{run['stderr'][-LOG_TAIL:]}\n")
            log.flush()
            for line in run["stderr"].splitlines():
                if line.startswith("acs-stats:") and mode in stats_modes(args):
                    where = "" if mode == "acs_stats" else f" ({mode[:-len('_stats')]})"
                    stats.write(f"{prog['name']}{where}: {line}\n")
            stats.flush()
            if mode in stats_modes(args) and cut_short(run):
                skipped.append(f"{prog['name']}: its ACS_STATS=1 pass ({mode}) {run['status']}")
            elif cut_short(run):
                cut.setdefault(mode, []).append(run["status"])
            elif run["status"] != "ok" or any(r["error"] for r in rows.values()):
                why = "; ".join([run["status"]] * (run["status"] != "ok") +
                                [f"{n}: {r['error']}" for n, r in rows.items() if r["error"]])
                tail = [l for l in run["stderr"].strip().splitlines() if not l.startswith("acs-stats:")]
                tail = tail[-1][:160] if tail else ""
                problems.setdefault(mode, []).append(why + (f" (stderr: {tail})" if tail else ""))
        if problems:  # one line per program: the modes that failed, grouped by their first reason
            by_reason = {}
            for m, p in problems.items():
                by_reason.setdefault(p[0], []).append(f"{m} {len(p)}/{planned[m]}")
            failures.append(f"{prog['name']}: " + "; ".join(
                f"{', '.join(ms)} runs: {why}" for why, ms in by_reason.items()))
        if cut:  # the command's hard deadline, not a failure: what ran still counts
            skipped.append(f"{prog['name']}: " + ", ".join(
                f"{m} {len(c)}/{planned[m]}" for m, c in cut.items()) +
                " runs cut by the hard deadline (not run, or stopped when the command's time ran out)")
        summary = summarise(prog, mode_names, runs, extra_modes=stats_modes(args))
        results += summary
        for r in summary:
            n = r["modes"].get("native", {}).get("estimate_ms")
            a = r["modes"].get("acs", {}).get("estimate_ms")
            print(f"  {r['program']:<28} {r['suite']:<14} native {fmt(n):>9} ms  acs {fmt(a):>9} ms  "
                  f"x{fmt(ratio(n, a), 2) or '–':<5} identical {r['identical']}", flush=True)
        print(f"  ({prog['name']}: {len(plan)} runs in {time.monotonic() - t_prog:.0f} s)", flush=True)

    meta = args.meta or (gpu or "no GPU")
    described = []
    for m in mode_names:
        env = " ".join(f"{k}={v}" for k, v in mode_envs[m].items() if k != "LD_PRELOAD")
        described.append(f"{m} ({env or ('no preload' if m == 'native' else 'preload')})")
    reps_text = f"{args.reps} reps" if args.reps else "reps as in the manifests (default 3)"
    meta += f"; {reps_text}; modes: {', '.join(described)}"
    if cpus:
        meta += f"; every run pinned to CPUs {args.cpus}"
    if estimator != "median":
        meta += f"; ms: the {ESTIMATOR_WORDS[estimator]} of the repeats"
    md = write_outputs(args.out, results, mode_names, mode_envs, meta, failures, skipped)
    log.close()
    stats.close()
    print(f"== wrote {args.out}/real_programs.csv, real_programs_modes.csv, real_programs_stats.txt, "
          f"real_programs.md, real_programs_runs.log in {time.monotonic() - t_start:.0f} s\n")
    print(md, end="")
    bad = failures or skipped or any(r["identical"] not in ("yes",) for r in results)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
