"""The benchmarks of issue 7: call overhead, zero-copy, kernel speed, compile
time and the GPU rows. Each ``run_*`` returns table rows (see ``harness``).

Conventions: every peer's result is checked against NumPy before it is timed;
JAX results are waited for (``block_until_ready``); threads are what the peer
uses by default on this machine (nothing is pinned or limited).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from harness import Candidate, Result, Row, Stats, TimingConfig, measure_row, skipped_row
from peers import BENCH_DIR, Peers

# Targets from issue 7, tightened by issue 13 (the call path, compile time).
CALL_FLOOR_MAX_RATIO = 1.0      # dlbridge / nanobind floor, NumPy inputs
EXCHANGE_CALL_MAX_S = 0.5e-6    # three tensors through the DLPack C exchange API
MEMORY_BOUND_MIN_SPEEDUP = 1.5  # NumPy / dlbridge on memory-bound chains
FASTEST_PEER_MAX_RATIO = 1.10   # dlbridge / fastest peer, every kernel row
COLD_COMPILE_MAX_S = 0.050
DISK_HIT_MAX_S = 0.001
# "large/small ≈ 1": a copy of the large input would make the ratio ~10^4 or
# more; this bound leaves room for the cache/TLB misses of touching one
# element of a cold 1 GiB buffer and for the machine's noise.
ZERO_COPY_MAX_RATIO = 1.25

CALL_ELEMENTS = 8  # "three small tensors"


@dataclass(frozen=True)
class Sizes:
    """Problem sizes of one mode."""

    elements: int            # elementwise rows
    softmax: tuple[int, int]
    rowsum: tuple[int, int]
    matmuls: tuple[int, ...]  # square sizes, one row each
    zero_copy_large_bytes: int


FULL = Sizes(10**7, (4096, 4096), (10**4, 10**3), (1024, 4096), 1 << 30)
QUICK = Sizes(10**6, (1024, 1024), (10**3, 10**3), (256,), 16 << 20)
# Rows whose one call takes seconds (matmul 4096²) take fewer samples.
LONG_ROW_TIMING = TimingConfig(repeats=5, warmup=1, min_sample_s=0.0)
LONG_ROW_MIN_SIZE = 2048


@dataclass
class Context:
    """What every suite needs."""

    peers: Peers
    dlbridge: Any
    sizes: Sizes
    call_timing: TimingConfig
    kernel_timing: TimingConfig
    compile_runs: int
    cores: int
    quick: bool = False  # test sizes instead of benchmark sizes (whole-kernel suite)


# ---------------------------------------------------------------- MLIR sources

ADD3_TENSOR_MLIR = """
#map = affine_map<(d0) -> (d0)>
func.func @add3(%a: tensor<?xf32> {dlpack.name = "a"}, %b: tensor<?xf32> {dlpack.name = "b"},
                %c: tensor<?xf32> {dlpack.name = "c"}) -> tensor<?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %init = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel"]}
      ins(%a, %b, %c : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.addf %s, %z : f32
    linalg.yield %t : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
"""

TOUCH3_MEMREF_MLIR = """
func.func @touch3(%a: memref<?xf32> {dlpack.name = "a"}, %b: memref<?xf32> {dlpack.name = "b"},
                  %c: memref<?xf32> {dlpack.name = "c"}) attributes {dlpack.entry} {
  return
}
"""

# O(1) body: reads one element of each input, returns their sum as a scalar.
FIRST3_MEMREF_MLIR = """
func.func @first3(%a: memref<?xf32> {dlpack.name = "a"}, %b: memref<?xf32> {dlpack.name = "b"},
                  %c: memref<?xf32> {dlpack.name = "c"}) -> f32 attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %x = memref.load %a[%c0] : memref<?xf32>
  %y = memref.load %b[%c0] : memref<?xf32>
  %z = memref.load %c[%c0] : memref<?xf32>
  %s = arith.addf %x, %y : f32
  %t = arith.addf %s, %z : f32
  return %t : f32
}
"""

SOFTMAX_MLIR = """
func.func @softmax(%x: tensor<?x?xf32> {dlpack.name = "x"}) -> tensor<?x?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = tensor.dim %x, %c0 : tensor<?x?xf32>
  %cols = tensor.dim %x, %c1 : tensor<?x?xf32>
  %init = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<?x?xf32>) outs(%init : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""


# ---------------------------------------------------------------- helpers

def _checker(result_of: Callable[[], Any], expected: np.ndarray, rtol: float) -> Callable[[], str | None]:
    """A check: same shape, float32 (when expected is) and max |diff| ≤ rtol·max|expected|."""
    def check() -> str | None:
        got = result_of()
        got_np = np.asarray(got)
        if got_np.shape != expected.shape:
            return f"shape {got_np.shape}, expected {expected.shape}"
        if expected.dtype == np.float32 and got_np.dtype != np.float32:
            return f"dtype {got_np.dtype}, expected float32"
        scale = float(np.max(np.abs(expected))) or 1.0
        error = float(np.max(np.abs(got_np.astype(np.float64) - expected.astype(np.float64))))
        return None if error <= rtol * scale else f"max error {error:.3g} > {rtol:g}·{scale:.3g}"
    return check


def _jax_blocking(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Wraps a jax call so the timer waits for its result."""
    def call(*args: Any) -> Any:
        return fn(*args).block_until_ready()
    return call


# ---------------------------------------------------------------- call overhead

def run_call_overhead(ctx: Context) -> list[Row]:
    """``f(a, b, c)`` on three 8-element float32 tensors, per input framework.

    Two bodies: ``add3`` = ``a + b + c`` into a new array returned in the
    caller's framework (the body issue 7 calls trivial: every peer imports three
    tensors, allocates and returns one), and ``touch3`` = take the three tensors
    and return nothing (argument passing alone).
    """
    dl, peers = ctx.dlbridge, ctx.peers
    section = "Call overhead: f(a, b, c), three float32[8] tensors"
    rows: list[Row] = []
    a, b, c = (np.arange(CALL_ELEMENTS, dtype=np.float32) * (i + 1) for i in range(3))
    expected = a + b + c

    @dl.jit
    def add3(x: Any, y: Any, z: Any) -> Any:
        return x + y + z

    add3_compiled = dl.compile(ADD3_TENSOR_MLIR)
    touch3_compiled = dl.compile(TOUCH3_MEMREF_MLIR)
    floor = peers.get("nanobind_floor")
    tvm = peers.get("tvm_ffi_peer")
    numba = peers.get("numba")
    jax = peers.get("jax")

    numba_add3 = numba_touch3 = jax_add3 = None
    if numba is not None:
        numba_add3 = numba.njit(lambda x, y, z: x + y + z)
        numba_touch3 = numba.njit(lambda x, y, z: None)
    if jax is not None:
        jax_add3 = jax.jit(lambda x, y, z: x + y + z)

    torch = peers.get("torch")
    frameworks: list[tuple[str, tuple[Any, Any, Any]]] = [("NumPy", (a, b, c))]
    if jax is not None:
        import jax.numpy as jnp  # noqa: PLC0415
        frameworks.append(("JAX", tuple(jnp.asarray(t) for t in (a, b, c))))
    if torch is not None:
        frameworks.append(("PyTorch", tuple(torch.from_numpy(t.copy()) for t in (a, b, c))))
    result_kinds = {"NumPy": "numpy.ndarray", "JAX": "jax.Array", "PyTorch": "torch.Tensor"}

    for framework, args in frameworks:
        x, y, z = args
        out_kind = result_kinds[framework]
        cands: list[Candidate] = []
        baseline = "nanobind floor"
        if floor is not None:
            fn = {"NumPy": floor.add3_numpy, "JAX": floor.add3_jax, "PyTorch": floor.add3_torch}[framework]
            cands.append(Candidate(baseline, lambda fn=fn: fn(x, y, z),
                                   note=f"nb::ndarray ×3 → {out_kind}",
                                   check=_checker(lambda fn=fn: fn(x, y, z), expected, 0)))
        cands.append(Candidate("dlbridge.jit", lambda: add3(x, y, z),
                               note=f"@dlbridge.jit, returns {out_kind}",
                               check=_checker(lambda: add3(x, y, z), expected, 0)))
        cands.append(Candidate("dlbridge.compile", lambda: add3_compiled(x, y, z),
                               note=f"tensor MLIR (linalg.generic), returns {out_kind}",
                               check=_checker(lambda: add3_compiled(x, y, z), expected, 0)))
        if numba_add3 is not None and framework == "NumPy":
            cands.append(Candidate("numba.njit", lambda: numba_add3(x, y, z),
                                   check=_checker(lambda: numba_add3(x, y, z), expected, 0)))
        if jax_add3 is not None and framework in ("NumPy", "JAX"):
            blocking = _jax_blocking(jax_add3)
            cands.append(Candidate("jax.jit", lambda: blocking(x, y, z),
                                   note="returns jax.Array" + (" (NumPy inputs are transferred each call)"
                                                               if framework == "NumPy" else ""),
                                   check=_checker(lambda: blocking(x, y, z), expected, 0)))
        if framework == "PyTorch":
            cands.append(Candidate("torch (eager)", lambda: x + y + z, note="two native adds",
                                   check=_checker(lambda: x + y + z, expected, 0)))
        if tvm is not None:
            cands.append(Candidate("tvm_ffi", lambda: tvm.add3(x, y, z),
                                   note="TVM_FFI_DLL_EXPORT_TYPED_FUNC, returns tvm_ffi.Tensor",
                                   check=_checker(lambda: np.from_dlpack(tvm.add3(x, y, z)), expected, 0)))
        row = measure_row(section, f"add3 = a + b + c, {framework} in", baseline, cands, ctx.call_timing)
        _call_verdict(row, framework == "NumPy", ("dlbridge.jit", "dlbridge.compile"))
        if framework != "NumPy":
            row.verdict = (f"numba.njit does not take {framework} arrays; " + row.verdict).strip()
        rows.append(row)

        cands = []
        if floor is not None:
            cands.append(Candidate(baseline, lambda: floor.touch3(x, y, z), note="nb::ndarray ×3 → None"))
        cands.append(Candidate("dlbridge.compile", lambda: touch3_compiled(x, y, z),
                               note="memref MLIR, no result"))
        if numba_touch3 is not None and framework == "NumPy":
            cands.append(Candidate("numba.njit", lambda: numba_touch3(x, y, z)))
        if tvm is not None:
            cands.append(Candidate("tvm_ffi", lambda: tvm.touch3(x, y, z), note="TensorView ×3 → None"))
        row = measure_row(section, f"touch3 = no result, {framework} in", baseline, cands, ctx.call_timing)
        _call_verdict(row, framework == "NumPy", ("dlbridge.compile",))
        row.verdict = ("@dlbridge.jit always returns an array, so it is not in this row; jax.jit has no "
                       "no-result form; " + row.verdict)
        if framework == "PyTorch":
            _exchange_verdict(row)
        rows.append(row)

    rows.append(_exchange_api_row(ctx, section, a, b, c, add3, add3_compiled, touch3_compiled, tvm))

    if torch is None:
        rows.append(skipped_row(section, "add3 / touch3, PyTorch in",
                                ["nanobind floor", "dlbridge.jit", "dlbridge.compile", "torch.compile",
                                 "tvm_ffi"], "skipped: PyTorch is not installed here"))
    return rows


def _exchange_api_row(ctx: Context, section: str, a: np.ndarray, b: np.ndarray, c: np.ndarray,
                      add3: Any, add3_compiled: Any, touch3_compiled: Any, tvm: Any) -> Row:
    """Three tensors through the DLPack C exchange API (``__dlpack_c_exchange_api__``).

    ``dlbridge.Tensor`` implements the same C API PyTorch ≥ 2.10 exports, so this row
    times dlbridge's side of the PyTorch path where PyTorch is not installed (the
    producer's ``dltensor_from_py_object_no_sync`` is dlbridge's own here).
    """
    x, y, z = (ctx.dlbridge.from_dlpack(t) for t in (a, b, c))
    expected = a + b + c
    cands = [
        Candidate("dlbridge.compile", lambda: touch3_compiled(x, y, z), note="touch3: memref MLIR, no result"),
        Candidate("dlbridge.compile add3", lambda: add3_compiled(x, y, z),
                  note="returns a dlbridge.Tensor through managed_tensor_to_py_object_no_sync",
                  check=_checker(lambda: np.from_dlpack(add3_compiled(x, y, z)), expected, 0)),
        Candidate("dlbridge.jit add3", lambda: add3(x, y, z),
                  check=_checker(lambda: np.from_dlpack(add3(x, y, z)), expected, 0)),
    ]
    if tvm is not None:
        cands.append(Candidate("tvm_ffi", lambda: tvm.touch3(x, y, z), note="touch3: TensorView ×3 → None"))
    row = measure_row(section, "touch3 / add3, exchange API in (dlbridge.Tensor)", "dlbridge.compile", cands,
                      ctx.call_timing)
    _exchange_verdict(row)
    row.verdict += "; the producer's dltensor_from_py_object_no_sync is dlbridge's own here"
    return row


def _exchange_verdict(row: Row) -> None:
    """Adds the exchange-API target: dlbridge.compile's touch3 of three tensors within EXCHANGE_CALL_MAX_S."""
    touch = row.time_of("dlbridge.compile")
    ok = touch is not None and touch <= EXCHANGE_CALL_MAX_S
    row.target = (f"{row.target}; " if row.target else "") + \
        f"touch3 ≤ {EXCHANGE_CALL_MAX_S * 1e9:.0f} ns for three tensors"
    row.target_met = ok and row.target_met is not False
    measured = f"touch3 {touch * 1e9:.0f} ns ({'ok' if ok else 'over'})" if touch is not None else "touch3 not measured"
    row.verdict = "; ".join(part for part in (measured, row.verdict.strip("; ")) if part)


