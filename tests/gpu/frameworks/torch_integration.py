"""acs.torch on the GPU: a multi-branch network and a three-step training run, with the
integration enabled by its one line (`import acs.torch`), run natively and under acs
(run_case.sh). Natively the import does nothing; under acs every operator declares its tensors
and each caching-allocator block is its own unit, so the branches of an Inception block can run
side by side. Both runs must print the same digests. On stderr, for run_case.sh's --expect:
    acs-test: torch_declared=N torch_blocks=N torch_everything=N
Usage: torch_integration.py [inception|googlenet|train]
"""
import os
import sys

from common import digest, skip

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "python"))
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
try:
    import torch
except Exception as e:  # noqa: BLE001
    skip(f"PyTorch not importable ({e.__class__.__name__})")
if not torch.cuda.is_available():
    skip("no CUDA device")

import acs.torch  # noqa: E402,F401  the one line: before any CUDA tensor exists

torch.use_deterministic_algorithms(True)
torch.backends.cudnn.benchmark = False
torch.backends.cudnn.deterministic = True
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = torch.device("cuda")


def tensor_bytes(*ts):
    return b"".join(t.detach().float().cpu().contiguous().numpy().tobytes() for t in ts)


class Inception(torch.nn.Module):
    """GoogLeNet's block: four branches that read the same input, concatenated."""

    def __init__(self, cin, c1, c3r, c3, c5r, c5, pool):
        super().__init__()
        conv = lambda i, o, k: torch.nn.Sequential(  # noqa: E731
            torch.nn.Conv2d(i, o, k, padding=k // 2, bias=False), torch.nn.BatchNorm2d(o), torch.nn.ReLU())
        self.b1 = conv(cin, c1, 1)
        self.b2 = torch.nn.Sequential(conv(cin, c3r, 1), conv(c3r, c3, 3))
        self.b3 = torch.nn.Sequential(conv(cin, c5r, 1), conv(c5r, c5, 3), conv(c5, c5, 3))
        self.b4 = torch.nn.Sequential(torch.nn.MaxPool2d(3, 1, 1), conv(cin, pool, 1))

    def forward(self, x):
        return torch.cat([self.b1(x), self.b2(x), self.b3(x), self.b4(x)], 1)


def inception_net():
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 64, 3, padding=1), torch.nn.ReLU(),
        Inception(64, 32, 48, 64, 8, 16, 16), Inception(128, 64, 64, 96, 16, 48, 32),
        Inception(240, 96, 48, 104, 8, 24, 32), torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
        torch.nn.Linear(256, 10))


def report():
    s = acs.torch.status()
    print(f"acs-test: torch_declared={s.get('declared', 0)} torch_blocks={s.get('blocks_allocated', 0)} "
          f"torch_everything={s.get('everything', 0)}", file=sys.stderr)


def inference(model, name, size):
    torch.manual_seed(0)
    model = model.to(dev).eval()
    g = torch.Generator(device="cpu").manual_seed(1)
    outs = []
    with torch.no_grad():
        for _ in range(30):
            x = torch.randn(1, 3, size, size, generator=g).to(dev)
            outs.append(model(x))
    torch.cuda.synchronize()
    digest(f"{name}.outputs", tensor_bytes(*outs))


def googlenet():
    try:
        import torchvision
    except Exception:  # noqa: BLE001
        skip("torchvision not importable")
    torch.manual_seed(0)
    model = torchvision.models.googlenet(weights=None, aux_logits=False, init_weights=True)
    inference(model, "googlenet", 224)


def train():
    """Three SGD steps of the Inception network at batch 4 (batch norm in training mode)."""
    torch.manual_seed(0)
    net = inception_net().to(dev)
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    g = torch.Generator(device="cpu").manual_seed(2)
    for _ in range(3):
        x = torch.randn(4, 3, 32, 32, generator=g).to(dev)
        y = torch.randint(0, 10, (4,), generator=g).to(dev)
        loss = torch.nn.functional.cross_entropy(net(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    digest("train.parameters", tensor_bytes(*net.parameters()))
    digest("train.buffers", tensor_bytes(*net.buffers()))


which = sys.argv[1] if len(sys.argv) > 1 else "inception"
if which == "inception":
    torch.manual_seed(0)
    inference(inception_net(), "inception", 160)
elif which == "googlenet":
    googlenet()
elif which == "train":
    train()
else:
    sys.exit(f"unknown workload {which}")
report()
