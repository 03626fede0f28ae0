#!/usr/bin/env python3
"""Stands in for cuobjdump in the `acs doctor` tests: prints what the real one
printed for the same flag and file name (tests/data/cuobjdump/outputs.json)."""
import json
import os
import sys

data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "cuobjdump", "outputs.json")
with open(data, encoding="utf-8") as f:
    outputs = json.load(f)
if len(sys.argv) != 3:
    sys.exit(f"fake cuobjdump: expected FLAG FILE, got {sys.argv[1:]}")
flag, path = sys.argv[1], sys.argv[2]
out = outputs.get(f"{flag} {os.path.basename(path)}")
if out is None:
    sys.exit(f"fake cuobjdump: nothing recorded for {flag} {os.path.basename(path)}")
folder = os.path.dirname(path) or "."
sys.stdout.write(out["stdout"].replace("{dir}", folder))
sys.stderr.write(out["stderr"].replace("{dir}", folder))
sys.exit(out["rc"])
