"""For launchers (`acs run`, `python -m acs run`): ACS_TORCH=1 in a program's environment
enables acs.torch in every Python process it starts that imports torch.

    env = acs.torch.launch.environment(env)   # before exec'ing the program

adds acs.torch's boot directory (a sitecustomize.py) to PYTHONPATH when env asks for it, and
leaves env alone otherwise. The boot code costs an environment look-up at interpreter start and,
when torch is imported, calls acs.torch.enable() (which does nothing without libacs.so).
"""
import os

from ._integration import wanted

BOOT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_boot")


def environment(env):
    """A copy of env with the boot directory first on PYTHONPATH when ACS_TORCH asks for it."""
    env = dict(env)
    if not wanted(env):
        return env
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    if BOOT_DIR not in paths:
        env["PYTHONPATH"] = os.pathsep.join([BOOT_DIR] + paths)
    return env
