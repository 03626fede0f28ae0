"""DistributedDataParallel training under torchrun, natively and under acs (issue 18).

    torchrun_ddp.py [--nproc=2] [--steps=30]

Run as the test program, it starts `torchrun --standalone --nproc_per_node=N` on itself (one
process per GPU); every rank trains a small model on its own shard of synthetic data, NCCL
all-reduces the gradients (its kernels and acs's reordered compute interleave on each device),
and at the end rank 0 prints a digest of the final parameters (identical on every rank, which
each checks) and of the losses: they must be bit-identical with and without the preload. The
mean step time goes to stderr (`acs-test: step_ms=...`).

Skipped (exit 77, "SKIPPED: ...") without torch, its distributed package, NCCL, or N GPUs.
NVLink multicast stays off: NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1,
NVSHMEM_DISABLE_NVLS=1 are set for the workers whatever the caller set.
"""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import digest, skip  # noqa: E402

NO_MULTICAST = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}
# One reduction order, whatever NCCL would tune: the digests compare two runs of one machine.
DETERMINISTIC = {"NCCL_ALGO": "Ring", "NCCL_PROTO": "Simple", "CUBLAS_WORKSPACE_CONFIG": ":4096:8",
                 "OMP_NUM_THREADS": "1"}


def arg(name, default):
    for a in sys.argv[1:]:
        if a.startswith(f"--{name}="):
            return int(a.split("=", 1)[1])
    return default


def launch():
    nproc = arg("nproc", 2)
    try:
        import torch
        import torch.distributed as dist
    except ImportError as e:
        skip(f"no torch ({e})")
    if not torch.cuda.is_available() or torch.cuda.device_count() < nproc:
        skip(f"fewer than {nproc} CUDA devices ({torch.cuda.device_count() if torch.cuda.is_available() else 0})")
    if not dist.is_available() or not dist.is_nccl_available():
        skip("torch without NCCL")
    env = dict(os.environ, **NO_MULTICAST, **DETERMINISTIC)
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={nproc}",
           os.path.abspath(__file__), "--worker", f"--steps={arg('steps', 30)}"]
    sys.stdout.flush()
    return subprocess.run(cmd, env=env).returncode


def worker():
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    torch.use_deterministic_algorithms(True)
    torch.backends.cudnn.benchmark = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False

    torch.manual_seed(1234)  # the same initial parameters on every rank
    model = torch.nn.Sequential(
        torch.nn.Linear(256, 512), torch.nn.GELU(), torch.nn.LayerNorm(512),
        torch.nn.Linear(512, 512), torch.nn.GELU(), torch.nn.Linear(512, 10)).cuda()
    ddp = DDP(model, device_ids=[local], bucket_cap_mb=1)  # several buckets: several all-reduces per step
    opt = torch.optim.AdamW(ddp.parameters(), lr=1e-3)
    gen = torch.Generator(device="cuda").manual_seed(99 + rank)  # each rank its own shard
    steps = arg("steps", 30)
    losses = []
    torch.cuda.synchronize()
    times = []
    for step in range(steps):
        t0 = time.perf_counter()
        x = torch.randn(128, 256, device="cuda", generator=gen)
        y = torch.randint(0, 10, (128,), device="cuda", generator=gen)
        loss = torch.nn.functional.cross_entropy(ddp(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(loss.detach())
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)

    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()]).cpu()
    gathered = [None] * world if rank == 0 else None
    dist.gather_object(flat.numpy().tobytes(), gathered, dst=0)
    all_losses = [None] * world
    dist.all_gather_object(all_losses, torch.stack(losses).cpu().numpy().tobytes())
    if rank == 0:
        same = all(g == gathered[0] for g in gathered)
        print(f"ranks={world} steps={steps} parameters identical on every rank: {same}")
        digest("parameters", gathered[0])
        for r, data in enumerate(all_losses):
            digest(f"losses.rank{r}", data)
        steady = times[len(times) // 3:] or times
        print(f"acs-test: step_ms={1000 * sum(steady) / len(steady):.3f} ranks={world}", file=sys.stderr)
    dist.destroy_process_group()


if __name__ == "__main__":
    if "--worker" in sys.argv:
        worker()
    else:
        sys.exit(launch())
