#!/usr/bin/env python3
"""Checks that libacs.so carries its C++ runtime inside: no DT_NEEDED on libstdc++ or libgcc_s, so
that it loads into processes that bring another one (conda environments, older distributions).

Usage: check_needed.py LIBRARY
"""
import re
import subprocess
import sys

FORBIDDEN = re.compile(r"^(libstdc\+\+|libgcc_s)\.so")


def main():
    out = subprocess.run(["readelf", "-d", sys.argv[1]], check=True, capture_output=True, text=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)
    print("NEEDED:", " ".join(needed))
    bad = [n for n in needed if FORBIDDEN.match(n)]
    for n in bad:
        print("FAIL: libacs.so needs", n)
    return 1 if bad or not needed else 0


if __name__ == "__main__":
    sys.exit(main())
