#!/usr/bin/env python3
"""Every shell command shown in README.md is run here, or listed as not run.

The convention (README.md and tests/docs/readme_commands.txt):
- commands go in fenced blocks marked ```sh (or ```bash, ```shell); every line
  of such a block is a command (a trailing backslash continues it; blank lines
  and # comments are skipped; no "$ " prompts). Other blocks are not read.
- a command listed in readme_commands.txt, with a reason (gpu, long, system),
  is not run; every other one is, and must exit 0. A listed command that the
  README no longer shows fails the test, so the list cannot go stale.
- how they run: each block's commands in order, as one bash script (set -e), in a
  scratch copy of the repository's root (links to its files), whose build/ is the
  build under test, with HOME inside the scratch folder, `acs` on PATH (scripts/acs)
  and python/ on PYTHONPATH. Placeholders: /path/to/build is that build/;
  ./your_app and ./app are a stand-in program that fails when LD_PRELOAD is set
  but no libacs.so was loaded into it (a wrong path only gets a warning from ld.so).

Usage: check_readme_commands.py README.md BUILD_DIR [NOT_RUN_LIST]
(default list: readme_commands.txt beside this script)
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SHELLS = {"sh", "bash", "shell"}
REASONS = {"gpu", "long", "system"}
STAND_IN = """#!/bin/sh
# README stand-in for a CUDA program (tests/docs/check_readme_commands.py).
if [ -n "${LD_PRELOAD:-}" ] && ! grep -q libacs.so /proc/$$/maps; then
  echo "stand-in: LD_PRELOAD=$LD_PRELOAD, but no libacs.so was loaded" >&2
  exit 1
fi
echo "stand-in ran$( grep -q libacs.so /proc/$$/maps && echo ' under libacs.so')"
"""


def normalized(command):
    return " ".join(command.split())


def shell_blocks(text):
    """[(line number, [commands])] of README's shell blocks."""
    blocks, current, start, joined = [], None, 0, ""
    for number, line in enumerate(text.splitlines(), 1):
        fence = re.match(r"^\s*```\s*([\w+-]*)", line)
        if current is None:
            if fence and fence.group(1) in SHELLS:
                current, start = [], number
            continue
        if fence and not fence.group(1):
            blocks.append((start, current))
            current = None
            continue
        joined += line.rstrip()
        if joined.endswith("\\"):
            joined = joined[:-1] + " "
            continue
        command, joined = joined.strip(), ""
        if command and not command.startswith("#"):
            current.append(normalized(command))
    return blocks


def not_run(path):
    listed = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            reason, sep, command = line.partition(":")
            if not sep or reason.strip() not in REASONS:
                sys.exit(f"FAIL: {path}:{number}: expected 'REASON: COMMAND' with REASON one of {sorted(REASONS)}")
            listed[normalized(command)] = reason.strip()
    return listed


def sandbox(repo, build, root):
    for name in os.listdir(repo):
        if name != "build" and not name.startswith("."):
            os.symlink(os.path.join(repo, name), os.path.join(root, name))
    os.symlink(os.path.abspath(build), os.path.join(root, "build"))
    os.makedirs(os.path.join(root, "bin"))
    os.symlink(os.path.join(repo, "scripts", "acs"), os.path.join(root, "bin", "acs"))
    os.makedirs(os.path.join(root, "home"))
    for name in ("your_app", "app"):
        with open(os.path.join(root, name), "w") as f:
            f.write(STAND_IN)
        os.chmod(os.path.join(root, name), 0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACS_") and k != "LD_PRELOAD"}
    env.update(HOME=os.path.join(root, "home"), PYTHONPATH=os.path.join(root, "python"),
               PATH=os.path.join(root, "bin") + os.pathsep + os.environ["PATH"])
    return env


def main():
    readme, build = sys.argv[1], sys.argv[2]
    listed = not_run(sys.argv[3] if len(sys.argv) > 3 else os.path.join(HERE, "readme_commands.txt"))
    repo = os.path.dirname(os.path.dirname(HERE))
    with open(readme, encoding="utf-8") as f:
        blocks = shell_blocks(f.read())
    shown = {c for _, commands in blocks for c in commands}
    stale = sorted(set(listed) - shown)
    if stale:
        sys.exit("FAIL: readme_commands.txt lists commands README.md no longer shows: " + "; ".join(stale))
    failures, ran = [], 0
    with tempfile.TemporaryDirectory() as root:
        env = sandbox(repo, build, root)
        for line, commands in blocks:
            todo = [c for c in commands if c not in listed]
            for c in commands:
                if c in listed:
                    print(f"README.md:{line}: not run ({listed[c]}): {c}")
            if not todo:
                continue
            script = "\n".join(c.replace("/path/to/build", os.path.join(root, "build")) for c in todo)
            r = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=root, env=env,
                               capture_output=True, text=True, timeout=300)
            ran += len(todo)
            status = "ok" if r.returncode == 0 else f"FAILED (exit {r.returncode})"
            print(f"README.md:{line}: {status}: " + " && ".join(todo))
            if r.returncode != 0:
                failures.append(line)
                print(r.stdout + r.stderr)
    print(f"{ran} README commands run, {len(shown) - ran} listed as not run, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
