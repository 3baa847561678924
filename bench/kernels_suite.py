"""Whole-kernel suite (issue 12, item 9): the NumPy kernels of
``examples/numpy_kernels.py``, source unchanged, under every peer.

Each kernel runs at its benchmark size (NumPy ≥ 5 ms; the test size with
``--quick``) as plain NumPy, ``dlbridge.jit(kernel)``, ``numba.njit(kernel)``
with and without ``parallel=True``, and ``jax.jit`` of the same code object
with ``np`` bound to ``jax.numpy`` (loop trip counts static, 64-bit floats on
as in NumPy). Every peer's result, and every argument it writes in place, is
checked against NumPy on fresh copies before it is timed. What a peer cannot
compile is a cell saying so with its error's first line, never a crash; JAX
cannot write into its arguments, so kernels that do are n/a there. A last row
gives the geometric means of dlbridge's time over NumPy's and over each peer's.
"""

from __future__ import annotations

import copy
import inspect
import math
import re
import sys
import types
import warnings
from typing import Any, Callable

import numpy as np
from harness import Candidate, Result, Row, measure_row
from peers import BENCH_DIR

sys.path.insert(0, str(BENCH_DIR.parent / "examples"))
from numpy_kernels import KERNELS, KernelSpec  # noqa: E402

SECTION = "Whole NumPy kernels (CPU, source unchanged)"
PEERS = ("dlbridge.jit", "numba.njit", "numba.njit(parallel=True)", "jax.jit")

# Escape counts of an iterated map may flip at a boundary point under fused
# multiply-add; at most this fraction of such integer entries may differ.
CHAOTIC = {"mandelbrot": 0.01}

ANSI = re.compile(r"\x1b\[[0-9;]*m")
NUMBA_HEADERS = ("Failed in ", "- Resolution failure", "Resolution failure", "During: ")
JAX_IMMUTABLE = "JAX arrays are immutable"


def _first_line(error: BaseException) -> str:
    """``Type: first informative line`` of an error (numba's generic headers and colours dropped)."""
    lines = [line.strip() for line in ANSI.sub("", str(error)).splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith(NUMBA_HEADERS)] or [""]
    text = lines[0]
    if len(lines) > 1 and lines[1].startswith(">>>"):
        text += " " + lines[1]
    return f"{type(error).__name__}: {text}"[:240]


def _mismatch(got: Any, want: Any, spec: KernelSpec, what: str) -> str | None:
    """Why ``got`` is not NumPy's ``want`` (structure, shape, dtype, values), or ``None``."""
    if want is None or isinstance(want, tuple):
        if type(got) is not type(want) or len(got or ()) != len(want or ()):
            return f"{what} is {type(got).__name__}, NumPy gives {type(want).__name__}"
        for index, (g, w) in enumerate(zip(got or (), want or ())):
            problem = _mismatch(g, w, spec, f"{what}[{index}]")
            if problem:
                return problem
        return None
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return f"{what} shape {got.shape}, NumPy gives {want.shape}"
    if got.dtype != want.dtype:
        return f"{what} dtype {got.dtype}, NumPy gives {want.dtype}"
    if want.dtype.kind in "fc":
        scale = float(np.max(np.abs(want))) if want.size else 0.0
        error = float(np.max(np.abs(got - want))) if want.size else 0.0
        bound = spec.rtol * (scale or 1.0)
        return None if error <= bound else f"{what} max error {error:.3g} > {bound:.3g}"
    differing = int(np.count_nonzero(got != want))
    allowed = int(CHAOTIC.get(spec.name, 0.0) * want.size)
    return None if differing <= allowed else f"{what}: {differing} of {want.size} entries differ"


def _checker(spec: KernelSpec, fn: Callable[..., Any], args: tuple[Any, ...], expected: Any,
             expected_args: tuple[Any, ...]) -> Callable[[], str | None]:
    """A check that runs ``fn`` on fresh copies and compares its result and written arguments."""
    def check() -> str | None:
        mine = copy.deepcopy(args)
        problem = _mismatch(_to_numpy(fn(*mine)), expected, spec, "result")
        for index in spec.writes:
            problem = problem or _mismatch(mine[index], expected_args[index], spec, f"argument {index}")
        return problem
    return check


def _jax_version(jax: Any, fn: Callable[..., Any], static: tuple[str, ...]) -> Callable[..., Any]:
    """``jax.jit`` of ``fn``'s own code with ``np`` bound to ``jax.numpy``; waits for the result."""
    rebound = types.FunctionType(fn.__code__, {**fn.__globals__, "np": jax.numpy}, fn.__name__,
                                 fn.__defaults__, fn.__closure__)
    jitted = jax.jit(rebound, static_argnames=static)

    def call(*args: Any) -> Any:
        return jax.block_until_ready(jitted(*args))
    return call


def _to_numpy(value: Any) -> Any:
    """NumPy arrays of a result (tuples kept, ``None`` kept)."""
    if value is None:
        return None
    if isinstance(value, tuple):
        return tuple(_to_numpy(v) for v in value)
    return np.asarray(value)


