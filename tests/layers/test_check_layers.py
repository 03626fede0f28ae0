#!/usr/bin/env python3
"""scripts/check_layers.py must reject an upward include and an unrooted one, and accept the
repository as it is (run separately as layers.include_graph)."""
import pathlib
import shutil
import subprocess
import sys
import tempfile

repo = pathlib.Path(sys.argv[1])
checker = repo / "scripts" / "check_layers.py"


def run(tree: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(checker), str(tree)], capture_output=True, text=True)


def copy_tree(dst: pathlib.Path) -> None:
    for folder in ["scheduler", "src", "annotations", "interpose", "include"]:
        shutil.copytree(repo / folder, dst / folder)


failures = []
cases = {
    "scheduler includes the runtime": ("scheduler/window.hpp", '#include "src/runtime/dispatch.hpp"\n'),
    "inference includes the hooks' real table": ("annotations/inferred/fatbin.cpp", '#include "interpose/real_driver.hpp"\n'),
    "support includes annotations": ("src/support/config.cpp", '#include "annotations/declared/declared.hpp"\n'),
    "runtime includes a hook header": ("src/runtime/streams.cpp", '#include "interpose/hooks_guard.hpp"\n'),
    "an unrooted include": ("src/runtime/streams.cpp", '#include "devices.hpp"\n'),
}
for name, (path, line) in cases.items():
    with tempfile.TemporaryDirectory() as d:
        tree = pathlib.Path(d)
        copy_tree(tree)
        target = tree / path
        target.write_text(line + target.read_text())
        r = run(tree)
        if r.returncode == 0:
            failures.append(f"{name}: accepted ({r.stdout.strip()})")
        elif path not in r.stdout:
            failures.append(f"{name}: rejected without naming {path}: {r.stdout.strip()}")
for f in failures:
    print("FAIL:", f)
print("PASS" if not failures else f"{len(failures)} case(s) failed")
sys.exit(1 if failures else 0)
