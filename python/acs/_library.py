"""Where libacs.so is: the same order for the acs command and for Python.

1. an explicit path (`--lib`, `library_path(lib=...)`), then $ACS_LIB: either
   must exist, there is no fallback past one that was asked for;
2. a copy bundled inside this package (acs/lib/libacs.so), if one was put there;
3. an installation: PREFIX/lib/libacs.so (or lib64, lib/<multiarch>) for the
   prefix the command runs from (PREFIX/bin/acs), the prefix this package was
   installed into by `cmake --install` (PREFIX/share/acs/python/acs), and
   Python's own prefix (a virtual environment that acs was installed into);
4. the build tree of the source checkout this package is part of:
   REPO/build/interpose/libacs.so (what scripts/test.sh builds).
"""
import glob
import os
import sys

LIBRARY = "libacs.so"
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


class LibraryNotFound(Exception):
    """No libacs.so where acs looks for it; the message says where it looked."""


def _prefix_candidates(prefix):
    # GNUInstallDirs' choices for the library directory.
    paths = [os.path.join(prefix, d, LIBRARY) for d in ("lib", "lib64")]
    paths += sorted(glob.glob(os.path.join(prefix, "lib", "*-linux-gnu", LIBRARY)))
    return paths


def _source_checkout():
    """The repository this package is in (python/acs/ of a checkout), or None."""
    repo = os.path.dirname(os.path.dirname(_PACKAGE_DIR))
    markers = (os.path.join(repo, "CMakeLists.txt"), os.path.join(repo, "python", "pyproject.toml"))
    return repo if all(os.path.isfile(m) for m in markers) else None


def candidates(command=None):
    """The places searched after --lib and ACS_LIB, in order, with where each comes from."""
    found = [(os.path.join(_PACKAGE_DIR, "lib", LIBRARY), "bundled with the Python package")]
    prefixes = []
    if command:
        prefixes.append(os.path.dirname(os.path.dirname(os.path.realpath(command))))
    parts = _PACKAGE_DIR.split(os.sep)
    if parts[-4:-1] == ["share", "acs", "python"]:
        prefixes.append(os.sep.join(parts[:-4]) or os.sep)
    prefixes.append(sys.prefix)
    seen = set()
    for prefix in prefixes:
        for path in _prefix_candidates(prefix):
            if path not in seen:
                seen.add(path)
                found.append((path, "installed"))
    repo = _source_checkout()
    if repo:
        found.append((os.path.join(repo, "build", "interpose", LIBRARY), "build tree"))
    return found


def find(lib=None, command=None, environ=None):
    """(absolute path, where it came from) of the libacs.so to preload, or LibraryNotFound."""
    environ = os.environ if environ is None else environ
    for explicit, origin in ((lib, "--lib"), (environ.get("ACS_LIB") or None, "ACS_LIB")):
        if explicit:
            path = os.path.abspath(explicit)
            if not os.path.isfile(path):
                raise LibraryNotFound(f"{origin} names {explicit!r}, which is not a file")
            return path, origin
    tried = candidates(command)
    for path, origin in tried:
        if os.path.isfile(path):
            return os.path.abspath(path), origin
    where = "\n".join(f"  {path}  ({origin})" for path, origin in tried)
    raise LibraryNotFound(
        f"no {LIBRARY} found. Looked in:\n{where}\n"
        "Build it (scripts/test.sh, or cmake --build build --target acs), install it "
        "(cmake --install build --prefix PREFIX), or name it with --lib PATH or ACS_LIB=PATH.")


def library_path(lib=None):
    """The absolute path of the libacs.so that acs.run() preloads (see the module's order)."""
    return find(lib)[0]
