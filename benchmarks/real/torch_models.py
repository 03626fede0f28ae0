#!/usr/bin/env python3
"""PyTorch programs for the real-program benchmark (run_real.py reads the result lines).

Eager inference at batch 1 with random weights (fixed seeds, default initialisation) of
torchvision and timm models, two dynamic networks of our own (per-input branch selection
read back with .item(), a top-2 mixture of experts routed on the host), and a three-step
training run of torchvision's resnet18 whose parameters are hashed (its ms: the median step of a
copy of the model in its steady state). Deterministic cuDNN and
cuBLAS settings, so that native and preloaded runs must print the same digests.

Each inference row: warm-up iterations, then the median ms of timed iterations, each
synchronised before and after (host time included: at batch 1 these models are host-bound),
and a digest of the outputs of the first and the last timed iteration. All models run in one
process, timed round-robin (--rounds passes, each of iters/rounds iterations per model), so
that a slow spell of the machine is shared by all of them; the training run comes last.

  torch_models.py [--device cuda|cpu] [--quick] [--only REGEX] [--warmup N] [--iters N]
                  [--rounds N] [--list]
"""
import argparse
import copy
import os
import re
import sys
import zlib

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # before CUDA starts: cuBLAS determinism
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from real_common import digest, report, report_error, time_interleaved, time_iterations  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# (name, input size): torchvision's classification models.
TORCHVISION = [("resnet18", 224), ("squeezenet1_1", 224), ("googlenet", 224), ("inception_v3", 299),
               ("densenet121", 224), ("mobilenet_v3_small", 224), ("shufflenet_v2_x1_0", 224),
               ("efficientnet_b0", 224), ("regnet_y_400mf", 224), ("mnasnet1_0", 224)]
# timm: NASNet-A large (cells of parallel separable convolutions), MixNet (mixed kernel sizes).
TIMM = [("nasnetalarge", 331), ("mixnet_s", 224)]


def seed_of(name):
    return zlib.crc32(name.encode()) & 0x7FFFFFFF


def tensor_bytes(*ts):
    return b"".join(t.detach().float().cpu().contiguous().numpy().tobytes() for t in ts)


def torchvision_model(name):
    import torchvision
    kw = {"aux_logits": False, "init_weights": True} if name in ("googlenet", "inception_v3") else {}
    return torchvision.models.get_model(name, weights=None, **kw)


def timm_model(name):
    import timm
    return timm.create_model(name, pretrained=False)


class BranchNet(nn.Module):
    """Per-input branch selection (InstaNAS/SkipNet-like): a gate scores four branches per
    block and the host reads the winner back (.item()) to pick which one runs."""

    def __init__(self, width=48, blocks=6):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 2, 1), nn.BatchNorm2d(width), nn.ReLU())
        def branches():
            return nn.ModuleList([
                nn.Sequential(nn.Conv2d(width, width, 3, 1, 1), nn.BatchNorm2d(width), nn.ReLU()),
                nn.Sequential(nn.Conv2d(width, width, 5, 1, 2, groups=width), nn.Conv2d(width, width, 1), nn.ReLU()),
                nn.Sequential(nn.Conv2d(width, width // 2, 1), nn.ReLU(), nn.Conv2d(width // 2, width, 3, 1, 2, dilation=2)),
                nn.Sequential(nn.MaxPool2d(3, 1, 1), nn.Conv2d(width, width, 1), nn.BatchNorm2d(width)),
            ])
        self.blocks = nn.ModuleList([branches() for _ in range(blocks)])
        self.gates = nn.ModuleList([nn.Linear(width, 4) for _ in range(blocks)])
        self.head = nn.Linear(width, 10)

    def forward(self, x):
        x = self.stem(x)
        path = []
        for gate, branch in zip(self.gates, self.blocks):
            k = int(gate(x.mean((2, 3))).argmax(1).item())  # host sync: the branch depends on the input
            path.append(k)
            x = x + branch[k](x)
        return self.head(x.mean((2, 3))), path


class MoE(nn.Module):
    """Top-2 mixture of experts over a short token sequence; the routing is read back to the
    host (.tolist()) and each chosen expert runs on its tokens, as eager MoE code does."""

    def __init__(self, dim=256, experts=8, layers=4):
        super().__init__()
        self.routers = nn.ModuleList([nn.Linear(dim, experts) for _ in range(layers)])
        self.experts = nn.ModuleList([nn.ModuleList([
            nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim)) for _ in range(experts)])
            for _ in range(layers)])
        self.norms = nn.ModuleList([nn.LayerNorm(dim) for _ in range(layers)])

    def forward(self, x):
        for router, experts, norm in zip(self.routers, self.experts, self.norms):
            h = norm(x)
            weight, choice = router(h).softmax(-1).topk(2, dim=-1)
            routes = choice.tolist()  # host sync
            out = torch.zeros_like(x)
            for e, expert in enumerate(experts):
                picks = [(t, s) for t, r in enumerate(routes) for s in range(2) if r[s] == e]
                if not picks:
                    continue
                tok = torch.tensor([t for t, _ in picks], device=x.device)
                slot = torch.tensor([s for _, s in picks], device=x.device)
                y = expert(h[tok]) * weight[tok, slot].unsqueeze(1)
                out[tok] = out[tok] + y  # a token picks an expert at most once: no duplicate index
            x = x + out
        return x


