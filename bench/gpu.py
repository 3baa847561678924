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
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable

import dlbridge
import numpy as np
import scipy.special
import torch
from gpu_timing import Candidate, Row, gpu_time, host_time, measure, seconds_of

# ---------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------


@dlbridge.jit
def add3(a: Any, b: Any, c: Any) -> Any:
    return a + b + c


@dlbridge.jit
def add3_into(a: Any, b: Any, c: Any, out: Any) -> None:
    out[...] = a + b + c


@dlbridge.jit
def scale_shift(x: Any) -> Any:
    return x * 2.0 + 1.0


@dlbridge.jit
def scale_shift_into(x: Any, out: Any) -> None:
    out[...] = x * 2.0 + 1.0


@dlbridge.jit
def row_sum(x: Any) -> Any:
    return x.sum(axis=-1)


@dlbridge.jit
def softmax(x: Any) -> Any:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@dlbridge.jit
def log_softmax(x: Any) -> Any:
    shifted = x - x.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


@dlbridge.jit
def logsumexp(x: Any) -> Any:
    top = x.max(axis=-1, keepdims=True)
    return (top + np.log(np.exp(x - top).sum(axis=-1, keepdims=True)))[:, 0]


@dlbridge.jit
def layer_norm(x: Any, gamma: Any, beta: Any) -> Any:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(var + 1e-5) * gamma + beta


@dlbridge.jit
def rms_norm(x: Any, gamma: Any) -> Any:
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + 1e-6) * gamma


@dlbridge.jit
def column_sum(x: Any) -> Any:
    return x.sum(axis=0)


@dlbridge.jit
def middle_sum(x: Any) -> Any:
    return x.sum(axis=1)


@dlbridge.jit
def cumsum_rows(x: Any) -> Any:
    return np.cumsum(x, axis=-1)


@dlbridge.jit
def cumsum_columns(x: Any) -> Any:
    return np.cumsum(x, axis=0)


def gelu_tanh_of(xp: Any) -> Callable[[Any], Any]:
    """GELU's tanh form in the array namespace ``xp`` (NumPy for @jit, torch for torch.compile)."""
    def gelu_tanh(x: Any) -> Any:
        return 0.5 * x * (1.0 + xp.tanh(0.7978845608028654 * (x + 0.044715 * x**3)))
    return gelu_tanh


def silu_of(xp: Any) -> Callable[[Any], Any]:
    def silu(x: Any) -> Any:
        return x / (1.0 + xp.exp(-x))
    return silu


def softplus_of(xp: Any) -> Callable[[Any], Any]:
    def softplus(x: Any) -> Any:
        return xp.log1p(xp.exp(-xp.abs(x))) + xp.maximum(x, 0.0)
    return softplus


@dlbridge.jit
def gelu_erf(x: Any) -> Any:
    return 0.5 * x * (1.0 + scipy.special.erf(x * 0.7071067811865476))


gelu_tanh = dlbridge.jit(gelu_tanh_of(np))
silu = dlbridge.jit(silu_of(np))
softplus = dlbridge.jit(softplus_of(np))


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
              "dlbridge.jit ≤ 2.5 µs per call and ahead of Triton")
    n = 1024
    a, b, c = (torch.ones(n, device="cuda") for _ in range(3))
    iterations, repeats = (2000, 5) if quick else (10000, 7)
    timer = lambda fn: host_time(fn, iterations, repeats)  # noqa: E731
    us = lambda s: f"{s * 1e6:.2f} µs"  # noqa: E731
    measure(row, "dlbridge.jit", lambda: lambda: add3(a, b, c), timer, us)
    out = torch.empty_like(a)
    measure(row, "dlbridge.jit, into out", lambda: lambda: add3_into(a, b, c, out), timer, us,
            "no result to allocate")
    measure(row, "torch eager", lambda: lambda: a + b + c, timer, us, "two kernels")
    measure(row, "Triton", lambda: (lambda f: lambda: f(a, b, c))(triton_add3()), timer, us)
    measure(row, "CuPy RawKernel", lambda: cupy_add3(n), timer, us, "CuPy arrays")
    measure(row, "numba-cuda", lambda: numba_add3(n), timer, us, "CuPy arrays")
    mine, triton = seconds_of(row, "dlbridge.jit"), seconds_of(row, "Triton")
    if mine is not None:
        row.met = mine <= 2.5e-6 and (triton is None or mine < triton)
        row.verdict = f"dlbridge.jit {mine * 1e6:.2f} µs" + (f", Triton {triton * 1e6:.2f} µs" if triton else "")
    return row


