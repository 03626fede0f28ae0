"""enable() / disable() / status(): the state of the acs.torch integration in this process."""
import ctypes
import os
import sys
import warnings

TRUSTED = ("aten", "prims", "torchvision")

_state = {"module": None, "status": "not enabled", "allocator": "not attached", "enabled": False}


def acs_state():
    """(loaded, active) of libacs.so in this process, without building anything."""
    try:
        process = ctypes.CDLL(None)
    except OSError:
        return False, False
    active = getattr(process, "acs_v1_active", None)
    if active is None:
        return False, False
    active.restype, active.argtypes = ctypes.c_int, []
    return True, bool(active())


def _warn(message):
    warnings.warn(f"acs.torch: {message}", RuntimeWarning, stacklevel=3)


def _attach_allocator(module):
    """Tracks the caching allocator's blocks from CUDA's (lazy) initialisation on."""
    import torch
    if not module.with_cuda:
        _state["allocator"] = "no CUDA in this build of the extension"
        return

    def attach():
        try:
            if torch.cuda.memory_allocated() > 0:
                _warn("CUDA tensors allocated before acs.torch was enabled count as whole "
                      "segments (no concurrency among them): import acs.torch first, or use ACS_TORCH=1")
            _state["allocator"] = module.attach_allocator()
        except Exception as e:  # noqa: BLE001 - never break CUDA's initialisation
            _state["allocator"] = f"unavailable: {e}"

    if torch.cuda.is_initialized():
        attach()
        return
    lazy_call = getattr(torch.cuda, "_lazy_call", None)
    if lazy_call is None:
        _state["allocator"] = "unavailable: torch.cuda._lazy_call is missing"
        return
    _state["allocator"] = "waiting for CUDA's initialisation"
    lazy_call(attach)


def enable(cpu_tensors=False, trusted=TRUSTED, verbose=False):
    """Declares each operator's tensors to acs, and the caching allocator's blocks. Does
    nothing (and builds nothing) unless libacs.so is loaded and active. True when enabled.
    `trusted`: namespaces whose schemas are trusted (operators of others are all memory).
    `cpu_tensors`: declare CPU tensors too (for tests on a CPU-only PyTorch)."""
    if _state["enabled"]:
        return True
    loaded, active = acs_state()
    if not loaded:
        _state["status"] = "acs not loaded (run the program under acs: acs run, or LD_PRELOAD=libacs.so)"
        return False
    if not active:
        _state["status"] = "acs not active (ACS_DISABLE=1, CUDA_LAUNCH_BLOCKING=1, or no usable driver)"
        return False
    from . import _build
    try:
        module = _build.load(verbose=verbose)
    except _build.BuildError as e:
        _state["status"] = f"extension unavailable: {e}"
        _warn(f"{_state['status']}; the program runs without the integration")
        return False
    result = module.enable(bool(cpu_tensors), list(trusted))
    _state["module"] = module
    if result != "enabled":
        _state["status"] = result
        _warn(result)
        return False
    _state["status"] = "enabled"
    _state["enabled"] = True
    _attach_allocator(module)
    return True


def disable():
    """Stops declaring operators. The allocator's blocks stay tracked: forgetting them while
    acs still holds some would leave stale blocks behind."""
    if _state["module"] is not None:
        _state["module"].disable()
    _state["enabled"] = False
    _state["status"] = "disabled"


def status():
    """A dict: enabled, status, allocator, and the extension's counters when it is loaded."""
    out = {"enabled": _state["enabled"], "status": _state["status"], "allocator": _state["allocator"]}
    if _state["module"] is not None:
        out["installed"] = _state["module"].installed()
        out.update(_state["module"].counters())
    return out


def enable_from_environment():
    """What ACS_TORCH=1 does (acs.torch._boot): enable(), never raising."""
    try:
        enable()
    except Exception as e:  # noqa: BLE001
        print(f"acs.torch: not enabled: {e}", file=sys.stderr)


def wanted(environ=None):
    """Whether ACS_TORCH asks for the integration (1, true, yes, on)."""
    value = (os.environ if environ is None else environ).get("ACS_TORCH", "")
    return value.strip().lower() in ("1", "true", "yes", "on")
