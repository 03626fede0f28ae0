#!/usr/bin/env python3
"""Where a training step's time goes, per phase, on the host: torch_models.py's train-resnet18
(resnet18 at batch 8, 128x128, SGD with momentum) timed per phase of each step, with no sync
inside a step: forward (the program's thread), backward (autograd's device thread: the call
returns when every backward kernel is launched), the optimizer step, then the synchronize that
ends the step (how far the GPU, or whatever issues its launches, is behind the host). Prints the
median of each phase in µs and percentiles of the whole step, one line:
  phases fwd=.. bwd=.. opt=.. sync=.. step_p10=.. step_p50=.. step_p90=.. step_max=..
train_phases.py [--iters N] [--warmup N]"""
import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../../benchmarks/real"))
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch_models import seed_of, torchvision_model  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--iters", type=int, default=200)
p.add_argument("--warmup", type=int, default=30)
a = p.parse_args()
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
torch.use_deterministic_algorithms(True)
torch.manual_seed(seed_of("train-resnet18"))
net = torchvision_model("resnet18")
net.avgpool = nn.AvgPool2d(4)
net = net.cuda().train()
g = torch.Generator().manual_seed(9)
data = [(torch.randn(8, 3, 128, 128, generator=g).cuda(), torch.randint(0, 1000, (8,), generator=g).cuda())
        for _ in range(3)]
opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
phases = {k: [] for k in ("fwd", "bwd", "opt", "sync", "step")}
for i in range(a.warmup + a.iters):
    x, y = data[i % 3]
    t0 = time.perf_counter()
    loss = -(F.log_softmax(net(x), 1) * F.one_hot(y, 1000)).sum(1).mean()
    t1 = time.perf_counter()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    t2 = time.perf_counter()
    opt.step()
    t3 = time.perf_counter()
    torch.cuda.synchronize()
    t4 = time.perf_counter()
    if i >= a.warmup:
        for k, v in zip(phases, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0)):
            phases[k].append(v * 1e6)
s = sorted(phases["step"])
q = lambda f: s[min(len(s) - 1, int(f * len(s)))]
print("phases " + " ".join(f"{k}={statistics.median(phases[k]):.0f}" for k in ("fwd", "bwd", "opt", "sync")) +
      f" step_p10={q(0.1):.0f} step_p50={q(0.5):.0f} step_p90={q(0.9):.0f} step_max={s[-1]:.0f}")