def bandwidth(bytes_moved: int) -> Callable[[float], str]:
    return lambda s: f"{bytes_moved / s / 1e9:.0f} GB/s"


def copy_seconds(x: Any, iterations: int) -> float:
    out = torch.empty_like(x)
    return gpu_time(lambda: out.copy_(x), iterations, 5)


def elementwise_row(quick: bool) -> tuple[Row, float, Any]:
    n = (1 << 26) if quick else (1 << 28)
    x = torch.randn(n, device="cuda")
    moved = 2 * x.nbytes
    row = Row(f"elementwise: x * 2 + 1, float32[{n}] ({x.nbytes >> 20} MiB)",
              "≥ 90% of device-to-device copy bandwidth")
    timer = lambda fn: gpu_time(fn, 10, 5)  # noqa: E731
    copy = copy_seconds(x, 10)
    row.candidates.append(Candidate("copy (torch copy_)", copy, bandwidth(moved)(copy), "device-to-device"))
    measure(row, "dlbridge.jit", lambda: lambda: scale_shift(x), timer, bandwidth(moved))
    out = torch.empty_like(x)
    measure(row, "dlbridge.jit, into out", lambda: lambda: scale_shift_into(x, out), timer, bandwidth(moved),
            "no result to allocate")
    measure(row, "torch eager", lambda: lambda: x * 2.0 + 1.0, timer, bandwidth(moved), "two kernels")
    measure(row, "torch.compile", lambda: (lambda f: lambda: f(x))(torch.compile(lambda t: t * 2.0 + 1.0)), timer,
            bandwidth(moved))
    measure(row, "Triton", lambda: (lambda f: lambda: f(x))(triton_scale_shift()), timer, bandwidth(moved))
    mine = seconds_of(row, "dlbridge.jit")
    if mine is not None:
        share = copy / mine
        row.met = share >= 0.9
        row.verdict = f"{share:.0%} of copy bandwidth"
    return row, copy, x


def math_rows(quick: bool, copy: float, x: Any) -> list[Row]:
    """Math-heavy elementwise functions: one read and one write of ``x``."""
    rows = []
    moved = 2 * x.nbytes
    timer = lambda fn: gpu_time(fn, 10, 5)  # noqa: E731
    target = "≥ 90% of copy bandwidth, ≥ torch eager, within 5% of torch.compile"
    functions = (
        ("GELU (tanh form)", gelu_tanh, lambda t: torch.nn.functional.gelu(t, approximate="tanh"), gelu_tanh_of(torch)),
        ("GELU (erf form)", gelu_erf, torch.nn.functional.gelu,
         lambda t: 0.5 * t * (1.0 + torch.erf(t * 0.7071067811865476))),
        ("SiLU", silu, torch.nn.functional.silu, silu_of(torch)),
        ("softplus", softplus, torch.nn.functional.softplus, softplus_of(torch)),
    )
    for name, mine, eager, source in functions:
        row = Row(f"{name}, float32[{x.numel()}]", target)
        row.candidates.append(Candidate("copy (torch copy_)", copy, bandwidth(moved)(copy)))
        measure(row, "dlbridge.jit", lambda: lambda: mine(x), timer, bandwidth(moved))
        measure(row, "torch eager", lambda: lambda: eager(x), timer, bandwidth(moved))
        measure(row, "torch.compile", lambda: (lambda f: lambda: f(x))(torch.compile(source)), timer,
                bandwidth(moved))
        ours, theirs, compiled = (seconds_of(row, p) for p in ("dlbridge.jit", "torch eager", "torch.compile"))
        if ours is not None:
            share = copy / ours
            row.met = (share >= 0.9 and (theirs is None or ours <= theirs)
                       and (compiled is None or ours <= 1.05 * compiled))
            row.verdict = f"{share:.0%} of copy bandwidth" + (
                f", {compiled / ours:.2f}× torch.compile's speed" if compiled else "")
        rows.append(row)
    return rows