def inference_rows(args, dev):
    rows = [(n, "torchvision", s, lambda n=n: torchvision_model(n)) for n, s in TORCHVISION]
    rows += [(n, "timm", s, lambda n=n: timm_model(n)) for n, s in TIMM]
    return rows


def prepare_inference(name, suite, size, build, args, dev):
    """Returns (step, finish): step() runs the model once, finish(ms, outs) reports its row."""
    torch.manual_seed(seed_of(name))
    with dev:  # initialise the random weights on the device: seconds faster than on the CPU
        model = build().eval()
    if args.quick:
        size = min(size, 96)
    g = torch.Generator().manual_seed(seed_of(name) + 1)
    x = torch.randn(1, 3, size, size, generator=g).to(dev)
    return (lambda: model(x),
            lambda ms, outs: report(name, suite, ms, digest(tensor_bytes(*outs)), input=size))


def prepare_branchnet(args, dev):
    torch.manual_seed(seed_of("dyn-branch"))
    model = BranchNet().eval().to(dev)
    g = torch.Generator().manual_seed(7)
    size = 64 if args.quick else 112
    inputs = [torch.randn(1, 3, size, size, generator=g).to(dev) for _ in range(4)]
    count = [0]

    def step():  # a different input each call: a different path through the branches
        count[0] += 1
        return model(inputs[count[0] % len(inputs)])

    def finish(ms, outs):
        paths = [p for _, p in outs]
        report("dyn-branch", "torch-dynamic", ms, digest(tensor_bytes(*[o for o, _ in outs]), repr(paths).encode()),
               paths="/".join("".join(map(str, p)) for p in paths))
    return step, finish


def prepare_moe(args, dev):
    torch.manual_seed(seed_of("dyn-moe"))
    model = MoE().eval().to(dev)
    g = torch.Generator().manual_seed(8)
    inputs = [torch.randn(32, 256, generator=g).to(dev) for _ in range(4)]
    count = [0]

    def step():
        count[0] += 1
        return model(inputs[count[0] % len(inputs)])

    return step, lambda ms, outs: report("dyn-moe", "torch-dynamic", ms, digest(tensor_bytes(*outs)))


def run_training(args, dev, sync):
    """Three SGD steps of torchvision's resnet18 at batch 8; the digest covers the losses and
    every parameter after the third step. Warm-up steps run on a copy, so that the hashed
    model takes exactly three steps."""
    torch.manual_seed(seed_of("train-resnet18"))
    model = torchvision_model("resnet18")
    model.avgpool = nn.AvgPool2d(4)  # adaptive average pooling has no deterministic CUDA backward
    model = model.to(dev).train()
    size = 64 if args.quick else 128  # 128 / 32 = 4: the feature map the pooling expects
    if args.quick:
        model.avgpool = nn.AvgPool2d(2)
    g = torch.Generator().manual_seed(9)
    data = [(torch.randn(8, 3, size, size, generator=g).to(dev), torch.randint(0, 1000, (8,), generator=g).to(dev))
            for _ in range(3)]

    def trainer(net):
        opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
        count = [0]

        def step():
            x, y = data[count[0] % len(data)]
            count[0] += 1
            # cross entropy written out: NLLLoss has no deterministic CUDA kernel
            loss = -(F.log_softmax(net(x), 1) * F.one_hot(y, 1000)).sum(1).mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            return loss.detach()
        return step

    # Timed on a copy in its steady state (warm-up, then --iters synchronised steps, the median):
    # the three steps of the hashed model alone moved by more than the ratios between processes
    # (docs/results/runs/2026-12-06-fifteenth/).
    ms, _ = time_iterations(trainer(copy.deepcopy(model)), sync, args.warmup, max(args.iters, 3))
    step = trainer(model)
    losses = []
    for _ in range(3):
        losses.append(step())
        sync()
    report("train-resnet18", "torch-train", ms, digest(tensor_bytes(*losses), tensor_bytes(*model.parameters())),
           steps=3, loss=f"{losses[-1].item():.6g}")


