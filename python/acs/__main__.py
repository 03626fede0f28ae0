"""python -m acs: the acs command, where `run` runs a Python script (a new process:
LD_PRELOAD must be set before the CUDA libraries load)."""
import sys

from .cli import main

sys.exit(main(python_mode=True))