def _call_verdict(row: Row, floor_target: bool, dlbridge_peers: Sequence[str]) -> None:
    """Within 1.5× of the nanobind floor (NumPy in) and ahead of every other peer."""
    floor = row.time_of(row.baseline)
    others = {r.peer: r.stats.median for r in row.results
              if r.stats is not None and r.peer not in dlbridge_peers and r.peer != row.baseline}
    parts, met = [], True
    for peer in dlbridge_peers:
        mine = row.time_of(peer)
        if mine is None:
            met = False
            parts.append(f"{peer} not measured")
            continue
        if floor_target and floor:
            ok = mine / floor <= CALL_FLOOR_MAX_RATIO
            met &= ok
            verdict = "ok" if ok else f"over {CALL_FLOOR_MAX_RATIO}×"
            parts.append(f"{peer} {mine / floor:.2f}× floor ({verdict})")
        slower_than = [p for p, t in others.items() if t <= mine]
        met &= not slower_than
        if slower_than:
            parts.append(f"{peer} behind {', '.join(slower_than)}")
    row.target = (f"≤ {CALL_FLOOR_MAX_RATIO}× floor and ahead of every other peer" if floor_target
                  else "ahead of every other peer")
    row.target_met = met
    row.verdict = "; ".join(parts)


# ---------------------------------------------------------------- zero-copy

