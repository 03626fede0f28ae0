"""acs doctor: what acs would find on this machine, and which kernels of a program
carry PTX (what acs's inference can read)."""
import ctypes
import os
import re
import shutil
import subprocess

from . import _library
from ._version import __version__

SHOWN_KERNELS = 40  # per file, without --all


def _tool(name):
    """A CUDA toolkit program: on PATH, else in $CUDA_HOME, $CUDA_PATH or /usr/local/cuda."""
    found = shutil.which(name)
    if found:
        return found
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root and os.access(os.path.join(root, "bin", name), os.X_OK):
            return os.path.join(root, "bin", name)
    return None


def _output(args, timeout=60):
    try:
        r = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, str(e)
    return r.returncode, (r.stdout + r.stderr).strip()


def driver_lines():
    """The NVIDIA driver and whether a GPU is visible, through libcuda itself."""
    lines = []
    try:
        with open("/proc/driver/nvidia/version", encoding="utf-8") as f:
            lines.append("kernel driver: " + f.readline().strip())
    except OSError:
        lines.append("kernel driver: none loaded (no /proc/driver/nvidia/version)")
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        lines.append("libcuda.so.1: not found (the NVIDIA driver's library is not installed)")
        lines.append("GPU: no GPU visible: without one, acs passes every CUDA call straight through")
        return lines
    version = ctypes.c_int(0)
    cuda.cuDriverGetVersion(ctypes.byref(version))
    lines.append(f"libcuda.so.1: CUDA {version.value // 1000}.{version.value % 1000 // 10} driver API")
    status = cuda.cuInit(0)
    count = ctypes.c_int(0)
    if status == 0:
        cuda.cuDeviceGetCount(ctypes.byref(count))
    if status != 0 or count.value == 0:
        why = f"cuInit returned CUDA error {status}" if status else "no device"
        lines.append(f"GPU: no GPU visible ({why})")
        return lines
    names = []
    for i in range(count.value):
        device, name = ctypes.c_int(0), ctypes.create_string_buffer(256)
        cuda.cuDeviceGet(ctypes.byref(device), i)
        cuda.cuDeviceGetName(name, 256, device)
        names.append(name.value.decode(errors="replace"))
    lines.append(f"GPU: {count.value} visible: {', '.join(names)}")
    return lines


def tool_lines():
    lines = []
    smi = shutil.which("nvidia-smi")
    if smi:
        _, text = _output([smi, "--query-gpu=index,name,driver_version", "--format=csv,noheader"], 20)
        lines.append(f"nvidia-smi: {text.splitlines()[0] if text else '(no output)'}")
    else:
        lines.append("nvidia-smi: not found")
    nvcc = _tool("nvcc")
    if nvcc:
        _, text = _output([nvcc, "--version"])
        release = [l for l in text.splitlines() if "release" in l]
        lines.append(f"CUDA toolkit: {release[-1].strip() if release else text} ({nvcc})")
    else:
        lines.append("CUDA toolkit: not found (no nvcc on PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin)")
    cuobjdump = _tool("cuobjdump")
    lines.append(f"cuobjdump: {cuobjdump}" if cuobjdump else
                 "cuobjdump: not found, so `acs doctor FILE` cannot list kernels and their PTX")
    return lines


_ARCH = re.compile(r"^arch = (\S+)")
_ENTRY = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([^\s(]+)")
_FUNCTION = re.compile(r"^\s*Function (\S+):\s*$")


def _scan(lines, pattern, kernels, kind):
    """Adds to kernels[name][kind] the arch of every match, in cuobjdump's sections."""
    arch = "?"
    for line in lines:
        m = _ARCH.match(line)
        if m:
            arch = m.group(1)
            continue
        m = pattern.match(line)
        if m:
            kernels.setdefault(m.group(1), {"ptx": set(), "sass": set()})[kind].add(arch)


def kernels_of(cuobjdump, path):
    """{kernel: {"ptx": archs, "sass": archs}} from `cuobjdump -ptx` and `-res-usage`."""
    kernels = {}
    for flag, pattern, kind in (("-ptx", _ENTRY, "ptx"), ("-res-usage", _FUNCTION, "sass")):
        with subprocess.Popen([cuobjdump, flag, path], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, errors="replace") as p:
            _scan(p.stdout, pattern, kernels, kind)  # streamed: a big library's PTX is large
    return kernels


def _demangled(names):
    cxxfilt = shutil.which("c++filt")
    if not cxxfilt or not names:
        return names
    r = subprocess.run([cxxfilt], input="\n".join(names), capture_output=True, text=True)
    out = r.stdout.splitlines()
    return out if r.returncode == 0 and len(out) == len(names) else names


def file_lines(path, show_all=False):
    """(lines, ok) for one binary or shared library."""
    if not os.path.isfile(path):
        return [f"{path}: no such file"], False
    cuobjdump = _tool("cuobjdump")
    if not cuobjdump:
        return [f"{path}: cannot list its kernels: cuobjdump is not here (it comes with the CUDA "
                "toolkit: put the toolkit's bin/ on PATH or set CUDA_HOME)"], False
    listed = {}
    for flag in ("--list-elf", "--list-ptx"):
        _, text = _output([cuobjdump, flag, path], None)
        listed[flag] = sorted({m.group(1) for m in re.finditer(r"\.(sm_\w+|compute_\w+)\.(?:cubin|ptx)", text)})
        if "does not contain device code" in text:
            return [f"{path}: no CUDA device code"], True
    kernels = kernels_of(cuobjdump, path)
    with_ptx = sorted(k for k, v in kernels.items() if v["ptx"])
    lines = [f"{path}: machine code for {', '.join(listed['--list-elf']) or 'no architecture'}; "
             f"PTX for {', '.join(listed['--list-ptx']) or 'no architecture'}",
             f"  {len(kernels)} kernels, {len(with_ptx)} with PTX: acs reads it to prove which pointer "
             "arguments a kernel never writes through; without it every pointer argument counts as written"]
    names = sorted(kernels, key=lambda k: (not kernels[k]["ptx"], k))
    shown = names if show_all else names[:SHOWN_KERNELS]
    if shown:
        lines.append(f"  {'PTX':<16} {'SASS':<16} kernel")
    for name, readable in zip(shown, _demangled(shown)):
        v = kernels[name]
        lines.append(f"  {','.join(sorted(v['ptx'])) or '-':<16} {','.join(sorted(v['sass'])) or '-':<16} {readable}")
    if len(names) > len(shown):
        lines.append(f"  ... {len(names) - len(shown)} more (acs doctor --all {path})")
    return lines, True


def report(files=(), lib=None, command=None, show_all=False, out=print):
    """Prints the report; returns 0, or 1 when a file asked about could not be read."""
    out(f"acs {__version__}" + (f" ({command})" if command else ""))
    try:
        path, origin = _library.find(lib, command)
        out(f"libacs.so: {path} ({origin})")
    except _library.LibraryNotFound as e:
        out("libacs.so: " + str(e).splitlines()[0] + " (acs doctor --lib PATH, or see acs run --help)")
    for line in driver_lines() + tool_lines():
        out(line)
    status = 0
    for f in files:
        lines, ok = file_lines(f, show_all)
        for line in lines:
            out(line)
        status = status if ok else 1
    return status
