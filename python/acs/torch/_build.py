"""Builds acs.torch's compiled part with PyTorch's own extension machinery.

torch.utils.cpp_extension.load() compiles python/acs/csrc/*.cpp on first use and caches the
library in $TORCH_EXTENSIONS_DIR (default ~/.cache/torch_extensions), rebuilding only when the
sources, the flags or PyTorch change. `python -m acs.torch build` does it ahead of time.

With a CUDA build of PyTorch and CUDA's headers findable (for c10/cuda/CUDACachingAllocator.h:
$CUDA_HOME, /usr/local/cuda, or the nvidia-cuda-runtime wheel that PyTorch depends on), the
caching allocator's blocks are tracked too; otherwise only the operator callbacks are built.
The library never links libacs.so: it reaches acs through include/acs/acs.h's run-time look-up.
"""
import glob
import os
import sys

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # .../acs
CSRC = os.path.join(_PACKAGE, "csrc")
SOURCES = ("torch_integration.cpp", "record_callbacks.cpp", "op_footprint.cpp", "allocator_tracker.cpp")


class BuildError(Exception):
    """The extension cannot be built here; the message says why."""


def acs_header_dir(environ=None):
    """The directory holding acs/acs.h: $ACS_INCLUDE, a copy bundled in the package, the
    source checkout's include/, or an installation's PREFIX/include."""
    environ = os.environ if environ is None else environ
    candidates = [environ.get("ACS_INCLUDE", ""), os.path.join(_PACKAGE, "include"),
                  os.path.join(os.path.dirname(os.path.dirname(_PACKAGE)), "include"),
                  os.path.join(sys.prefix, "include")]
    for d in candidates:
        if d and os.path.isfile(os.path.join(d, "acs", "acs.h")):
            return os.path.abspath(d)
    raise BuildError("acs/acs.h not found (looked in: " + ", ".join(c for c in candidates if c) +
                     "); set ACS_INCLUDE to the directory that holds acs/acs.h")


def cuda_header_dir(environ=None):
    """A directory with cuda_runtime_api.h, or None."""
    environ = os.environ if environ is None else environ
    roots = [environ.get("CUDA_HOME", ""), environ.get("CUDA_PATH", ""), "/usr/local/cuda"]
    candidates = [os.path.join(r, "include") for r in roots if r]
    for site in sys.path:  # the nvidia-cuda-runtime wheel PyTorch's CUDA builds depend on
        candidates += sorted(glob.glob(os.path.join(site, "nvidia", "cu*", "include")))
        candidates.append(os.path.join(site, "nvidia", "cuda_runtime", "include"))
    for d in candidates:
        if os.path.isfile(os.path.join(d, "cuda_runtime_api.h")):
            return d
    return None


def build_settings(torch_module=None, environ=None):
    """(name, sources, cflags, include dirs, ldflags, with_cuda) for cpp_extension.load."""
    import torch
    torch_module = torch_module or torch
    includes = [acs_header_dir(environ), CSRC]
    # NDEBUG as libtorch was built: some of its headers change a struct's layout without it
    # (RecordFunction's inputs_valid_), which would make this library read the wrong fields.
    cflags = ["-O2", "-DNDEBUG", "-Wall", "-Wno-unused-parameter"]
    ldflags = []
    cuda_inc = cuda_header_dir(environ) if getattr(torch_module.version, "cuda", None) else None
    with_cuda = cuda_inc is not None
    if with_cuda:
        includes.append(cuda_inc)
        cflags.append("-DACS_TORCH_WITH_CUDA")
        torch_lib = os.path.join(os.path.dirname(torch_module.__file__), "lib")
        ldflags += [f"-L{torch_lib}", "-lc10_cuda"]
    name = "acs_torch_cuda" if with_cuda else "acs_torch_cpu"
    sources = [os.path.join(CSRC, s) for s in SOURCES]
    return name, sources, cflags, includes, ldflags, with_cuda


def load(verbose=False):
    """The compiled module, built if needed (takes about a minute the first time)."""
    try:
        from torch.utils import cpp_extension
    except Exception as e:  # noqa: BLE001
        raise BuildError(f"PyTorch's extension machinery is not importable: {e}") from e
    name, sources, cflags, includes, ldflags, _ = build_settings()
    for s in sources:
        if not os.path.isfile(s):
            raise BuildError(f"missing source {s}")
    try:
        return cpp_extension.load(name=name, sources=sources, extra_cflags=cflags,
                                  extra_include_paths=includes, extra_ldflags=ldflags, verbose=verbose)
    except Exception as e:  # noqa: BLE001 - a compiler, ninja or a header missing: say which
        raise BuildError(f"building {name} failed: {e}") from e