def run_zero_copy(ctx: Context) -> list[Row]:
    """The same O(1) call on small (1 KiB) and large inputs: time must not grow with size."""
    dl, peers = ctx.dlbridge, ctx.peers
    small_n = 1024 // 4
    large_n = ctx.sizes.zero_copy_large_bytes // 4
    large_label = _bytes_label(ctx.sizes.zero_copy_large_bytes)
    section = f"Zero-copy: O(1) body on 1 KiB vs {large_label} inputs (×3)"
    first3 = dl.compile(FIRST3_MEMREF_MLIR)
    floor, tvm, numba, jax = (peers.get(n) for n in ("nanobind_floor", "tvm_ffi_peer", "numba", "jax"))
    numba_first3 = numba.njit(lambda x, y, z: x[0] + y[0] + z[0]) if numba is not None else None

    inputs = {}
    for label, n in (("1 KiB", small_n), (large_label, large_n)):
        inputs[label] = tuple(np.full(n, i + 1, dtype=np.float32) for i in range(3))
    cands: list[Candidate] = []
    for label, (x, y, z) in inputs.items():
        cands.append(Candidate(f"dlbridge.compile @ {label}", lambda x=x, y=y, z=z: first3(x, y, z),
                               note="memref MLIR: returns a[0]+b[0]+c[0] as a scalar"))
        if floor is not None:
            cands.append(Candidate(f"nanobind floor @ {label}", lambda x=x, y=y, z=z: floor.touch3(x, y, z)))
        if tvm is not None:
            cands.append(Candidate(f"tvm_ffi @ {label}", lambda x=x, y=y, z=z: tvm.touch3(x, y, z)))
        if numba_first3 is not None:
            cands.append(Candidate(f"numba.njit @ {label}", lambda x=x, y=y, z=z: numba_first3(x, y, z)))
    row = measure_row(section, "first3(a, b, c), NumPy in", "dlbridge.compile @ 1 KiB", cands, ctx.call_timing)
    parts, met = [], True
    for result in row.results:
        if not result.peer.endswith(large_label) or result.stats is None:
            continue
        peer = result.peer.rsplit(" @ ", 1)[0]
        small = row.time_of(f"{peer} @ 1 KiB")
        if small:
            ratio = result.stats.median / small
            parts.append(f"{peer} large/small = {ratio:.2f}")
            if peer.startswith("dlbridge"):
                met &= ratio <= ZERO_COPY_MAX_RATIO
    row.target = f"dlbridge large/small ≤ {ZERO_COPY_MAX_RATIO} (≈ 1)"
    row.target_met = met
    row.verdict = "; ".join(parts) + ("; @dlbridge.jit is not in this row: its results are new arrays, "
                                      "so no jit body is O(1) in the input size")
    del inputs
    return [row]


