#!/usr/bin/env python3
"""Host cost of acs.torch per PyTorch operator, in µs per op.

Runs tight loops of tiny operators (an elementwise add, a view, a linear layer, an in-place
add on a list of tensors, a 3x3 convolution and a batch norm through cuDNN) in five configurations, each in its own process, interleaved, and
prints medians:
  plain            no acs, no integration
  import           `import acs.torch` without acs: must cost nothing (no callback installed)
  acs              LD_PRELOAD=LIB, no integration
  disable          LD_PRELOAD=LIB with ACS_DISABLE=1: the hooks alone (every call passed through)
  acs+torch        LD_PRELOAD=LIB and `import acs.torch`: the integration's cost is the
                   difference to `acs`
Extra modes (--mode 'NAME:VAR=VAL ...') run under LD_PRELOAD=LIB with those variables set
(`LIB=PATH` among them preloads another build, a stage-timer one say); --ops picks operators.
LIB is libacs.so on a GPU machine; on a CPU (--device cpu) the recorder stand-in of
tests/torch (libacs_torch_recorder.so) plays acs, and CPU tensors are declared, so that the
callbacks' own cost shows without a GPU.

    python3 benchmarks/torch/op_overhead.py --lib build/interpose/libacs.so            # GPU
    python3 benchmarks/torch/op_overhead.py --device cpu --lib build-cpu/tests/torch/libacs_torch_recorder.so
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OPS = ("add", "view", "linear", "foreach_add_", "conv2d", "batch_norm")


def operator_bodies(torch, dev):
    """{name: a call of that operator on small tensors}; op_calls.py lists their CUDA calls."""
    a, b = torch.randn(16, device=dev), torch.randn(16, device=dev)
    x, w, bias = torch.randn(2, 16, device=dev), torch.randn(16, 16, device=dev), torch.randn(16, device=dev)
    params = [torch.randn(16, device=dev) for _ in range(8)]
    image, kernel = torch.randn(1, 16, 14, 14, device=dev), torch.randn(16, 16, 3, 3, device=dev)
    mean, var = torch.zeros(16, device=dev), torch.ones(16, device=dev)
    grads = [torch.randn(16, device=dev) for _ in range(8)]
    return {
        "add": lambda: torch.add(a, b),
        "view": lambda: a.view(4, 4),
        "linear": lambda: torch.nn.functional.linear(x, w, bias),
        "foreach_add_": lambda: torch._foreach_add_(params, grads),
        # cuDNN's paths, which eager CNNs at batch 1 spend most of their operators in
        "conv2d": lambda: torch.nn.functional.conv2d(image, kernel, padding=1),
        "batch_norm": lambda: torch.nn.functional.batch_norm(image, mean, var, training=False),
    }


def measure(device, iterations, integration, ops=OPS):
    """One process's loops: {op: µs per call}."""
    import torch
    if integration:
        sys.path.insert(0, os.path.join(ROOT, "python"))
        import acs.torch
        if device == "cpu":
            acs.torch.disable()
            acs.torch.enable(cpu_tensors=True)
    bodies = operator_bodies(torch, torch.device(device))
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    out = {}
    for name, body in bodies.items():
        if name not in ops:
            continue
        for _ in range(200):  # warm-up: first calls, caches, the allocator
            body()
        sync()
        t0 = time.perf_counter()
        for _ in range(iterations):
            body()
        sync()
        out[name] = (time.perf_counter() - t0) / iterations * 1e6
    if integration:
        out["_status"] = {k: v for k, v in acs.torch.status().items() if isinstance(v, (int, bool, str))}
    return out


def child(args):
    print(json.dumps(measure(args.device, args.iterations, args.integration, args.ops.split(","))))


def run_mode(mode, args):
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    cmd = [sys.executable, os.path.abspath(__file__), "--child", "--device", args.device,
           "--iterations", str(args.iterations), "--ops", args.ops]
    if mode in args.extra:
        env["LD_PRELOAD"] = os.path.abspath(args.lib)
        for assignment in args.extra[mode]:
            var, value = assignment.split("=", 1)
            if var == "LIB":
                env["LD_PRELOAD"] = os.path.abspath(value)
            else:
                env[var] = value
    if mode in ("import", "acs+torch"):
        cmd.append("--integration")
    if mode in ("acs", "acs+torch", "disable"):
        env["LD_PRELOAD"] = os.path.abspath(args.lib)
    if mode == "disable":
        env["ACS_DISABLE"] = "1"
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        sys.exit(f"{mode} failed:\n{r.stderr[-2000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", help="libacs.so (or the recorder stand-in on a CPU)")
    p.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    p.add_argument("--iterations", type=int, default=5000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--ops", default=",".join(OPS), help="operators to time, comma-separated")
    p.add_argument("--mode", action="append", default=[], metavar="NAME:VAR=VAL ...",
                   help="an extra mode: LD_PRELOAD=LIB with these variables (LIB=PATH: another library)")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--integration", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    args.extra = {}
    for spec in args.mode:
        name, _, assignments = spec.partition(":")
        if not args.lib or not name or any("=" not in a for a in assignments.split()):
            p.error(f"--mode {spec!r}: NAME:VAR=VAL ..., with --lib")
        args.extra[name] = assignments.split()
    unknown = set(args.ops.split(",")) - set(OPS)
    if unknown:
        p.error(f"--ops: unknown {sorted(unknown)}; known: {','.join(OPS)}")
    if args.child:
        return child(args)
    modes = ["plain", "import"] + (["acs", "disable", "acs+torch"] if args.lib else []) + list(args.extra)
    results = {m: [] for m in modes}
    status = None
    for _ in range(args.repeats):  # interleaved: drift of the machine hits every mode alike
        for m in modes:
            r = run_mode(m, args)
            status = r.pop("_status", status)
            results[m].append(r)
    print(f"µs per operator, median of {args.repeats} runs of {args.iterations} calls ({args.device})")
    print(f"{'op':<14}" + "".join(f"{m:>12}" for m in modes) + ("   integration" if args.lib else ""))
    for op in args.ops.split(","):
        med = {m: statistics.median(r[op] for r in results[m]) for m in modes}
        line = f"{op:<14}" + "".join(f"{med[m]:>12.2f}" for m in modes)
        if args.lib:
            line += f"   {med['acs+torch'] - med['acs']:+.2f}"
        print(line)
    if status:
        print("acs.torch status in the last acs+torch run:", status)


if __name__ == "__main__":
    main()
