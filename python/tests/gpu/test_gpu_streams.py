"""Stream ordering of CUDA calls: a call runs on the framework's current stream
unless `stream=` names one, results order their consumers after the kernel
that wrote them, and a call can be captured in a CUDA graph."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any, Callable

import dlbridge


@dlbridge.jit
def double(x: Any) -> Any:
    return x * 2


N = 1 << 22


def test_runs_on_pytorchs_current_stream(torch: Any, busy: Callable[[], None]) -> None:
    stream = torch.cuda.Stream()
    x = torch.zeros(N, device="cuda")
    double(x)  # compiled outside the timed part
    torch.cuda.synchronize()
    with torch.cuda.stream(stream):
        busy()
        x.fill_(1.0)  # queued on `stream` behind the sleep
        out = double(x)
        assert out.sum().item() == 2.0 * N


def test_stream_keyword_orders_pytorch_after_the_kernel(torch: Any, busy: Callable[[], None]) -> None:
    side = torch.cuda.Stream()
    x = torch.zeros(N, device="cuda")
    double(x)
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        busy()
        x.fill_(3.0)
    # Runs on `side`; PyTorch's current stream reads the result next.
    out = double(x, stream=side.cuda_stream)
    assert out.sum().item() == 6.0 * N


def test_results_order_their_consumers(torch: Any, busy: Callable[[], None]) -> None:
    producer, consumer = torch.cuda.Stream(), torch.cuda.Stream()
    x = dlbridge.from_dlpack(torch.ones(N, device="cuda"))
    double(x)
    torch.cuda.synchronize()
    with torch.cuda.stream(producer):
        busy()
    result = double(x, stream=producer.cuda_stream)
    assert isinstance(result, dlbridge.Tensor)
    with torch.cuda.stream(consumer):
        # torch.from_dlpack passes `consumer` to __dlpack__(stream=...).
        seen = torch.from_dlpack(result).sum().item()
    assert seen == 2.0 * N


def test_calls_can_be_captured_in_a_cuda_graph(torch: Any) -> None:
    x = torch.zeros(1024, device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        double(x)  # compiles and warms up outside the capture
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = double(x)
    x.copy_(torch.arange(1024.0, device="cuda"))
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(out, 2 * torch.arange(1024.0, device="cuda"))


MLP_CAPTURE = """
import numpy as np, torch, dlbridge

@dlbridge.jit
def mlp(x, w1, b1, w2, b2):
    return np.maximum(x @ w1 + b1, 0) @ w2 + b2

g = torch.Generator(device="cuda").manual_seed(0)
x, w1, w2 = (torch.randn(s, device="cuda", generator=g) for s in ((256, 512), (512, 1024), (1024, 128)))
b1, b2 = torch.randn(1024, device="cuda", generator=g), torch.randn(128, device="cuda", generator=g)
mlp(x, w1, b1, w2, b2)  # compiled in this process: the disk cache is off
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    mlp(x, w1, b1, w2, b2)
torch.cuda.current_stream().wait_stream(side)
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    out = mlp(x, w1, b1, w2, b2)
x.copy_(torch.randn(x.shape, device="cuda", generator=g))
graph.replay()
torch.cuda.synchronize()
want = torch.relu(x.double() @ w1.double() + b1.double()) @ w2.double() + b2.double()
error = ((out.double() - want).norm() / want.norm()).item()
assert error < 1e-2, error
print("captured", error)
"""


def test_a_fresh_compile_with_cublaslt_products_can_be_captured(torch: Any) -> None:
    """Issue 24 item 7: whatever a fresh compile defers (module loads, cuBLASLt
    handles and workspaces) happens before capture, not during it."""
    env = {**os.environ, "DLBRIDGE_DISK_CACHE": "0"}
    for _ in range(2):  # each run a fresh process with a fresh compile
        result = subprocess.run([sys.executable, "-c", MLP_CAPTURE], capture_output=True, text=True, env=env,
                                timeout=300)
        assert result.returncode == 0, result.stderr[-3000:]
        assert "captured" in result.stdout
