#!/usr/bin/env python3
"""Which CUDA runtime and driver calls one PyTorch operator makes, per call (torch.profiler's
CUPTI trace of the host's API calls: how many per call, and their mean time), for the operators op_overhead.py times. What acs's hooks
see of an operator: a hook that costs more than forwarding shows up as an operator whose time
under acs grows more than its call count explains.

    python3 benchmarks/torch/op_calls.py [--ops batch_norm,conv2d] [--calls 20]
"""
import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from op_overhead import OPS, operator_bodies  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ops", default=",".join(OPS))
    p.add_argument("--calls", type=int, default=20)
    args = p.parse_args()
    import torch
    from torch.profiler import ProfilerActivity, profile
    if not torch.cuda.is_available():
        print("op_calls.py: no CUDA device", file=sys.stderr)
        return 77
    bodies = operator_bodies(torch, torch.device("cuda"))
    for name in args.ops.split(","):
        body = bodies[name]
        for _ in range(50):
            body()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(args.calls):
                body()
            torch.cuda.synchronize()
        counts, spent = collections.Counter(), collections.Counter()
        for e in prof.events():
            if e.device_type == torch.autograd.DeviceType.CPU and e.name.startswith("cu"):
                counts[e.name] += 1
                spent[e.name] += e.cpu_time_total  # µs
        calls = ", ".join(f"{n} x{c / args.calls:g} ({spent[n] / c:.2f} us)" for n, c in counts.most_common()
                          if n != "cudaDeviceSynchronize")
        print(f"{name}: {calls}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
