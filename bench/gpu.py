"""GPU benchmark rows: dlbridge's CUDA kernels against peers on the same GPU.

Run by ``make gpu-check`` on a machine with an NVIDIA GPU (PyTorch required;
Triton, CuPy and numba-cuda are peers when importable); writes
``bench/results/gpu-latest.{md,json}`` naming the device. Every ratio compares
candidates measured in this process, one after the other, on one GPU.

    python3 bench/gpu.py [--out DIR] [--quick]

``--profile`` only runs each of dlbridge's kernels of the rows a few times, for
Nsight Compute to measure (see ``make gpu-check``'s profile step):

    ncu --kernel-name regex:_kernel --csv --metrics ... python3 bench/gpu.py --profile
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import statistics
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

import dlbridge
import numpy as np
import torch


@dataclass
class Candidate:
    """One peer's result in a row: a time per call, or why there is none."""

    peer: str
    seconds: float | None = None
    metric: str = ""
    note: str = ""


@dataclass
class Row:
    """Candidates of one benchmark, with the target and whether it was met."""

    name: str
    target: str
    candidates: list[Candidate] = field(default_factory=list)
    met: bool | None = None
    verdict: str = ""


def gpu_time(fn: Callable[[], Any], iterations: int, repeats: int) -> float:
    """Median seconds per call of ``fn`` on the GPU (CUDA events around
    ``iterations`` calls), after warm-up calls."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(repeats):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iterations):
            fn()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop) / 1e3 / iterations)
    return statistics.median(samples)


def host_time(fn: Callable[[], Any], iterations: int, repeats: int) -> float:
    """Median wall seconds per call of ``fn`` issued back to back from Python,
    the GPU drained after each sample: what a launch costs the caller."""
    for _ in range(100):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(iterations):
            fn()
        samples.append((time.perf_counter() - start) / iterations)
        torch.cuda.synchronize()
    return statistics.median(samples)


def measure(row: Row, peer: str, make: Callable[[], Callable[[], Any]], timer: Callable[[Callable[[], Any]], float],
            metric: Callable[[float], str] = lambda s: "", note: str = "") -> Candidate:
    """Times ``make()``'s callable with ``timer``; a peer that fails to build or
    run is recorded with the reason instead of ending the run."""
    candidate = Candidate(peer, note=note)
    try:
        fn = make()
        candidate.seconds = timer(fn)
        candidate.metric = metric(candidate.seconds)
    except Exception as error:  # a missing or failing peer is reported, not fatal
        candidate.note = f"failed: {type(error).__name__}: {str(error).splitlines()[0][:160]}"
    row.candidates.append(candidate)
    return candidate


def seconds_of(row: Row, peer: str) -> float | None:
    return next((c.seconds for c in row.candidates if c.peer == peer), None)


# ---------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------


@dlbridge.jit
def add3(a: Any, b: Any, c: Any) -> Any:
    return a + b + c


@dlbridge.jit
def scale_shift(x: Any) -> Any:
    return x * 2.0 + 1.0


@dlbridge.jit
def row_sum(x: Any) -> Any:
    return x.sum(axis=-1)


@dlbridge.jit
def softmax(x: Any) -> Any:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@dlbridge.jit
def matmul(a: Any, b: Any) -> Any:
    return a @ b


def triton_add3() -> Callable[..., Any]:
    import triton
    import triton.language as tl

    @triton.jit
    def kernel(a, b, c, out, n, BLOCK: tl.constexpr):  # noqa: N803 (Triton's constexpr style)
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        total = tl.load(a + offsets, mask=mask) + tl.load(b + offsets, mask=mask) + tl.load(c + offsets, mask=mask)
        tl.store(out + offsets, total, mask=mask)

    def call(a: Any, b: Any, c: Any) -> Any:
        out = torch.empty_like(a)
        n = a.numel()
        kernel[(triton.cdiv(n, 1024),)](a, b, c, out, n, BLOCK=1024)
        return out

    return call


def triton_scale_shift() -> Callable[..., Any]:
    import triton
    import triton.language as tl

    @triton.jit
    def kernel(x, out, n, BLOCK: tl.constexpr):  # noqa: N803
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        tl.store(out + offsets, tl.load(x + offsets, mask=mask) * 2.0 + 1.0, mask=mask)

    def call(x: Any) -> Any:
        out = torch.empty_like(x)
        kernel[(triton.cdiv(x.numel(), 4096),)](x, out, x.numel(), BLOCK=4096)
        return out

    return call


CUPY_ADD3 = r"""
extern "C" __global__ void add3(const float *a, const float *b, const float *c, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i] + c[i];
}
"""


def cupy_add3(n: int) -> Callable[..., Any]:
    import cupy

    kernel = cupy.RawKernel(CUPY_ADD3, "add3")
    a, b, c = (cupy.ones(n, dtype=cupy.float32) for _ in range(3))

    def call() -> Any:
        out = cupy.empty_like(a)
        kernel(((n + 255) // 256,), (256,), (a, b, c, out, cupy.int32(n)))
        return out

    return call


def numba_add3(n: int) -> Callable[..., Any]:
    import cupy
    from numba import cuda

    @cuda.jit
    def kernel(a, b, c, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a[i] + b[i] + c[i]

    a, b, c = (cupy.ones(n, dtype=cupy.float32) for _ in range(3))

    def call() -> Any:
        out = cupy.empty_like(a)
        kernel[(n + 255) // 256, 256](a, b, c, out)
        return out

    return call


# ---------------------------------------------------------------------------
# Rows
# ---------------------------------------------------------------------------


def launch_row(quick: bool) -> Row:
    row = Row("launch: add3(a, b, c), three float32[1024] PyTorch CUDA tensors, a new result per call",
              "dlbridge.jit ≤ 4 µs per call and ahead of Triton")
    n = 1024
    a, b, c = (torch.ones(n, device="cuda") for _ in range(3))
    iterations, repeats = (2000, 5) if quick else (10000, 7)
    timer = lambda fn: host_time(fn, iterations, repeats)  # noqa: E731
    us = lambda s: f"{s * 1e6:.2f} µs"  # noqa: E731
    measure(row, "dlbridge.jit", lambda: lambda: add3(a, b, c), timer, us)
    measure(row, "torch eager", lambda: lambda: a + b + c, timer, us, "two kernels")
    measure(row, "Triton", lambda: (lambda f: lambda: f(a, b, c))(triton_add3()), timer, us)
    measure(row, "CuPy RawKernel", lambda: cupy_add3(n), timer, us, "CuPy arrays")
    measure(row, "numba-cuda", lambda: numba_add3(n), timer, us, "CuPy arrays")
    mine, triton = seconds_of(row, "dlbridge.jit"), seconds_of(row, "Triton")
    if mine is not None:
        row.met = mine <= 4e-6 and (triton is None or mine < triton)
        row.verdict = f"dlbridge.jit {mine * 1e6:.2f} µs" + (f", Triton {triton * 1e6:.2f} µs" if triton else "")
    return row


def bandwidth(bytes_moved: int) -> Callable[[float], str]:
    return lambda s: f"{bytes_moved / s / 1e9:.0f} GB/s"


def copy_seconds(x: Any, iterations: int) -> float:
    out = torch.empty_like(x)
    return gpu_time(lambda: out.copy_(x), iterations, 5)


def elementwise_row(quick: bool) -> tuple[Row, float]:
    n = (1 << 26) if quick else (1 << 28)
    x = torch.randn(n, device="cuda")
    moved = 2 * x.nbytes
    row = Row(f"elementwise: x * 2 + 1, float32[{n}] ({x.nbytes >> 20} MiB)",
              "≥ 90% of device-to-device copy bandwidth")
    timer = lambda fn: gpu_time(fn, 10, 5)  # noqa: E731
    copy = copy_seconds(x, 10)
    row.candidates.append(Candidate("copy (torch copy_)", copy, bandwidth(moved)(copy), "device-to-device"))
    measure(row, "dlbridge.jit", lambda: lambda: scale_shift(x), timer, bandwidth(moved))
    measure(row, "torch eager", lambda: lambda: x * 2.0 + 1.0, timer, bandwidth(moved), "two kernels")
    measure(row, "torch.compile", lambda: (lambda f: lambda: f(x))(torch.compile(lambda t: t * 2.0 + 1.0)), timer,
            bandwidth(moved))
    measure(row, "Triton", lambda: (lambda f: lambda: f(x))(triton_scale_shift()), timer, bandwidth(moved))
    mine = seconds_of(row, "dlbridge.jit")
    if mine is not None:
        share = copy / mine
        row.met = share >= 0.9
        row.verdict = f"{share:.0%} of copy bandwidth"
    return row, copy


def reduction_rows(quick: bool) -> list[Row]:
    rows = []
    m, n = (4096, 8192) if quick else (16384, 16384)
    x = torch.randn(m, n, device="cuda")
    copy = copy_seconds(x, 10)
    timer = lambda fn: gpu_time(fn, 10, 5)  # noqa: E731

    row = Row(f"row sum: x.sum(axis=-1), float32[{m}, {n}]", "≥ 80% of copy bandwidth and at least torch's speed")
    moved = x.nbytes
    row.candidates.append(Candidate("copy (torch copy_)", copy, bandwidth(2 * x.nbytes)(copy), "reads and writes x"))
    measure(row, "dlbridge.jit", lambda: lambda: row_sum(x), timer, bandwidth(moved))
    measure(row, "torch", lambda: lambda: x.sum(dim=-1), timer, bandwidth(moved))
    rows.append(judge(row, moved, copy, 2 * x.nbytes, "torch"))

    row = Row(f"softmax over rows, float32[{m}, {n}]", "≥ 80% of copy bandwidth and at least torch's speed")
    moved = 2 * x.nbytes
    row.candidates.append(Candidate("copy (torch copy_)", copy, bandwidth(moved)(copy)))
    measure(row, "dlbridge.jit", lambda: lambda: softmax(x), timer, bandwidth(moved))
    measure(row, "torch.softmax", lambda: lambda: torch.softmax(x, dim=-1), timer, bandwidth(moved))
    rows.append(judge(row, moved, copy, moved, "torch.softmax"))
    return rows


def judge(row: Row, moved: int, copy: float, copy_moved: int, peer: str) -> Row:
    mine, theirs = seconds_of(row, "dlbridge.jit"), seconds_of(row, peer)
    if mine is not None:
        share = (moved / mine) / (copy_moved / copy)
        row.met = share >= 0.8 and (theirs is None or mine <= theirs)
        row.verdict = f"{share:.0%} of copy bandwidth" + (f", {theirs / mine:.2f}× {peer}'s speed" if theirs else "")
    return row


def matmul_row(quick: bool) -> Row:
    size = 2048 if quick else 4096
    a = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
    flops = 2 * size**3
    row = Row(f"matmul: bfloat16 {size}³", "≥ 70% of torch.matmul")
    tflops = lambda s: f"{flops / s / 1e12:.0f} TFLOP/s"  # noqa: E731
    timer = lambda fn: gpu_time(fn, 20, 5)  # noqa: E731
    measure(row, "dlbridge.jit", lambda: lambda: matmul(a, b), timer, tflops)
    measure(row, "torch.matmul", lambda: lambda: torch.matmul(a, b), timer, tflops)
    mine, theirs = seconds_of(row, "dlbridge.jit"), seconds_of(row, "torch.matmul")
    if mine is not None and theirs is not None:
        row.met = theirs / mine >= 0.7
        row.verdict = f"{theirs / mine:.0%} of torch.matmul"
    return row


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


def device_facts() -> dict[str, Any]:
    props = torch.cuda.get_device_properties(0)
    facts: dict[str, Any] = {
        "device": props.name,
        "compute_capability": f"{props.major}.{props.minor}",
        "multiprocessors": props.multi_processor_count,
        "memory_gib": round(props.total_memory / 2**30, 1),
        "torch": torch.__version__,
        "cuda_runtime": torch.version.cuda,
        "python": platform.python_version(),
        "dlbridge": dlbridge.__version__,
    }
    for name in ("triton", "cupy", "numba"):
        try:
            facts[name] = __import__(name).__version__
        except Exception:  # an absent peer is noted as such
            facts[name] = None
    return facts


def render(rows: list[Row], facts: dict[str, Any], command: str) -> str:
    peers = ", ".join(f"{k} {v}" for k, v in facts.items() if k not in ("device",) and v is not None)
    lines = [
        f"Measured {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC with `{command}` on "
        f"**{facts['device']}** ({peers}). Times are medians; GPU times from CUDA events, launch times from "
        "the host clock with the GPU drained between samples.",
        "",
        "| row | peer | time | throughput | target | met? | note |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        for i, c in enumerate(row.candidates):
            time_text = "—" if c.seconds is None else (
                f"{c.seconds * 1e6:.2f} µs" if c.seconds < 1e-3 else f"{c.seconds * 1e3:.3f} ms")
            met = "" if i else ("yes" if row.met else "**no**" if row.met is False else "—")
            lines.append(f"| {row.name if not i else ''} | {c.peer} | {time_text} | {c.metric} | "
                         f"{row.target if not i else ''} | {met}{': ' + row.verdict if not i and row.verdict else ''} "
                         f"| {c.note} |")
    return "\n".join(lines) + "\n"


def profile() -> None:
    """Runs each row's dlbridge kernel twice on the full-size inputs."""
    x = torch.randn(1 << 28, device="cuda")
    rows = torch.randn(16384, 16384, device="cuda")
    a = torch.randn(1024, device="cuda")
    for fn, args in ((add3, (a, a, a)), (scale_shift, (x,)), (row_sum, (rows,)), (softmax, (rows,))):
        for _ in range(2):
            fn(*args)
    torch.cuda.synchronize()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer samples")
    parser.add_argument("--profile", action="store_true", help="run dlbridge's kernels only, for a profiler")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("bench/gpu.py: PyTorch sees no CUDA device")
    if args.profile:
        profile()
        return
    rows = [launch_row(args.quick)]
    elementwise, _ = elementwise_row(args.quick)
    rows.append(elementwise)
    rows += reduction_rows(args.quick)
    rows.append(matmul_row(args.quick))
    facts = device_facts()
    command = "python3 bench/gpu.py" + (" --quick" if args.quick else "")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "gpu-latest.json").write_text(json.dumps(
        {"facts": facts, "command": command, "rows": [asdict(r) for r in rows]}, indent=2) + "\n")
    (args.out / "gpu-latest.md").write_text(render(rows, facts, command))
    print(render(rows, facts, command))


if __name__ == "__main__":
    main()
