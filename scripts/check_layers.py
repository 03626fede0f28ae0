#!/usr/bin/env python3
"""Rejects include edges that cross the library's layers the wrong way.

Every quoted include in the library must be rooted at the repository ("scheduler/window.hpp")
and name a header of its own layer or of one below it. Layers, lowest first (docs/design.md):

    scheduler/                   schedule and issue; includes nothing of acs outside itself
    src/trace/                   tracing
    src/support/                 settings, log, statistics
    annotations/inferred/        footprints inferred from the launch
    annotations/declared/        footprints the program declared (and include/acs/acs.h)
    interpose/ real functions    real_dl, real_driver, hooks_table.inc
    src/runtime/                 acs's runtime policy and the CUDA backend
    interpose/ hooks             everything else in interpose/

The build enforces the same order (cmake/layers.cmake: each target sees only the headers of
the targets it links); this check also covers headers no target compiles yet, and says which
edge is wrong in words. Usage: check_layers.py [REPO]; exit 1 on a violation.
"""
import pathlib
import re
import sys

REAL = {"interpose/real_dl.hpp", "interpose/real_dl.cpp", "interpose/real_driver.hpp",
        "interpose/real_driver.cpp", "interpose/hooks_table.inc"}
ORDER = ["scheduler", "src/trace", "src/support", "annotations/inferred", "annotations/declared",
         "interpose/real", "src/runtime", "interpose/hooks"]
# Each layer may include itself and the layers listed (everything below it, by default).
ALLOWED = {layer: set(ORDER[: i + 1]) for i, layer in enumerate(ORDER)}
ALLOWED["annotations/declared"].add("include")
ALLOWED["src/runtime"].add("include")
ALLOWED["interpose/hooks"].add("include")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(path: str):
    if path in REAL:
        return "interpose/real"
    if path.startswith("interpose/"):
        return "interpose/hooks"
    if path.startswith("include/"):
        return "include"
    for layer in ORDER:
        if path.startswith(layer + "/"):
            return layer
    return None


def main() -> int:
    repo = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    problems = []
    files = 0
    for folder in ["scheduler", "src", "annotations", "interpose"]:
        for f in sorted((repo / folder).rglob("*")):
            if f.suffix not in {".hpp", ".cpp", ".inc", ".h"}:
                continue
            rel = f.relative_to(repo).as_posix()
            own = layer_of(rel)
            if own is None:
                problems.append(f"{rel}: in no layer (add its folder to scripts/check_layers.py)")
                continue
            files += 1
            for target in INCLUDE.findall(f.read_text(errors="replace")):
                if target.startswith("acs/"):
                    target = "include/" + target
                to = layer_of(target)
                if to is None or not (repo / target).exists():
                    problems.append(f"{rel}: #include \"{target}\" is not rooted at the repository")
                elif to not in ALLOWED[own]:
                    problems.append(f"{rel} ({own}) includes {target} ({to}): a layer above it")
    for p in problems:
        print("check_layers:", p)
    print(f"check_layers: {files} files, {len(problems)} forbidden include edge(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