def _bytes_label(size: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:g} {unit}"
    return f"{size} B"


# ---------------------------------------------------------------- kernels

F32 = np.float32
GELU_K = F32(0.7978845608028654)  # sqrt(2/pi)
GELU_C = F32(0.044715)


def axpy_np(a: Any, x: Any, y: Any) -> Any:
    """a·x + y."""
    return a * x + y


def chain_np(x: Any, y: Any) -> Any:
    """Six elementwise ops: *, +, -, *, *, +."""
    return ((x * 2.0 + y) * (x - y)) * 0.5 + 1.0


def gelu_np(x: Any, xp: Any = np) -> Any:
    """GELU, tanh form: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))."""
    return 0.5 * x * (1.0 + xp.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))


def softmax_np(x: Any, xp: Any = np) -> Any:
    """Row softmax with the max subtracted."""
    e = xp.exp(x - xp.max(x, axis=1, keepdims=True))
    return e / xp.sum(e, axis=1, keepdims=True)


def rowsum_np(x: Any, xp: Any = np) -> Any:
    """Sum of each row."""
    return xp.sum(x, axis=1)


def matmul_np(a: Any, b: Any) -> Any:
    """a @ b."""
    return a @ b


def _numba_kernels(numba: Any) -> dict[str, Callable[..., Any]]:
    """Loops the way a numba user writes them (fused, float32 constants, one thread)."""
    njit = numba.njit(cache=False)
    two, half, one = F32(2.0), F32(0.5), F32(1.0)

    @njit
    def axpy(a, x, y):  # type: ignore[no-untyped-def]
        out = np.empty_like(x)
        for i in range(x.size):
            out[i] = a * x[i] + y[i]
        return out

    @njit
    def chain(x, y):  # type: ignore[no-untyped-def]
        out = np.empty_like(x)
        for i in range(x.size):
            out[i] = ((x[i] * two + y[i]) * (x[i] - y[i])) * half + one
        return out

    @njit
    def gelu(x):  # type: ignore[no-untyped-def]
        out = np.empty_like(x)
        for i in range(x.size):
            v = x[i]
            out[i] = half * v * (one + np.tanh(GELU_K * (v + GELU_C * v * v * v)))
        return out

    @njit
    def softmax(x):  # type: ignore[no-untyped-def]
        rows, cols = x.shape
        out = np.empty_like(x)
        for r in range(rows):
            m = x[r, 0]
            for j in range(1, cols):
                m = max(m, x[r, j])
            s = F32(0.0)
            for j in range(cols):
                e = np.exp(x[r, j] - m)
                out[r, j] = e
                s += e
            inv = one / s
            for j in range(cols):
                out[r, j] *= inv
        return out

    @njit
    def rowsum(x):  # type: ignore[no-untyped-def]
        rows, cols = x.shape
        out = np.empty(rows, dtype=x.dtype)
        for r in range(rows):
            s = F32(0.0)
            for j in range(cols):
                s += x[r, j]
            out[r] = s
        return out

    @njit
    def matmul(a, b):  # type: ignore[no-untyped-def]
        return np.dot(a, b)

    return {"axpy": axpy, "chain": chain, "gelu": gelu, "softmax": softmax, "rowsum": rowsum,
            "matmul": matmul}


