"""Data-parallel training with a dlbridge operator inside the model, under torch.distributed.

Two processes (gloo, CPU) each train a copy of a small MLP whose activation is a dlbridge
kernel registered as a PyTorch operator with its own backward (``dlbridge.torch.custom_op``).
DistributedDataParallel averages the gradients between the processes after every backward,
so both copies take the same steps: the script checks that the parameters agree on both ranks
and that the loss went down.

    PYTHONPATH=build/python python3 examples/torch_ddp.py [--steps 20] [--compile]

``--compile`` also runs the model under ``torch.compile(fullgraph=True)`` (DDP splits the graph
at its buckets; the operator stays inside).

On GPUs the same script needs only its device: each process calls
``torch.cuda.set_device(rank)``, moves the model and the batches there and uses the ``nccl``
backend. The operator then runs on the process's own GPU (the tensors' device id) and on
PyTorch's current stream of that device, which dlbridge takes from PyTorch for every call, so
the kernel is ordered with the model's other kernels and with DDP's gradient all-reduces
without any synchronisation of its own. With several GPUs per process (model parallelism),
each call runs where its tensors are, on that device's current stream.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import tempfile
from typing import Any

import dlbridge
import dlbridge.torch
import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp


@dlbridge.jit
def swish_backward(x, grad):
    s = 1 / (1 + np.exp(-x))
    return grad * (s + x * s * (1 - s))


@dlbridge.torch.custom_op("examples::swish", backward=swish_backward)
@dlbridge.jit
def swish(x) -> torch.Tensor:
    """x * sigmoid(x), fused into one kernel."""
    return x / (1 + np.exp(-x))


class Model(torch.nn.Module):
    """A two-layer MLP with the dlbridge activation between its layers."""

    def __init__(self) -> None:
        super().__init__()
        self.hidden = torch.nn.Linear(8, 32)
        self.out = torch.nn.Linear(32, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(swish(self.hidden(x)))


def _batch(rank: int, step: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Each rank's own slice of the data: y = sum of sin(x)."""
    gen = torch.Generator().manual_seed(1000 * step + rank)
    x = torch.randn(64, 8, generator=gen)
    return x, torch.sin(x).sum(dim=1, keepdim=True)


def _train(rank: int, world: int, init_file: str, steps: int, compiled: bool, results: Any) -> None:
    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=world)
    torch.manual_seed(0)  # DDP broadcasts rank 0's parameters anyway
    model = torch.nn.parallel.DistributedDataParallel(Model())
    step_model = torch.compile(model, fullgraph=False) if compiled else model
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    losses = []
    for step in range(steps):
        x, y = _batch(rank, step % 4)
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(step_model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    gathered = [torch.empty_like(flat) for _ in range(world)]
    dist.all_gather(gathered, flat)
    if rank == 0:
        results.put((losses, [g.tolist() for g in gathered]))
    dist.destroy_process_group()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--compile", action="store_true")
    args = parser.parse_args(argv)
    world = 2
    # compiles the kernels once here, into dlbridge's disk cache, which both processes then read
    Model()(torch.randn(2, 8, requires_grad=True)).sum().backward()
    context = mp.get_context("spawn")
    results = context.SimpleQueue()
    with tempfile.TemporaryDirectory() as tmp:
        init_file = os.path.join(tmp, f"init-{socket.gethostname()}-{os.getpid()}")
        mp.spawn(_train, args=(world, init_file, args.steps, args.compile, results), nprocs=world, join=True)
    losses, params = results.get()
    agree = np.allclose(params[0], params[1], rtol=0, atol=1e-6)
    first, last = np.mean(losses[:2]), np.mean(losses[-2:])
    print(f"loss on rank 0: {first:.4f} -> {last:.4f} over {args.steps} steps")
    print("parameters agree on both ranks" if agree else "parameters DIFFER between ranks")
    print("loss decreased" if last < first else "loss did NOT decrease")
    return 0 if agree and last < first else 1


if __name__ == "__main__":
    sys.exit(main())