def row_kernel_rows(quick: bool) -> list[Row]:
    """Reductions along rows and the row kernels built on them."""
    rows = []
    m, n = (4096, 8192) if quick else (16384, 16384)
    x = torch.randn(m, n, device="cuda")
    gamma, beta = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    copy = copy_seconds(x, 10)
    timer = lambda fn: gpu_time(fn, 10, 5)  # noqa: E731
    target = "≥ 90% of copy bandwidth and at least torch's speed"

    row = Row(f"row sum: x.sum(axis=-1), float32[{m}, {n}]", target)
    row.candidates.append(Candidate("copy (torch copy_)", copy, bandwidth(2 * x.nbytes)(copy), "reads and writes x"))
    measure(row, "dlbridge.jit", lambda: lambda: row_sum(x), timer, bandwidth(x.nbytes))
    measure(row, "torch", lambda: lambda: x.sum(dim=-1), timer, bandwidth(x.nbytes))
    rows.append(judge(row, x.nbytes, copy, 2 * x.nbytes, "torch", 0.9))

    cases = (
        ("softmax over rows", softmax, lambda t: torch.softmax(t, dim=-1), "torch.softmax", (), 2),
        ("log-softmax over rows", log_softmax, lambda t: torch.log_softmax(t, dim=-1), "torch.log_softmax", (), 2),
        ("logsumexp over rows", logsumexp, lambda t: torch.logsumexp(t, dim=-1), "torch.logsumexp", (), 1),
        ("layer norm over rows", layer_norm,
         lambda t, g, b: torch.nn.functional.layer_norm(t, (n,), g, b), "F.layer_norm", (gamma, beta), 2),
        ("RMS norm over rows", rms_norm, lambda t, g: torch.nn.functional.rms_norm(t, (n,), g, 1e-6),
         "F.rms_norm", (gamma,), 2),
    )
    for name, mine, theirs, peer, extra, passes in cases:
        moved = passes * x.nbytes
        row = Row(f"{name}, float32[{m}, {n}]", target)
        row.candidates.append(Candidate("copy (torch copy_)", copy, bandwidth(2 * x.nbytes)(copy)))
        measure(row, "dlbridge.jit", lambda: lambda: mine(x, *extra), timer, bandwidth(moved))
        measure(row, peer, lambda: lambda: theirs(x, *extra), timer, bandwidth(moved))
        rows.append(judge(row, moved, copy, 2 * x.nbytes, peer, 0.9))

    for dtype in (torch.float16, torch.bfloat16):
        h = x.to(dtype)
        row = Row(f"softmax over rows, {str(dtype)[6:]}[{m}, {n}]", target)
        hcopy = copy_seconds(h, 10)
        row.candidates.append(Candidate("copy (torch copy_)", hcopy, bandwidth(2 * h.nbytes)(hcopy)))
        measure(row, "dlbridge.jit", lambda: lambda: softmax(h), timer, bandwidth(2 * h.nbytes))
        measure(row, "torch.softmax", lambda: lambda: torch.softmax(h, dim=-1), timer, bandwidth(2 * h.nbytes))
        rows.append(judge(row, 2 * h.nbytes, hcopy, 2 * h.nbytes, "torch.softmax", 0.9))

    for rows_count, width in ((1 << 22, 64), (1 << 11, 100_000)) if not quick else ((1 << 18, 64), (256, 100_000)):
        y = torch.randn(rows_count, width, device="cuda")
        ycopy = copy_seconds(y, 10)
        row = Row(f"softmax over rows, float32[{rows_count}, {width}]", target)
        row.candidates.append(Candidate("copy (torch copy_)", ycopy, bandwidth(2 * y.nbytes)(ycopy)))
        measure(row, "dlbridge.jit", lambda: lambda: softmax(y), timer, bandwidth(2 * y.nbytes))
        measure(row, "torch.softmax", lambda: lambda: torch.softmax(y, dim=-1), timer, bandwidth(2 * y.nbytes))
        rows.append(judge(row, 2 * y.nbytes, ycopy, 2 * y.nbytes, "torch.softmax", 0.9))
    return rows