@dataclass
class KernelRow:
    """One kernel-speed row: inputs, the reference and every peer's version."""

    key: str
    title: str
    inputs: tuple[Any, ...]
    numpy_fn: Callable[..., Any]
    numexpr: tuple[str, dict[str, Any]] | None
    memory_bound: bool
    rtol: float
    numpy_threads: str = "1"
    long: bool = False  # one call takes seconds: LONG_ROW_TIMING


def run_kernels(ctx: Context) -> list[Row]:
    """The six kernels of issue 7 on float32 inputs, dlbridge vs every peer."""
    dl, peers, sizes = ctx.dlbridge, ctx.peers, ctx.sizes
    rng = np.random.default_rng(0)
    n = sizes.elements
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    alpha = 2.5
    sm = rng.standard_normal(sizes.softmax, dtype=np.float32)
    rs = rng.standard_normal(sizes.rowsum, dtype=np.float32)
    c = ctx.cores
    dl_threads = f"OpenMP (≤{ctx.dlbridge.get_num_threads()})"
    specs = [
        KernelRow("axpy", f"a*x + y, {n:.0e} f32", (alpha, x, y), axpy_np,
                  ("a*x+y", {"a": F32(alpha), "x": x, "y": y}), True, 1e-6),
        KernelRow("chain", f"6-op elementwise chain, {n:.0e} f32", (x, y), chain_np,
                  ("((x*two+y)*(x-y))*half+one",
                   {"x": x, "y": y, "two": F32(2), "half": F32(0.5), "one": F32(1)}), True, 1e-6),
        KernelRow("softmax", f"row softmax {sizes.softmax[0]}×{sizes.softmax[1]}", (sm,), softmax_np,
                  None, False, 1e-5),
        KernelRow("gelu", f"GELU (tanh form), {n:.0e} f32", (x,), gelu_np,
                  ("h*x*(o+tanh(k*(x+g*x*x*x)))",
                   {"x": x, "h": F32(0.5), "o": F32(1), "k": GELU_K, "g": GELU_C}), False, 1e-5),
        KernelRow("rowsum", f"row sum {sizes.rowsum[0]}×{sizes.rowsum[1]}", (rs,), rowsum_np,
                  ("sum(x, axis=1)", {"x": rs}), True, 1e-4),
    ]
    for m in sizes.matmuls:
        operands = tuple(rng.standard_normal((m, m), dtype=np.float32) for _ in range(2))
        specs.append(KernelRow("matmul", f"matmul {m}²", operands, matmul_np, None, False, 1e-4,
                               numpy_threads=f"BLAS ({c} cores)", long=m >= LONG_ROW_MIN_SIZE))
    numexpr = peers.get("numexpr")
    numba = peers.get("numba")
    jax = peers.get("jax")
    numba_fns = _numba_kernels(numba) if numba is not None else {}
    jax_fns: dict[str, Callable[..., Any]] = {}
    if jax is not None:
        import jax.numpy as jnp  # noqa: PLC0415
        jax_fns = {
            "axpy": jax.jit(axpy_np), "chain": jax.jit(chain_np),
            "gelu": jax.jit(lambda v: gelu_np(v, jnp)), "softmax": jax.jit(lambda v: softmax_np(v, jnp)),
            "rowsum": jax.jit(lambda v: rowsum_np(v, jnp)), "matmul": jax.jit(matmul_np),
        }
    # The xp= parameter is bound here: @jit takes every parameter as an argument.
    dl_fns = {name: dl.jit(fn) for name, fn in
              (("axpy", axpy_np), ("chain", chain_np), ("gelu", lambda v: gelu_np(v)),
               ("softmax", lambda v: softmax_np(v)), ("rowsum", lambda v: rowsum_np(v)),
               ("matmul", matmul_np))}
    softmax_compiled = dl.compile(SOFTMAX_MLIR)

    rows: list[Row] = []
    section = "Kernel speed (CPU, float32)"
    for spec in specs:
        args = spec.inputs
        expected = spec.numpy_fn(*args)
        chk = lambda f, *a: _checker(lambda: f(*a), expected, spec.rtol)  # noqa: E731
        cands = [Candidate("NumPy", lambda: spec.numpy_fn(*args), threads=spec.numpy_threads)]
        dl_fn = dl_fns[spec.key]
        threads = f"NumPy's BLAS ({c} cores)" if spec.key == "matmul" else dl_threads
        cands.append(Candidate("dlbridge.jit", lambda f=dl_fn: f(*args), threads=threads,
                               check=chk(dl_fn, *args)))
        if spec.key == "softmax":
            cands.append(Candidate("dlbridge.compile", lambda: softmax_compiled(*args), threads=dl_threads,
                                   note="linalg.softmax", check=chk(softmax_compiled, *args)))
        if numexpr is not None and spec.numexpr is not None:
            expr, names = spec.numexpr
            threads = str(numexpr.get_num_threads())
            if spec.key == "rowsum":
                threads = "1"  # numexpr evaluates reductions single-threaded
            ne_fn = lambda e=expr, d=names: numexpr.evaluate(e, local_dict=d)  # noqa: E731
            cands.append(Candidate("numexpr", ne_fn, threads=threads, check=chk(ne_fn)))
        if spec.key in numba_fns:
            nb_args = tuple(F32(a) if isinstance(a, float) else a for a in args)
            nb_fn = numba_fns[spec.key]
            cands.append(Candidate("numba.njit", lambda f=nb_fn: f(*nb_args),
                                   threads=f"BLAS ({c} cores)" if spec.key == "matmul" else "1",
                                   note="np.dot" if spec.key == "matmul" else "explicit loop",
                                   check=chk(nb_fn, *nb_args)))
        if spec.key in jax_fns:
            import jax.numpy as jnp  # noqa: PLC0415
            j_args = tuple(a if isinstance(a, float) else jnp.asarray(a) for a in args)
            j_fn = _jax_blocking(jax_fns[spec.key])
            cands.append(Candidate("jax.jit", lambda f=j_fn: f(*j_args), threads=f"XLA pool (≤{c})",
                                   note="jax.Array inputs", check=chk(j_fn, *j_args)))
        timing = LONG_ROW_TIMING if spec.long and not ctx.quick else ctx.kernel_timing
        row = measure_row(section, spec.title, "NumPy", cands, timing)
        _kernel_verdict(row, spec.memory_bound)
        rows.append(row)
    return rows


