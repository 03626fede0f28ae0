#!/usr/bin/env python3
"""Checks interpose/hooks_table.inc against the CUDA headers and libraries.

  * every entry point that the headers show ordered on a stream (scripts/list_stream_entry_points.py)
    is in the table, with some kind (`pass` included: then it is a documented decision);
  * every synchronous copy/memset is a legacy_barrier (the peer copies a peer_barrier);
  * every setter of what decides a launch's success (function attributes, context limits) is a
    function_config: acs drains its deferred launches before such a change;
  * kinds that report a stream are only given to entry points that take one;
  * every table symbol is exported by the library it belongs to (no typo can hide);
  * a _ptsz/_ptds twin has the kind of its base entry point; no symbol is listed twice.

Usage: check_hook_table.py --dump <hook_table_dump> --lister scripts/list_stream_entry_points.py
                           [--include-dir ...] [--driver-library ...] [--runtime-library ...]
"""
import argparse
import re
import subprocess
import sys

STREAM_KINDS = {"barrier", "sync", "stream_destroy", "capture_begin", "capture_end", "cooperative", "launch"}


def exports(library):
    out = subprocess.run(["nm", "-D", "--defined-only", library], check=True, capture_output=True,
                         text=True).stdout
    return {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dump", required=True)
    parser.add_argument("--lister", required=True)
    parser.add_argument("--include-dir")
    parser.add_argument("--driver-library")
    parser.add_argument("--runtime-library")
    args = parser.parse_args()

    lister = [sys.executable, args.lister]
    for option in ("include_dir", "driver_library", "runtime_library"):
        if getattr(args, option):
            lister += ["--" + option.replace("_", "-"), getattr(args, option)]
    headers = {}
    for line in subprocess.run(lister, check=True, capture_output=True, text=True).stdout.splitlines():
        api, symbol, category = line.split()
        headers[(api, symbol)] = category

    table = {}
    problems = []
    for line in subprocess.run([args.dump], check=True, capture_output=True, text=True).stdout.splitlines():
        api, symbol, kind = line.split()
        if (api, symbol) in table:
            problems.append(f"listed twice: {symbol}")
        table[(api, symbol)] = kind

    for (api, symbol), category in sorted(headers.items()):
        kind = table.get((api, symbol))
        if kind is None:
            problems.append(f"not in the table: {api} {symbol} ({category})")
        elif category == "implicit" and kind not in ("legacy_barrier", "peer_barrier"):
            problems.append(f"{symbol}: a synchronous copy/memset must be legacy_barrier, not {kind}")
        elif category == "implicit" and (kind == "peer_barrier") != ("Peer" in symbol):
            problems.append(f"{symbol}: synchronous peer copies, and only they, are peer_barrier, not {kind}")
        elif category == "function_config" and kind != "function_config":
            problems.append(f"{symbol}: it decides whether launches succeed: function_config, not {kind}")

    libraries = {}
    if args.driver_library:
        libraries["driver"] = exports(args.driver_library)
    if args.runtime_library:
        libraries["runtime"] = exports(args.runtime_library)
    for (api, symbol), kind in sorted(table.items()):
        if api in libraries and symbol not in libraries[api]:
            problems.append(f"{symbol}: not exported by the {api} library")
        if kind == "function_config" and headers.get((api, symbol)) != "function_config":
            problems.append(f"{symbol}: function_config, but the headers show no such setter")
        if kind in STREAM_KINDS and headers.get((api, symbol)) not in ("stream", None):
            problems.append(f"{symbol}: kind {kind} but the headers show no stream argument")
        base = re.sub(r"_pt(sz|ds)$", "", symbol)
        if base != symbol and (api, base) in table and table[(api, base)] != kind:
            problems.append(f"{symbol} is {kind} but {base} is {table[(api, base)]}")

    print(f"{len(headers)} stream-ordered entry points in the headers, {len(table)} table lines")
    for p in problems:
        print("FAIL", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