def axis_rows(quick: bool) -> list[Row]:
    """Reductions over a leading or middle axis, and scans along either axis."""
    rows = []
    m, n = (4096, 8192) if quick else (16384, 16384)
    x = torch.randn(m, n, device="cuda")
    copy = copy_seconds(x, 10)
    timer = lambda fn: gpu_time(fn, 10, 5)  # noqa: E731

    cube = x.view(m // 64, 64, n)
    for name, mine, theirs, arg in (
        (f"column sum: x.sum(axis=0), float32[{m}, {n}]", column_sum, lambda t: t.sum(dim=0), x),
        (f"middle-axis sum: x.sum(axis=1), float32{list(cube.shape)}", middle_sum, lambda t: t.sum(dim=1), cube),
    ):
        row = Row(name, "≥ 80% of copy bandwidth and at least torch's speed")
        row.candidates.append(Candidate("copy (torch copy_)", copy, bandwidth(2 * x.nbytes)(copy)))
        measure(row, "dlbridge.jit", lambda: lambda: mine(arg), timer, bandwidth(x.nbytes))
        measure(row, "torch", lambda: lambda: theirs(arg), timer, bandwidth(x.nbytes))
        rows.append(judge(row, x.nbytes, copy, 2 * x.nbytes, "torch", 0.8))

    for name, mine, axis in (("cumsum along rows: np.cumsum(x, axis=-1)", cumsum_rows, -1),
                             ("cumsum down columns: np.cumsum(x, axis=0)", cumsum_columns, 0)):
        row = Row(f"{name}, float32[{m}, {n}]", "≥ 70% of copy bandwidth and at least torch.cumsum's speed")
        row.candidates.append(Candidate("copy (torch copy_)", copy, bandwidth(2 * x.nbytes)(copy)))
        measure(row, "dlbridge.jit", lambda: lambda: mine(x), timer, bandwidth(2 * x.nbytes))
        measure(row, "torch.cumsum", lambda: lambda: torch.cumsum(x, dim=axis), timer, bandwidth(2 * x.nbytes))
        rows.append(judge(row, 2 * x.nbytes, copy, 2 * x.nbytes, "torch.cumsum", 0.7))
    return rows


def judge(row: Row, moved: int, copy: float, copy_moved: int, peer: str, share_target: float) -> Row:
    mine, theirs = seconds_of(row, "dlbridge.jit"), seconds_of(row, peer)
    if mine is not None:
        share = (moved / mine) / (copy_moved / copy)
        row.met = share >= share_target and (theirs is None or mine <= theirs)
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
    """Runs each row's dlbridge kernels once, at sizes that fill the GPU, for
    Nsight Compute (after a first call that compiles them)."""
    x = torch.randn(1 << 26, device="cuda")
    rows = torch.randn(4096, 16384, device="cuda")
    gamma = torch.randn(16384, device="cuda")
    a = torch.randn(1024, device="cuda")
    calls = [(add3, (a, a, a)), (scale_shift, (x,)), (scale_shift_into, (x, torch.empty_like(x))),
             (gelu_tanh, (x,)), (gelu_erf, (x,)), (silu, (x,)),
             (softplus, (x,)), (row_sum, (rows,)), (softmax, (rows,)), (softmax, (rows.half(),)),
             (log_softmax, (rows,)), (logsumexp, (rows,)), (layer_norm, (rows, gamma, gamma)),
             (rms_norm, (rows, gamma)), (softmax, (torch.randn(1 << 20, 64, device="cuda"),)),
             (column_sum, (rows,)), (middle_sum, (rows.view(64, 64, 16384),)),
             (cumsum_rows, (rows[:64],)), (cumsum_columns, (rows[:, :4096],))]
    for fn, args in calls:
        print(f"profile: {fn.__name__}{[tuple(a.shape) for a in args]}", flush=True)
        fn(*args)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    for fn, args in calls:
        fn(*args)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()


SECTIONS = ("launch", "elementwise", "math", "rows", "axes", "matmul", "programs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer samples")
    parser.add_argument("--only", default=",".join(SECTIONS), help=f"comma-separated sections of {SECTIONS}")
    parser.add_argument("--profile", action="store_true", help="run dlbridge's kernels only, for a profiler")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("bench/gpu.py: PyTorch sees no CUDA device")
    if args.profile:
        profile()
        return
    only = set(args.only.split(","))
    facts = device_facts()
    command = "python3 bench/gpu.py" + (" --quick" if args.quick else "") + (
        f" --only {args.only}" if only != set(SECTIONS) else "")
    args.out.mkdir(parents=True, exist_ok=True)
    rows: list[Row] = []

    def write() -> None:
        """The results so far: a run cut short still leaves every finished section."""
        (args.out / "gpu-latest.json").write_text(json.dumps(
            {"facts": facts, "command": command, "rows": [asdict(r) for r in rows]}, indent=2) + "\n")
        (args.out / "gpu-latest.md").write_text(render(rows, facts, command))

    if "launch" in only:
        rows.append(launch_row(args.quick))
    if only & {"elementwise", "math"}:
        elementwise, copy, x = elementwise_row(args.quick)
        rows.append(elementwise)
        write()
        if "math" in only:
            rows += math_rows(args.quick, copy, x)
        del x
    write()
    if "rows" in only:
        rows += row_kernel_rows(args.quick)
        write()
    if "axes" in only:
        rows += axis_rows(args.quick)
        write()
    if "matmul" in only:
        rows.append(matmul_row(args.quick))
        write()
    if "programs" in only:
        from gpu_programs import program_rows

        rows += program_rows(args.quick)
        write()
    print(render(rows, facts, command))


if __name__ == "__main__":
    main()