def _kernel_verdict(row: Row, memory_bound: bool) -> None:
    """Within 10 % of the fastest peer; ≥ 1.5× NumPy on memory-bound rows."""
    mine = min((r.stats.median for r in row.results if r.peer.startswith("dlbridge") and r.stats), default=None)
    peers_t = {r.peer: r.stats.median for r in row.results if not r.peer.startswith("dlbridge") and r.stats}
    numpy_t = row.time_of("NumPy")
    parts, met = [], True
    if mine is None or not peers_t:
        row.target_met = False
        row.verdict = "dlbridge not measured"
        return
    fastest = min(peers_t, key=peers_t.get)  # type: ignore[arg-type]
    ratio = mine / peers_t[fastest]
    met &= ratio <= FASTEST_PEER_MAX_RATIO
    parts.append(f"best dlbridge {ratio:.2f}× fastest peer ({fastest})")
    target = f"≤ {FASTEST_PEER_MAX_RATIO:.2f}× fastest peer"
    if memory_bound and numpy_t:
        speedup = numpy_t / mine
        met &= speedup >= MEMORY_BOUND_MIN_SPEEDUP
        parts.append(f"{speedup:.2f}× faster than NumPy")
        target += f", ≥ {MEMORY_BOUND_MIN_SPEEDUP}× NumPy"
    row.target, row.target_met, row.verdict = target, met, "; ".join(parts)


