#!/usr/bin/env python3
"""Draws an acs trace (the Chrome-trace JSON written with ACS_TRACE=path.json) as a timeline PNG.

One lane per CUDA stream: acs's pool streams first ("pool stream N"), then the
application's own streams. Kernels are coloured by the application (virtual)
stream they were issued on; kernels acs did not dispatch (passed through, or
run with ACS_DISABLE=1) are grey; memcpys and memsets are hatched. Dependency
edges (the trace's flow events) are drawn as arrows, and a lower panel shows
the "kernels running" and "window occupancy" counters.

Usage: plot_trace.py TRACE.json [--output timeline.png] [--title TEXT]
                     [--start-us T] [--end-us T] [--no-arrows] [--width INCHES] [--dpi N]
Needs matplotlib (Debian: python3-matplotlib). Exit status: 0 written, 1 bad
trace, 2 bad arguments, 3 matplotlib missing.
"""
import argparse
import json
import os
import sys

DIRECT = "#9e9e9e"
COPY = "#d9d9d9"
MAX_ARROWS = 2000


def load_events(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if isinstance(doc, list):  # the JSON array form of the format
        return doc, {}
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        raise ValueError("no traceEvents array")
    return doc["traceEvents"], doc.get("otherData") or {}


class Trace:
    """Slices, lanes, flows and counters of one trace."""

    def __init__(self, events):
        self.lane_name, self.lane_order = {}, {}
        self.slices, self.counters, flow_from, flow_to = [], {}, {}, {}
        for e in events:
            ph, key = e.get("ph"), (e.get("pid", 0), e.get("tid", 0))
            if ph == "M" and e.get("name") == "thread_name":
                self.lane_name[key] = str(e.get("args", {}).get("name", key))
            elif ph == "M" and e.get("name") == "thread_sort_index":
                self.lane_order[key] = e.get("args", {}).get("sort_index", 0)
            elif ph == "X" and e.get("cat") in ("kernel", "memcpy", "memset"):
                self.slices.append(e)
            elif ph == "C":
                series = self.counters.setdefault((e.get("pid", 0), e.get("name", "")), [])
                for value in (e.get("args") or {}).values():
                    series.append((float(e.get("ts", 0)), float(value)))
                    break
            elif ph == "s":
                flow_from[e.get("id")] = (float(e.get("ts", 0)), key)
            elif ph == "f":
                flow_to[e.get("id")] = (float(e.get("ts", 0)), key)
        self.flows = [(flow_from[i], flow_to[i]) for i in flow_from if i in flow_to]
        keys = {(s.get("pid", 0), s.get("tid", 0)) for s in self.slices} | set(self.lane_name)
        pids = len({k[0] for k in keys})
        def label(k):
            name = self.lane_name.get(k, "stream %s" % k[1])
            return name if pids <= 1 else "GPU %s %s" % (k[0], name)
        self.lanes = sorted(keys, key=lambda k: (k[0], self.lane_order.get(k, 10**9), str(k[1])))
        self.labels = [label(k) for k in self.lanes]
        self.row = {k: i for i, k in enumerate(self.lanes)}


def vstream_colours(slices, cmap):
    """A colour per application stream, in order of first appearance."""
    order = []
    for s in sorted(slices, key=lambda s: s.get("ts", 0)):
        v = (s.get("args") or {}).get("vstream")
        if s.get("cat") == "kernel" and v is not None and v not in order:
            order.append(v)
    return {v: cmap(i % cmap.N) for i, v in enumerate(order)}


def plot(trace, other, args, plt):
    from matplotlib.patches import Patch

    cmap = plt.get_cmap("tab10")
    colours = vstream_colours(trace.slices, cmap)
    has_counters = bool(trace.counters)
    lanes = max(len(trace.lanes), 1)
    height = 1.2 + 0.32 * lanes + (1.6 if has_counters else 0)
    if has_counters:
        fig, (ax, cax) = plt.subplots(2, 1, sharex=True, figsize=(args.width, height),
                                      gridspec_kw={"height_ratios": [max(lanes, 3), 3]})
    else:
        fig, ax = plt.subplots(figsize=(args.width, height))
        cax = None

    def visible(t0, t1):
        return (args.start_us is None or t1 >= args.start_us) and (args.end_us is None or t0 <= args.end_us)

    # One broken_barh call per (lane, look): fast with many slices.
    groups = {}
    for s in trace.slices:
        t0, dur = float(s.get("ts", 0)), float(s.get("dur", 0))
        if not visible(t0, t0 + dur):
            continue
        a = s.get("args") or {}
        if s.get("cat") != "kernel":
            look = (COPY, "////")
        elif a.get("acs") == "dispatched" and a.get("vstream") in colours:
            look = (colours[a["vstream"]], None)
        else:
            look = (DIRECT, None)
        groups.setdefault((trace.row[(s.get("pid", 0), s.get("tid", 0))], look), []).append((t0, dur))
    for (row, (colour, hatch)), spans in groups.items():
        ax.broken_barh(spans, (row - 0.4, 0.8), facecolors=colour, edgecolors="black",
                       linewidth=0.3, hatch=hatch)

    if not args.no_arrows:
        for (t0, k0), (t1, k1) in trace.flows[:MAX_ARROWS]:
            if k0 in trace.row and k1 in trace.row and visible(min(t0, t1), max(t0, t1)):
                ax.annotate("", xy=(t1, trace.row[k1]), xytext=(t0, trace.row[k0]),
                            arrowprops={"arrowstyle": "->", "color": "#444444", "lw": 0.6, "alpha": 0.6})

    ax.set_yticks(range(len(trace.lanes)))
    ax.set_yticklabels(trace.labels, fontsize=8)
    ax.set_ylim(len(trace.lanes) - 0.5, -0.5)
    ax.grid(axis="x", linestyle=":", linewidth=0.5)
    if not trace.slices:
        ax.text(0.5, 0.5, "no GPU activity in this trace", transform=ax.transAxes, ha="center")

    legend = [Patch(facecolor=c, edgecolor="black", label="app stream %s" % v) for v, c in colours.items()]
    legend.append(Patch(facecolor=DIRECT, edgecolor="black", label="not dispatched by acs"))
    legend.append(Patch(facecolor=COPY, edgecolor="black", hatch="////", label="memcpy / memset"))
    ax.legend(handles=legend[:12], loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7, frameon=False)

    title = args.title or os.path.basename(args.trace)
    figures = []
    if "achieved_concurrency" in other:
        figures.append("achieved concurrency %.2f" % float(other["achieved_concurrency"]))
    if "busy_fraction" in other:
        figures.append("GPU busy %.0f%%" % (100 * float(other["busy_fraction"])))
    ax.set_title(title + ("  (" + ", ".join(figures) + ")" if figures else ""), fontsize=10)

    if cax is not None:
        for (pid, name), series in sorted(trace.counters.items()):
            series.sort()
            xs = [t for t, _ in series]
            ys = [v for _, v in series]
            label = name if len({p for p, _ in trace.counters}) <= 1 else "GPU %s %s" % (pid, name)
            cax.step(xs, ys, where="post", linewidth=0.9, label=label)
        cax.set_ylabel("count", fontsize=8)
        cax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7, frameon=False)
        cax.grid(linestyle=":", linewidth=0.5)
        cax.set_xlabel("time (µs from the first record)")
    else:
        ax.set_xlabel("time (µs from the first record)")
    if args.start_us is not None or args.end_us is not None:
        ax.set_xlim(left=args.start_us, right=args.end_us)
    fig.tight_layout()
    fig.savefig(args.output, dpi=args.dpi)
    plt.close(fig)