def _refusal(peer: str, threads: str, error: BaseException) -> Result:
    """The cell of a peer that cannot compile the kernel (JAX: n/a when the kernel writes in place)."""
    if peer == "jax.jit" and JAX_IMMUTABLE in str(error):
        return Result(SECTION, "", peer, threads, None, "NumPy", status="n/a",
                      note="writes into an array in place: not expressible in JAX")
    return Result(SECTION, "", peer, threads, None, "NumPy", note=f"cannot compile: {_first_line(error)}",
                  status="failed")


def _candidate(peer: str, threads: str, fn: Callable[..., Any], spec: KernelSpec, args: tuple[Any, ...],
               expected: Any, expected_args: tuple[Any, ...], note: str = "") -> Candidate | Result:
    """A timed candidate on its own copy of the inputs, or the refusal of its first compile."""
    try:
        fn(*copy.deepcopy(args))
    except Exception as error:  # noqa: BLE001 - a kernel a peer cannot compile is a result
        return _refusal(peer, threads, error)
    own = copy.deepcopy(args)
    return Candidate(peer, lambda: fn(*own), threads=threads, note=note,
                     check=_checker(spec, fn, args, expected, expected_args))


def _kernel_row(ctx: Any, spec: KernelSpec, n: int) -> Row:
    """Times one kernel under every peer at size ``n``."""
    args = spec.make(n)
    expected_args = copy.deepcopy(args)
    expected = _to_numpy(spec.fn(*expected_args))
    blas = f"1 + BLAS ({ctx.cores} cores)" if "@" in inspect.getsource(spec.fn) else "1"
    numpy_args = copy.deepcopy(args)
    cands: list[Candidate] = [Candidate("NumPy", lambda: spec.fn(*numpy_args), threads=blas)]
    refused: list[Result] = []
    threads = f"OpenMP (≤{ctx.dlbridge.get_num_threads()})"
    if blas != "1":
        threads += f" + NumPy's BLAS ({ctx.cores} cores)"
    peers = [("dlbridge.jit", threads, ctx.dlbridge.jit(spec.fn), "")]
    numba = ctx.peers.get("numba")
    if numba is not None:
        peers.append(("numba.njit", blas, numba.njit(spec.fn), ""))
        peers.append(("numba.njit(parallel=True)", f"numba's pool (≤{numba.get_num_threads()})",
                      numba.njit(parallel=True)(spec.fn), "parallelises array expressions and prange"))
    jax = ctx.peers.get("jax")
    if jax is not None and spec.writes:
        refused.append(Result(SECTION, "", "jax.jit", "", None, "NumPy", status="n/a",
                              note="writes its arguments in place: not expressible in JAX"))
    elif jax is not None:
        peers.append(("jax.jit", f"XLA pool (≤{ctx.cores})", _jax_version(jax, spec.fn, spec.static),
                      "np bound to jax.numpy" + (f"; static {', '.join(spec.static)}" if spec.static else "")))
    for peer, threads, fn, note in peers:
        made = _candidate(peer, threads, fn, spec, args, expected, expected_args, note)
        if isinstance(made, Result):
            refused.append(made)
        else:
            cands.append(made)
    shapes = ", ".join("×".join(map(str, a.shape)) + f" {a.dtype}" for a in args
                       if isinstance(a, np.ndarray))
    row = measure_row(SECTION, f"{spec.name} ({shapes})", "NumPy", cands, ctx.kernel_timing)
    for result in refused:
        result.row = row.name
        row.results.append(result)
    return row


def _geomean_row(rows: list[Row]) -> Row:
    """dlbridge's time over each peer's, geometric mean over the kernels both ran."""
    row = Row(SECTION, "geometric mean of dlbridge.jit / peer", "NumPy")
    traced = sum(r.time_of("dlbridge.jit") is not None for r in rows)
    row.verdict = f"dlbridge.jit ran {traced} of {len(rows)} kernels unchanged"
    for peer in ("NumPy",) + PEERS[1:]:
        ratios = [r.time_of("dlbridge.jit") / r.time_of(peer) for r in rows
                  if r.time_of("dlbridge.jit") and r.time_of(peer)]
        if ratios:
            mean = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
            note = f"{mean:.2f}× over {len(ratios)} kernels (< 1: dlbridge faster)"
        else:
            mean, note = None, "no kernel ran under both"
        row.results.append(Result(SECTION, row.name, peer, "", None, "NumPy", ratio=mean, note=note,
                                  status="geomean"))
    return row


def run_whole_kernels(ctx: Any) -> list[Row]:
    """Every kernel of ``numpy_kernels.KERNELS`` under NumPy, dlbridge, numba and JAX."""
    numba = ctx.peers.get("numba")
    if numba is not None:
        # parallel=True warns where it finds nothing to parallelise; the
        # row's time says as much.
        warnings.filterwarnings("ignore", category=numba.NumbaPerformanceWarning)
    jax = ctx.peers.get("jax")
    x64 = bool(jax.config.jax_enable_x64) if jax is not None else False
    if jax is not None:
        jax.config.update("jax_enable_x64", True)
    try:
        rows = [_kernel_row(ctx, spec, spec.small if ctx.quick else spec.bench) for spec in KERNELS]
    finally:
        if jax is not None:
            jax.config.update("jax_enable_x64", x64)
    return rows + [_geomean_row(rows)]
