"""Stream ordering of CUDA calls: a call runs on the framework's current stream
unless `stream=` names one, results order their consumers after the kernel
that wrote them, and a call can be captured in a CUDA graph."""

from __future__ import annotations

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
