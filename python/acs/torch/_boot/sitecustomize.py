"""acs.torch's boot code: `acs run` puts this directory first on PYTHONPATH when ACS_TORCH=1
(acs/torch/launch.py), so that Python runs it at start-up (the site module imports
`sitecustomize`). It costs an environment look-up, and imports nothing else until the program
imports torch: then, right after torch's own initialisation, it calls acs.torch.enable().
Another sitecustomize on the path (the system's, a virtual environment's) still runs after it.
"""
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(_HERE)))  # holds acs/


def _enable():
    try:
        import acs.torch._integration as integration  # noqa: F401
    except ImportError:
        sys.path.append(_PACKAGE_ROOT)  # a source checkout: python/acs beside this file
        try:
            import acs.torch._integration as integration  # noqa: F401
        except ImportError as e:
            print(f"acs.torch: ACS_TORCH=1 but the acs package cannot be imported: {e}", file=sys.stderr)
            return
    integration.enable_from_environment()


class _AfterTorch(importlib.abc.MetaPathFinder):
    """Finds torch with the other finders, and runs _enable() once its module has executed."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            _enable()

        spec.loader.exec_module = exec_module
        return spec


def _chain():
    """Runs the next sitecustomize on sys.path, which this one hides."""
    for entry in sys.path:
        if os.path.abspath(entry or os.curdir) == _HERE:
            continue
        spec = importlib.machinery.PathFinder.find_spec("sitecustomize", [entry])
        if spec is not None and spec.loader is not None:
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return


if os.environ.get("ACS_TORCH", "").strip().lower() in ("1", "true", "yes", "on"):
    if "torch" in sys.modules:
        _enable()
    else:
        sys.meta_path.insert(0, _AfterTorch())
_chain()
