"""acs for Python: run programs and scripts with libacs.so preloaded.

    import acs
    acs.library_path()                          # the libacs.so that would be preloaded
    status = acs.run(["python3", "train.py"], stats=True)
    env = acs.environment(window=16)            # for your own subprocess calls

From a shell: `python -m acs run train.py args` (a new process: LD_PRELOAD must be
set before the CUDA libraries load, so it cannot be turned on inside a running
interpreter), or the `acs` command. The PyTorch integration will live in acs.torch.
"""
import subprocess

from . import _environment, _library
from ._environment import UsageError
from ._library import LibraryNotFound, library_path
from ._version import __version__

__all__ = ["LibraryNotFound", "UsageError", "environment", "library_path", "run", "__version__"]


def environment(lib=None, base=None, **settings):
    """A copy of `base` (default os.environ) with libacs.so appended to LD_PRELOAD and
    the given settings set: window, streams, stats, stats_file, trace, infer."""
    return _environment.environment(_library.find(lib)[0], base, **settings)


def run(args, lib=None, env=None, window=None, streams=None, stats=False, stats_file=None,
        trace=None, infer=None, **popen_kwargs):
    """Runs `args` (a list, as for subprocess.run) under acs; returns its exit code
    (negative: killed by that signal). Other keyword arguments go to subprocess.run."""
    full = environment(lib, env, window=window, streams=streams, stats=stats,
                       stats_file=stats_file, trace=trace, infer=infer)
    return subprocess.run(args, env=full, **popen_kwargs).returncode
