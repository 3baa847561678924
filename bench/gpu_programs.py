"""Whole NumPy programs on the GPU: every kernel of ``examples/numpy_kernels.py``,
its source unchanged, as ``dlbridge.jit`` on PyTorch CUDA tensors, with ``np``
bound to CuPy on CuPy arrays, and as ``jax.jit`` with ``np`` bound to
``jax.numpy`` on JAX GPU arrays (loop trip counts static, 64-bit floats on).

Each time is the host's wall clock from the call to its result being ready
(the peers run on their own streams), the median of several calls. Every
candidate's first result is checked against NumPy's; a wrong one is reported
and left out of the geometric mean.
"""

from __future__ import annotations

import copy
import statistics
import sys
import time
import types
from pathlib import Path
from typing import Any, Callable

import dlbridge
import numpy as np
import torch
from gpu_timing import Candidate, Row

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
from numpy_kernels import KERNELS, KernelSpec  # noqa: E402

PEERS = ("dlbridge.jit", "CuPy", "jax.jit")


def wall_time(fn: Callable[[], Any], budget: float = 0.2) -> float:
    """Median wall seconds of ``fn()``, which waits for its own result."""
    fn()
    start = time.perf_counter()
    fn()
    once = time.perf_counter() - start
    samples = []
    for _ in range(max(3, min(50, int(budget / max(once, 1e-9))))):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def rebound(fn: Callable[..., Any], module: Any) -> Callable[..., Any]:
    """``fn``'s own code with ``np`` bound to ``module``."""
    return types.FunctionType(fn.__code__, {**fn.__globals__, "np": module}, fn.__name__, fn.__defaults__,
                              fn.__closure__)


def host(value: Any) -> Any:
    """NumPy arrays of a result from any of the peers (tuples kept)."""
    if isinstance(value, tuple):
        return tuple(host(v) for v in value)
    if isinstance(value, torch.Tensor):
        return value.cpu().numpy()
    if hasattr(value, "get"):  # CuPy
        return value.get()
    return np.asarray(value)


def mismatch(got: Any, want: Any, rtol: float) -> str | None:
    """Why ``got`` is not NumPy's ``want``, or None."""
    got_items = got if isinstance(got, tuple) else (got,)
    want_items = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got_items, want_items):
        g, w = np.asarray(g, np.float64), np.asarray(w, np.float64)
        if g.shape != w.shape:
            return f"shape {g.shape}, NumPy's {w.shape}"
        error = np.linalg.norm(g - w) / max(np.linalg.norm(w), 1e-300)
        if not error <= max(rtol, 1e-6):
            return f"relative error {error:.1e}"
    return None


def candidates(spec: KernelSpec) -> dict[str, tuple[Callable[..., Any], Callable[[Any], Any], Callable[[], None]]]:
    """Each peer's callable, its argument converter and its wait."""
    peers: dict[str, tuple[Callable[..., Any], Callable[[Any], Any], Callable[[], None]]] = {
        "dlbridge.jit": (dlbridge.jit(spec.fn, static_argnames=spec.static) if spec.static else dlbridge.jit(spec.fn),
                         lambda a: torch.from_numpy(a).cuda() if isinstance(a, np.ndarray) else a,
                         torch.cuda.synchronize)}
    try:
        import cupy

        peers["CuPy"] = (rebound(spec.fn, cupy), lambda a: cupy.asarray(a) if isinstance(a, np.ndarray) else a,
                         lambda: cupy.cuda.Device().synchronize())
    except ImportError:
        pass
    try:
        import jax

        jax.config.update("jax_enable_x64", True)
        jitted = jax.jit(rebound(spec.fn, jax.numpy), static_argnames=spec.static)
        gpu = jax.devices("gpu")[0]
        peers["jax.jit"] = (lambda *args: jax.block_until_ready(jitted(*args)),
                            lambda a: jax.device_put(a, gpu) if isinstance(a, np.ndarray) else a, lambda: None)
    except (ImportError, RuntimeError):
        pass
    return peers


def program_row(spec: KernelSpec) -> Row:
    """One kernel under every peer, at its benchmark size."""
    args = spec.make(spec.bench)
    want_args = copy.deepcopy(args)
    want = spec.fn(*want_args)
    if spec.writes:
        want = tuple(want_args[i] for i in spec.writes)
    row = Row(f"program: {spec.name} (n={spec.bench})", "dlbridge.jit at least as fast as CuPy and jax.jit")
    for peer, (fn, convert, wait) in candidates(spec).items():
        candidate = Candidate(peer)
        row.candidates.append(candidate)
        try:
            own = tuple(convert(copy.deepcopy(a)) for a in args)
            got = fn(*own)
            wait()
            problem = mismatch(host(tuple(own[i] for i in spec.writes) if spec.writes else got), want, spec.rtol)
            if problem:
                candidate.note = f"wrong: {problem}"
                continue
            candidate.seconds = wall_time(lambda: (fn(*own), wait()))
            candidate.metric = f"{candidate.seconds * 1e3:.3f} ms"
        except Exception as error:  # a kernel a peer cannot run is a result
            candidate.note = f"failed: {type(error).__name__}: {str(error).splitlines()[0][:120]}"
    ours = next(c.seconds for c in row.candidates if c.peer == "dlbridge.jit")
    theirs = [c.seconds for c in row.candidates if c.peer != "dlbridge.jit" and c.seconds is not None]
    if ours is not None and theirs:
        row.met = ours <= min(theirs)
        row.verdict = ", ".join(f"{c.seconds / ours:.2f}× {c.peer}'s speed" for c in row.candidates
                                if c.peer != "dlbridge.jit" and c.seconds is not None)
    return row


def geomean_row(rows: list[Row]) -> Row:
    """The geometric mean over kernels of dlbridge.jit's speed relative to each peer."""
    row = Row("programs: geometric mean", "≥ 1× CuPy and jax.jit")
    verdicts = []
    met = True
    for peer in PEERS[1:]:
        ratios = []
        for r in rows:
            times = {c.peer: c.seconds for c in r.candidates}
            if times.get("dlbridge.jit") and times.get(peer):
                ratios.append(times[peer] / times["dlbridge.jit"])
        if ratios:
            mean = float(np.exp(np.mean(np.log(ratios))))
            met &= mean >= 1.0
            verdicts.append(f"{mean:.2f}× {peer}'s speed over {len(ratios)} kernels")
            row.candidates.append(Candidate(peer, note=f"{mean:.2f}× (dlbridge.jit's speed over {peer}'s)"))
    ran = sum(any(c.peer == "dlbridge.jit" and c.seconds for c in r.candidates) for r in rows)
    row.met = met if verdicts else None
    row.verdict = f"dlbridge.jit ran {ran} of {len(rows)}; " + "; ".join(verdicts)
    return row


def program_rows(quick: bool) -> list[Row]:
    """A row per kernel, then the geometric mean."""
    specs = KERNELS[::3] if quick else KERNELS
    rows = [program_row(spec) for spec in specs]
    return rows + [geomean_row(rows)]
