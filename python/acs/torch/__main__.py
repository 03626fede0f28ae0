"""python -m acs.torch build: compiles the extension ahead of its first use (about a minute);
python -m acs.torch status: what the integration would do in this environment."""
import sys
import time


def main(argv):
    command = argv[0] if argv else "status"
    if command == "build":
        try:
            import torch  # noqa: F401
        except Exception as e:  # noqa: BLE001
            print(f"SKIPPED: PyTorch is not importable ({e.__class__.__name__}): nothing to build")
            return 77
        from . import _build
        t0 = time.time()
        try:
            module = _build.load(verbose="-v" in argv)
        except _build.BuildError as e:
            print(f"acs.torch: {e}", file=sys.stderr)
            return 1
        print(f"acs.torch: extension ready in {time.time() - t0:.1f} s: {module.__file__} "
              f"(caching allocator tracked: {'yes' if module.with_cuda else 'no, not a CUDA build'})")
        return 0
    if command == "status":
        from . import status
        for k, v in status().items():
            print(f"{k}: {v}")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


sys.exit(main(sys.argv[1:]))