# ---------------------------------------------------------------- compile time

PROBE = BENCH_DIR / "compile_probe.py"


def _probe(cache_dir: str, build_python: str) -> dict[str, Any]:
    env = dict(os.environ, DLBRIDGE_CACHE_DIR=cache_dir, DLBRIDGE_DISK_CACHE="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [build_python, env.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, str(PROBE)], env=env, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"compile probe failed: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_compile_time(ctx: Context, build_python: str) -> list[Row]:
    """Cold compile, in-memory hit and disk hit in a new process, each timed in-process.

    Each sample is one new Python process (``bench/compile_probe.py``): cold
    runs get an empty ``DLBRIDGE_CACHE_DIR``, disk-hit runs one filled by an
    earlier process. Interpreter start-up and ``import dlbridge`` are not counted.
    """
    section = "Compile time (small kernel: a*x + y, float32[?])"
    samples: dict[str, list[float]] = {}
    flags: dict[str, list[bool]] = {}
    with tempfile.TemporaryDirectory(prefix="dlbridge-bench-cache-") as root:
        warm_dir = os.path.join(root, "warm")
        for run in range(ctx.compile_runs):
            cold = _probe(os.path.join(root, f"cold{run}"), build_python)
            for key, value in cold["times"].items():
                samples.setdefault(f"cold: {key}", []).append(value)
            if run == 0:
                _probe(warm_dir, build_python)  # fills the disk cache
            warm = _probe(warm_dir, build_python)
            for key, value in warm["times"].items():
                samples.setdefault(f"disk: {key}", []).append(value)
            flags.setdefault("disk_from_cache", []).append(warm["from_disk_cache"])
            flags.setdefault("cold_from_cache", []).append(cold["from_disk_cache"])

    def row_of(name: str, picks: list[tuple[str, str, str]], target: str,
               limit: float | None) -> Row:
        row = Row(section, name, baseline="")
        for key, peer, note in picks:
            if key in samples:
                row.results.append(Result(section, name, peer, "1", Stats.of(samples[key], 1), "", note=note))
        if limit is not None:
            worst = [r for r in row.results if r.stats and r.stats.median > limit]
            row.target_met = not worst
            row.verdict = "; ".join(f"{r.peer} median {r.stats.median * 1e3:.1f} ms" for r in row.results
                                    if r.stats)
        row.target = target
        return row

    n = ctx.compile_runs
    rows = [
        row_of("cold (empty cache dir, new process)", [
            ("cold: compile", "dlbridge.compile", f"MLIR text → kernel; {n} processes"),
            ("cold: jit_first_call", "dlbridge.jit first call", f"trace + compile + call; {n} processes")],
            f"≤ {COLD_COMPILE_MAX_S * 1e3:.0f} ms", COLD_COMPILE_MAX_S),
        row_of("in-memory cache hit (same process)", [
            ("cold: compile_again", "dlbridge.compile again", "same source, memory cache"),
            ("cold: jit_new_function", "new @dlbridge.jit, same body", "retrace + memory cache + call")],
            "", None),
        row_of("disk cache hit (new process)", [
            ("disk: compile", "dlbridge.compile", f"{n} processes"),
            ("disk: jit_first_call", "dlbridge.jit first call", f"trace + disk hit + call; {n} processes")],
            f"≤ {DISK_HIT_MAX_S * 1e3:.0f} ms", DISK_HIT_MAX_S),
    ]
    if not all(flags.get("disk_from_cache", [False])) or any(flags.get("cold_from_cache", [True])):
        rows[2].verdict += "; WARNING: cache flags unexpected " + json.dumps(flags)
    return rows


# ---------------------------------------------------------------- GPU

def run_gpu(ctx: Context) -> list[Row]:
    """Issue 7's GPU rows; this harness has no CUDA implementation yet, so they
    are reported as skipped, naming the peers, and say why."""
    section = "GPU (CUDA)"
    has_gpu = bool(ctx.dlbridge._dlbridge.cuda_available())
    reason = ("skipped: no GPU" if not has_gpu else
              "skipped: GPU present but these rows are not implemented in bench/ yet")
    return [
        skipped_row(section, "launch overhead from Python, PyTorch CUDA tensors",
                    ["dlbridge.jit", "Triton", "CuPy RawKernel", "numba-cuda"], reason),
        skipped_row(section, "elementwise bandwidth vs device-to-device copy",
                    ["dlbridge.jit", "cudaMemcpy D2D", "Triton", "CuPy RawKernel", "numba-cuda"], reason),
    ]
