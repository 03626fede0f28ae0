#!/usr/bin/env python3
"""Per-forward host time of a few batch-1 models in one process: median ms of N synchronised
forwards after a warm-up. Prints 'diag MODEL MS'. Used interleaved across processes/modes."""
import os, sys, time, statistics
import torch
torch.backends.cudnn.benchmark = False
torch.backends.cudnn.deterministic = True
import torchvision, timm
models = sys.argv[1].split(",")
n = int(sys.argv[2]) if len(sys.argv) > 2 else 100
for name in models:
    torch.manual_seed(0)
    with torch.device("cuda"):
        if name in ("mixnet_s", "nasnetalarge"):
            m = timm.create_model(name, pretrained=False).eval()
        else:
            kw = {"aux_logits": False, "init_weights": True} if name in ("googlenet", "inception_v3") else {}
            m = torchvision.models.get_model(name, weights=None, **kw).eval()
    x = torch.randn(1, 3, 224, 224, device="cuda")
    ts = []
    with torch.inference_mode():
        for i in range(20 + n):
            torch.cuda.synchronize()
            t = time.perf_counter()
            m(x)
            torch.cuda.synchronize()
            ts.append(time.perf_counter() - t)
    print(f"diag {name} {statistics.median(ts[20:]) * 1e3:.4f}", flush=True)
