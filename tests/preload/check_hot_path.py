#!/usr/bin/env python3
"""The functions every launch of a stepped-aside stream and every stream operation run lie
together in libacs.so (ACS_HOT, src/support/hot_path.hpp; docs/design.md, "The cost that counts
is the cold one"): where a program's own code evicts acs between two calls, each code page the
path touches is a TLB miss and its lines cache misses. Spread over their files' code they
crossed 26 pages; together they fit in a few. Fails when one of them is missing from the
library's symbols or lies outside a span of MAX_SPAN bytes around the others.

    check_hot_path.py LIBACS
"""
import re
import shutil
import subprocess
import sys

MAX_SPAN = 16 * 1024  # four pages; the path's functions took about 5 KiB when this was written
HOT = [
    "acs::dispatch_launch(",
    "acs::resolve_stream(",
    "acs::stream_mode::next_aside_launch(",
    "acs::(anonymous namespace)::issue_directly(",
    "acs::(anonymous namespace)::launch_aside(",
    "acs::(anonymous namespace)::note_reason(",
    "acs::active(",
    "acs::annotations::this_thread(",
    "acs::declared::discard_pending(",
    "acs::stream_barrier(",
    "acs::stream_work_begins(",
    "acs::launched_directly(",
    "acs::cuda_in_use(",
]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    if shutil.which("nm") is None:
        print("check_hot_path: SKIPPED: no nm (binutils) on this machine")
        sys.exit(77)
    out = subprocess.run(["nm", "-C", "-S", "--defined-only", sys.argv[1]], capture_output=True, text=True, check=True)
    found = {}
    for line in out.stdout.splitlines():
        m = re.match(r"([0-9a-f]+) ([0-9a-f]+) [tT] (.*)$", line)
        if not m or "[clone" in m.group(3):  # .cold clones hold the unlikely paths, elsewhere on purpose
            continue
        for name in HOT:
            if m.group(3).startswith(name):
                start, size = int(m.group(1), 16), int(m.group(2), 16)
                lo, hi = found.get(name, (start, start + size))
                found[name] = (min(lo, start), max(hi, start + size))
    missing = [n for n in HOT if n not in found]
    if missing:
        sys.exit(f"check_hot_path: not in the library's symbols: {missing}")
    lo = min(a for a, _ in found.values())
    hi = max(b for _, b in found.values())
    print(f"check_hot_path: {len(HOT)} functions in {hi - lo} bytes ({hex(lo)}-{hex(hi)})")
    if hi - lo > MAX_SPAN:
        far = sorted(found.items(), key=lambda kv: kv[1][0])
        for name, (a, b) in far:
            print(f"  {hex(a)} {b - a:6d} {name}", file=sys.stderr)
        sys.exit(f"check_hot_path: the path spans {hi - lo} bytes, more than {MAX_SPAN}: one of them left .text.hot")


if __name__ == "__main__":
    main()
