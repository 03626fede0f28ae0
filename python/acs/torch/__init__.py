"""acs.torch: find the parallelism in PyTorch programs run under acs.

    import acs.torch          # one line, before the model is built; or ACS_TORCH=1 with `acs run`

Under acs (libacs.so preloaded), every PyTorch operator then declares the tensors it reads and
writes (from its schema) around the kernels it launches, and each block of the CUDA caching
allocator counts as an allocation of its own, so that kernels of independent operators run
concurrently. Without libacs.so in the process it does nothing, costs nothing and builds
nothing. README.md beside this file says what is declared and why it is sound.
"""
from ._integration import TRUSTED, acs_state, disable, enable, status

__all__ = ["TRUSTED", "acs_state", "disable", "enable", "status"]

enable()
