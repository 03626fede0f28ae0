#!/usr/bin/env python3
"""Fetches and builds the NVIDIA cuda-samples programs that cuda_samples.toml runs, unmodified,
into .real-src/ (git-ignored: fetched code is never committed), for the real-program benchmark.

    benchmarks/real/build_cuda_samples.py [--src PATH] [--out DIR] [--arch 90] [--jobs N]

--src   a cuda-samples clone (work tree or bare git directory) that holds the pinned commit;
        default: clone https://github.com/NVIDIA/cuda-samples (needs the network).
--out   where sources and programs go (default .real-src in the repository): the programs'
        folders and Common/ at the pinned commit, and the built programs in OUT/bin.

Each program is compiled with nvcc from the sources its own CMakeLists.txt names in
add_executable, for one architecture (SASS and its PTX: acs reads kernels' PTX), with the
samples' own flags (-O3 -std=c++17 --extended-lambda, Common/ on the include path) and the
CUDA libraries its target_link_libraries names (and FDTD3d's GPU_PROFILING, for its timing line). A binary whose name ends in _shared is linked
with -cudart shared (acs then sees runtime calls); the others with nvcc's default static cudart.
Exit status 0 when every program was built; failures are listed with their logs.
"""
import argparse
import concurrent.futures
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tomllib

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
URL = "https://github.com/NVIDIA/cuda-samples"
# CUDA:: targets of the samples' CMakeLists and the libraries they stand for.
# Defines a program needs for the timing line cuda_samples.toml reads: FDTD3d prints its throughput
# only when built with GPU_PROFILING (its sources' own switch).
DEFINES = {"FDTD3d": ["-DGPU_PROFILING"]}
LIBRARIES = {"cublas": "-lcublas", "cusparse": "-lcusparse", "cufft": "-lcufft", "curand": "-lcurand",
             "cusolver": "-lcusolver", "nvrtc": "-lnvrtc", "cuda_driver": "-lcuda"}


def manifest():
    with open(HERE / "cuda_samples.toml", "rb") as f:
        data = tomllib.load(f)
    commit = data["defaults"]["origin"].rsplit("@", 1)[1]
    programs = {}
    for p in data["program"]:
        binary = p["cmd"][0].replace("{bin}/", "")
        programs[binary] = p["path"]
    return commit, programs


def git_dir(src):
    """The git directory of a work tree or a bare clone."""
    out = subprocess.run(["git", "-C", str(src), "rev-parse", "--git-dir"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"build_cuda_samples: {src} is not a git clone ({out.stderr.strip()})")
    return (pathlib.Path(src) / out.stdout.strip()).resolve()


def export(gdir, commit, paths, out):
    """Writes the pinned commit's files under `paths` into `out` (git archive: no work tree needed)."""
    # Documentation (Word and PDF files, absent from partial clones) is not needed to build.
    archive = subprocess.run(["git", f"--git-dir={gdir}", "archive", "--format=tar", commit, *paths,
                              ":(exclude,glob)**/doc/**"], capture_output=True)
    if archive.returncode != 0:
        sys.exit(f"build_cuda_samples: commit {commit} is not in {gdir}: {archive.stderr.decode().strip()}")
    subprocess.run(["tar", "-x", "-C", str(out)], input=archive.stdout, check=True)


def sources_and_libraries(folder, binary):
    """What the sample's CMakeLists.txt compiles and links for its executable."""
    text = (folder / "CMakeLists.txt").read_text()
    target = binary.removesuffix("_shared")
    m = re.search(r"add_executable\(\s*" + re.escape(target) + r"\s+([^)]*)\)", text)
    if not m:
        raise RuntimeError(f"{folder}/CMakeLists.txt has no add_executable({target} ...)")
    sources = m.group(1).split()
    libs = []
    link = re.search(r"target_link_libraries\(\s*" + re.escape(target) + r"\s+([^)]*)\)", text)
    for word in (link.group(1).split() if link else []):
        name = word.removeprefix("CUDA::")
        if name in LIBRARIES:
            libs.append(LIBRARIES[name])
    return sources, libs


def build(nvcc, out, binary, path, arch):
    folder = out / path
    sources, libs = sources_and_libraries(folder, binary)
    cmd = [nvcc, "-O3", "-std=c++17", "--extended-lambda", "-Wno-deprecated-gpu-targets", f"-arch=sm_{arch}",
           "-I", str(out / "Common"), "-I", str(folder), "-I", str(folder / "inc"),
           *DEFINES.get(binary, []), *[str(folder / s) for s in sources], "-o", str(out / "bin" / binary), *libs]
    if binary.endswith("_shared"):
        cmd[1:1] = ["-cudart", "shared"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    log = out / "logs" / f"{binary}.log"
    log.write_text(" ".join(cmd) + "\n" + r.stdout + r.stderr)
    return binary, r.returncode == 0, log


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", help="a cuda-samples clone (default: clone " + URL + ")")
    ap.add_argument("--out", default=str(ROOT / ".real-src"))
    ap.add_argument("--arch", default=os.environ.get("CUDA_ARCH", "90"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not os.access(nvcc, os.X_OK):
        sys.exit("build_cuda_samples: nvcc not found (PATH or /usr/local/cuda/bin)")
    commit, programs = manifest()
    out = pathlib.Path(args.out).resolve()
    src = args.src
    if src is None:
        src = out / "clone"
        if not src.exists():
            subprocess.run(["git", "clone", "--bare", "--filter=blob:none", URL, str(src)], check=True)
    gdir = git_dir(src)
    for d in ("bin", "logs"):
        (out / d).mkdir(parents=True, exist_ok=True)
    export(gdir, commit, sorted(set(programs.values())) + ["Common", "LICENSE"], out)
    (out / "ORIGIN").write_text(f"{URL} at {commit}, BSD-3-Clause (LICENSE); built by {pathlib.Path(__file__).name}\n")
    failed = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
        jobs = [pool.submit(build, nvcc, out, b, p, args.arch) for b, p in programs.items()]
        for job in concurrent.futures.as_completed(jobs):
            binary, ok, log = job.result()
            print(f"  {binary}: {'built' if ok else 'FAILED (' + str(log) + ')'}", flush=True)
            if not ok:
                failed.append(binary)
    print(f"build_cuda_samples: {len(programs) - len(failed)} of {len(programs)} built in {out / 'bin'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
