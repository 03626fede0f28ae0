#!/usr/bin/env python3
"""Lists the CUDA entry points that are ordered on a stream, from the toolkit's headers (and those
that decide whether a launch succeeds).

An entry point is listed when the library exports it (libcuda stub, libcudart) and
its prototype, in any of the header's API modes (default, per-thread default
stream, internal versioned names), either
  * takes a stream by value (CUstream / cudaStream_t, not a pointer to one), or a
    struct that carries one (launch configs, graph instantiate params): `stream`;
  * or is a synchronous copy or memset, ordered on the implicit default stream:
    `implicit`;
  * or sets what decides whether a kernel launch succeeds (a function's or kernel's
    attributes and configuration, the context's limits and cache configuration):
    `function_config`. acs must see those before they change (docs/design.md rule 6).

Output, one per line: `<api> <name> <category>`, api being driver or runtime.
interpose/hooks_table.inc must list every one of them (tests/preload checks it).

Usage: list_stream_entry_points.py [--cuda-root /usr/local/cuda] [--include-dir DIR]
         [--driver-library stubs/libcuda.so] [--runtime-library libcudart.so] [--cxx c++]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

STREAM_STRUCTS = (
    "CUlaunchConfig", "CUDA_LAUNCH_PARAMS", "CUDA_GRAPH_INSTANTIATE_PARAMS",
    "cudaLaunchConfig_t", "cudaLaunchParams", "cudaGraphInstantiateParams",
)
STREAM_BY_VALUE = re.compile(r"\b(CUstream|cudaStream_t)\b(?!\s*\*)")
STREAM_STRUCT = re.compile(r"\b(" + "|".join(STREAM_STRUCTS) + r")\s*\*")
IMPLICIT = re.compile(r"^(cuMemcpy|cuMemset|cudaMemcpy|cudaMemset)(?!.*Async)")
FUNCTION_CONFIG = re.compile(r"^(cu|cuda)(Func|Kernel)Set\w+$|^(cuCtx|cudaDevice)Set(Limit|CacheConfig|SharedMemConfig)$")
PROTOTYPE = re.compile(r"\b(CUresult|cudaError_t)\s+(?:CUDAAPI\s+|CUDARTAPI\s+)?(_*cu\w+)\s*\(([^;{}]*?)\)\s*[;{]")


def preprocess(cxx, include_dir, header, defines):
    with tempfile.NamedTemporaryFile("w", suffix=".cpp", delete=False) as src:
        src.write(f"#include <{header}>\n")
        path = src.name
    try:
        out = subprocess.run([cxx, "-E", "-P", "-x", "c++", f"-I{include_dir}", *defines, path],
                             check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(path)
    return out


def prototypes(text):
    flat = re.sub(r"\s+", " ", text)
    return {m.group(2): m.group(3) for m in PROTOTYPE.finditer(flat)}


def exports(library):
    out = subprocess.run(["nm", "-D", "--defined-only", library], check=True,
                         capture_output=True, text=True).stdout
    return {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}


def find_library(cuda_root, names):
    for sub in ("lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"):
        for name in names:
            path = os.path.join(cuda_root, sub, name)
            if os.path.exists(path):
                return path
    sys.exit(f"list_stream_entry_points: none of {names} under {cuda_root}")


def classify(name, params):
    if STREAM_BY_VALUE.search(params) or STREAM_STRUCT.search(params):
        return "stream"
    if IMPLICIT.match(name):
        return "implicit"
    if FUNCTION_CONFIG.match(name):
        return "function_config"
    return None


def collect(cxx, include_dir, header, modes, exported, extra_text=""):
    found = {}
    for defines in modes:
        found.update(prototypes(preprocess(cxx, include_dir, header, defines)))
    found.update(prototypes(extra_text))
    result = {}
    for name, params in found.items():
        category = classify(name, params)
        if category and name in exported:
            result[name] = category
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuda-root", default=os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    parser.add_argument("--include-dir", help="default: <cuda-root>/include")
    parser.add_argument("--driver-library", help="default: the toolkit's stubs/libcuda.so")
    parser.add_argument("--runtime-library", help="default: the toolkit's libcudart.so")
    parser.add_argument("--cxx", default=os.environ.get("CXX", "c++"))
    args = parser.parse_args()
    include_dir = args.include_dir or os.path.join(args.cuda_root, "include")
    driver_library = args.driver_library or find_library(args.cuda_root, ["stubs/libcuda.so"])
    runtime_library = args.runtime_library or find_library(args.cuda_root, ["libcudart.so"])

    driver = collect(args.cxx, include_dir, "cuda.h",
                     [[], ["-DCUDA_API_PER_THREAD_DEFAULT_STREAM"], ["-D__CUDA_API_VERSION_INTERNAL"]],
                     exports(driver_library))
    # __cudaLaunchKernel & co. are declared for nvcc only (__CUDACC__): read them as text.
    with open(os.path.join(include_dir, "crt", "device_functions.h")) as f:
        launch_text = f.read()
    runtime = collect(args.cxx, include_dir, "cuda_runtime_api.h",
                      [[], ["-DCUDA_API_PER_THREAD_DEFAULT_STREAM"]],
                      exports(runtime_library), launch_text)
    for api, table in (("driver", driver), ("runtime", runtime)):
        for name in sorted(table):
            print(api, name, table[name])


if __name__ == "__main__":
    main()