def main(argv=None):
    p = argparse.ArgumentParser(description="Timeline PNG of an acs trace (ACS_TRACE).")
    p.add_argument("trace", help="trace JSON written by acs (ACS_TRACE=path.json)")
    p.add_argument("-o", "--output", help="PNG to write (default: the trace's name with .png)")
    p.add_argument("--title", help="plot title (default: the trace's file name)")
    p.add_argument("--start-us", type=float, help="draw from this time on (µs)")
    p.add_argument("--end-us", type=float, help="draw up to this time (µs)")
    p.add_argument("--no-arrows", action="store_true", help="leave out dependency arrows")
    p.add_argument("--width", type=float, default=14.0, help="figure width in inches (default 14)")
    p.add_argument("--dpi", type=int, default=120, help="resolution (default 120)")
    args = p.parse_args(argv)
    if args.output is None:
        args.output = os.path.splitext(args.trace)[0] + ".png"

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_trace.py: matplotlib is missing (Debian: apt-get install python3-matplotlib)",
              file=sys.stderr)
        return 3
    try:
        events, other = load_events(args.trace)
        trace = Trace(events)
    except (OSError, ValueError, TypeError, AttributeError) as e:
        print("plot_trace.py: %s: not a readable trace: %s" % (args.trace, e), file=sys.stderr)
        return 1
    plot(trace, other, args, plt)
    print("plot_trace.py: wrote %s (%d slices, %d lanes)" % (args.output, len(trace.slices), len(trace.lanes)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