def host_calibration(dev, reps=5):
    """The host's speed in this process, with no kernel launched: the fastest of `reps` runs of a
    pure Python loop, and of 2000 views of a tensor on the device (PyTorch's dispatcher, no CUDA
    call). Printed before and after the timed rows: the H200 host's processes fall into states
    up to 2x apart, and these tell whether a process's state is its CPU's speed."""
    import time
    x = torch.zeros(4, device=dev)
    python_ms, dispatch_ms = [], []
    for _ in range(reps):
        t0 = time.perf_counter()
        acc, table = 0, {}
        for i in range(100000):
            acc += i * i % 7
            table[i & 1023] = acc
        python_ms.append((time.perf_counter() - t0) * 1e3)
        t0 = time.perf_counter()
        for _ in range(2000):
            x.view(-1)
        dispatch_ms.append((time.perf_counter() - t0) * 1e3)
    return min(python_ms), min(dispatch_ms)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--quick", action="store_true", help="smoke test: small inputs, 1 warm-up, 2 iterations")
    ap.add_argument("--only", help="regex on the row names")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--iters", type=int, default=20, help="timed iterations per model")
    ap.add_argument("--rounds", type=int, default=5,
                    help="the timed iterations are spread over this many round-robin passes over the models")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    if args.quick:
        args.warmup, args.iters, args.rounds = 1, 2, 2
    dev = torch.device(args.device)
    if dev.type == "cuda" and not torch.cuda.is_available():
        print("torch_models.py: no CUDA device; use --device cpu to test the script", file=sys.stderr)
        return 77
    torch.use_deterministic_algorithms(True)
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)

    jobs = [(n, s, lambda n=n, s=s, z=z, b=b: prepare_inference(n, s, z, b, args, dev))
            for n, s, z, b in inference_rows(args, dev)]
    jobs += [("dyn-branch", "torch-dynamic", lambda: prepare_branchnet(args, dev)),
             ("dyn-moe", "torch-dynamic", lambda: prepare_moe(args, dev)),
             ("train-resnet18", "torch-train", None)]
    if args.only:
        jobs = [j for j in jobs if re.search(args.only, j[0])]
    if args.list:
        print("\n".join(f"{n} {s}" for n, s, _ in jobs))
        return 0
    print(f"# torch {torch.__version__}, device {dev}"
          f"{' ' + torch.cuda.get_device_name() if dev.type == 'cuda' else ''}", file=sys.stderr)
    failed = 0
    steps, finishers = {}, {}
    for name, suite, prepare in jobs:
        if prepare is None:
            continue
        try:
            steps[name], finishers[name] = prepare()
        except Exception as e:  # noqa: BLE001 - one model's failure must not hide the others
            report_error(name, suite, e)
            failed += 1
    per_round = max(1, args.iters // args.rounds)
    before = host_calibration(dev)
    with torch.inference_mode():
        timed = time_interleaved(steps, sync, args.warmup, args.rounds, per_round)
    after = host_calibration(dev)
    print(f"# host calibration (ms, fastest of 5): python loop {before[0]:.3f} before the rows, {after[0]:.3f} after; "
          f"2000 tensor views {before[1]:.3f} before, {after[1]:.3f} after", file=sys.stderr)
    suites = {n: s for n, s, _ in jobs}
    for name, result in timed.items():
        if isinstance(result, Exception):
            report_error(name, suites[name], result)
            failed += 1
        else:
            finishers[name](*result)
    if "train-resnet18" in suites:  # last, alone: its three steps are hashed
        try:
            run_training(args, dev, sync)
        except Exception as e:  # noqa: BLE001
            report_error("train-resnet18", "torch-train", e)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
