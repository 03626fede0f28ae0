"""PyTorch code nobody on this project wrote, run natively and under acs (run_case.sh).

ATen kernels, cuBLAS, cuDNN, the caching allocator, side streams, pinned async copies,
CUDA-graph capture and replay. Deterministic algorithms only, so that both runs must print
the same digests. Usage: torch_workloads.py [train|streams|graphs|all]
"""
import os
import sys

from common import digest, skip

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
try:
    import torch
except Exception as e:  # noqa: BLE001
    skip(f"PyTorch not importable ({e.__class__.__name__})")
if not torch.cuda.is_available():
    skip("no CUDA device")

torch.use_deterministic_algorithms(True)
torch.backends.cudnn.benchmark = False
torch.backends.cudnn.deterministic = True
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = torch.device("cuda")


def tensor_bytes(*ts):
    return b"".join(t.detach().float().cpu().contiguous().numpy().tobytes() for t in ts)


def train():
    """A small CNN, 30 SGD steps at batch 8: conv, batch norm, pooling, linear, backward."""
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.BatchNorm2d(16), torch.nn.ReLU(),
        torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(),
        torch.nn.AvgPool2d(4), torch.nn.Flatten(),  # 16x16 -> 4x4 (adaptive pooling has no deterministic backward)
        torch.nn.Linear(32 * 16, 64), torch.nn.GELU(), torch.nn.Linear(64, 10),
    ).to(dev)
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    g = torch.Generator(device="cpu").manual_seed(1)
    losses = []
    for _ in range(30):
        x = torch.randn(8, 3, 32, 32, generator=g).to(dev, non_blocking=True)
        y = torch.randint(0, 10, (8,), generator=g).to(dev)
        loss = torch.nn.functional.cross_entropy(net(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    digest("train.losses", tensor_bytes(torch.stack(losses)))
    digest("train.parameters", tensor_bytes(*net.parameters()))


def streams():
    """Side streams ordered with wait_stream and events, pinned non-blocking copies both ways."""
    torch.manual_seed(2)
    a = torch.randn(512, 512, device=dev)
    b = torch.randn(512, 512, device=dev)
    side = torch.cuda.Stream()
    out = []
    for i in range(20):
        c = a @ b + i
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            d = torch.tanh(c) * 2 - c.mean()
            e = torch.cuda.Event()
            e.record(side)
        torch.cuda.current_stream().wait_event(e)
        d.record_stream(torch.cuda.current_stream())
        a = (a + d.softmax(dim=1)) / 2
        host = torch.empty(a.shape, pin_memory=True)
        host.copy_(a, non_blocking=True)
        torch.cuda.current_stream().synchronize()
        out.append(host.clone())
        b = (b + torch.from_numpy(host.numpy()).to(dev, non_blocking=True)) / 2
    digest("streams.copies", tensor_bytes(*out))
    digest("streams.final", tensor_bytes(a, b))


def graphs():
    """An MLP step captured into a CUDA graph on a side stream, replayed with new inputs."""
    torch.manual_seed(3)
    model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 32)).to(dev)
    static_in = torch.randn(16, 256, device=dev)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):  # warm-up before capture, as PyTorch asks
            model(static_in)
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = model(static_in)
    results = []
    g = torch.Generator(device="cpu").manual_seed(4)
    for _ in range(10):
        static_in.copy_(torch.randn(16, 256, generator=g).to(dev))
        graph.replay()
        results.append(static_out.clone())
        eager = model(static_in)  # the same math outside the graph, interleaved
        results.append(eager)
    digest("graphs.replays", tensor_bytes(*results))


which = sys.argv[1] if len(sys.argv) > 1 else "all"
for name, fn in (("train", train), ("streams", streams), ("graphs", graphs)):
    if which in (name, "all"):
        fn()
torch.cuda.synchronize()
