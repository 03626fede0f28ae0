"""The environment a program runs in under acs: LD_PRELOAD and the ACS_* settings."""
import os

INFER_MODES = ("alloc", "const", "off")
RELAY_MODES = ("off", "auto", "always")


class UsageError(Exception):
    """A setting acs cannot use; the message says which and why."""


def _positive(name, value):
    try:
        n = int(value)
    except (TypeError, ValueError):
        n = 0
    if n < 1 or str(value).strip() != str(n):
        raise UsageError(f"{name} must be a positive whole number, not {value!r}")
    return str(n)


def _entries(preload):
    # ld.so separates LD_PRELOAD's entries with colons or spaces.
    return [e for e in preload.replace(":", " ").split() if e]


def preload_value(lib, existing):
    """LD_PRELOAD with `lib` appended, last: libraries already preloaded (a sanitizer's
    runtime, which must come first, or a tool the program is already wrapped with)
    keep their place and see the program's calls as it made them; acs then gets them.
    Already there: unchanged. Another libacs.so there: UsageError (two would clash)."""
    if any(c in lib for c in ": \t\n"):
        raise UsageError(f"the library path {lib!r} has a colon or a space, which LD_PRELOAD cannot hold")
    for entry in _entries(existing or ""):
        if os.path.basename(entry).startswith("libacs.so"):
            if os.path.realpath(entry) == os.path.realpath(lib):
                return existing
            raise UsageError(f"LD_PRELOAD already preloads another libacs.so ({entry}); "
                             f"remove it, or pass --lib {entry} to use that one")
    return f"{existing}:{lib}" if existing and existing.strip() else lib


def environment(lib, base=None, window=None, streams=None, stats=False, stats_file=None,
                trace=None, infer=None, relay=None):
    """A copy of `base` (default: os.environ) with libacs.so preloaded and the settings
    given here set; those not given keep base's values. Paths become absolute, since
    the program may change its directory."""
    env = dict(os.environ if base is None else base)
    env["LD_PRELOAD"] = preload_value(lib, env.get("LD_PRELOAD", ""))
    if window is not None:
        env["ACS_WINDOW"] = _positive("--window", window)
    if streams is not None:
        env["ACS_STREAMS"] = _positive("--streams", streams)
    if stats:
        env["ACS_STATS"] = "1"
    if stats_file:  # the library counts when either is set, and writes each where asked
        env["ACS_STATS_FILE"] = os.path.abspath(stats_file)
    if trace:
        env["ACS_TRACE"] = os.path.abspath(trace)
    if infer is not None:
        if infer not in INFER_MODES:
            raise UsageError(f"--infer must be one of {', '.join(INFER_MODES)}, not {infer!r}")
        env["ACS_INFER"] = infer
    if relay is not None:
        if relay not in RELAY_MODES:
            raise UsageError(f"--relay must be one of {', '.join(RELAY_MODES)}, not {relay!r}")
        env["ACS_RELAY"] = relay
    # ACS_TORCH=1: the PyTorch integration in every Python process the program starts.
    from .torch.launch import environment as with_torch_integration
    return with_torch_integration(env)
