"""Numeric reference cases for the tracer, to be run once the JIT binding can execute traced
modules.

``CASES`` is a list of :class:`Case`: a function (written with NumPy calls, which trace), its inputs
(NumPy arrays of various layouts: contiguous, strided, broadcast (zero strides), reversed (negative
strides), 0-d, empty) and tolerances.  ``check(case, jitted_fn)`` runs the function eagerly in NumPy
and through ``jitted_fn`` and compares.  ``specs_for(inputs)`` gives the ``trace`` argument specs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import dlbridge as dl
import numpy as np
from dlbridge._trace import ArraySpec, ScalarSpec


@dataclass
class Case:
    name: str
    fn: Callable[..., Any]
    inputs: tuple[Any, ...]
    rtol: float = 1e-6
    atol: float = 0.0
    expected: Callable[..., Any] | None = None  # defaults to fn itself on NumPy arrays
    tags: tuple[str, ...] = field(default_factory=tuple)


def specs_for(inputs: tuple[Any, ...]) -> list[ArraySpec | ScalarSpec]:
    """Trace specs for concrete inputs (size-1 dims are marked as unit dims)."""
    out: list[ArraySpec | ScalarSpec] = []
    for x in inputs:
        if isinstance(x, bool):
            out.append(ScalarSpec("bool"))
        elif isinstance(x, int):
            out.append(ScalarSpec("int"))
        elif isinstance(x, float):
            out.append(ScalarSpec("float"))
        else:
            a = np.asarray(x)
            out.append(ArraySpec(a.dtype.name, a.ndim, tuple(d == 1 for d in a.shape)))
    return out


_rng = np.random.default_rng(0)


def _f(*shape: int, dtype: str = "float32") -> np.ndarray:
    return _rng.standard_normal(shape).astype(dtype)


def _i(*shape: int, dtype: str = "int32", lo: int = -50, hi: int = 50) -> np.ndarray:
    return _rng.integers(lo, hi, shape).astype(dtype)


def _layouts(base: np.ndarray) -> dict[str, np.ndarray]:
    """The same logical kind of data in several memory layouts."""
    big = np.concatenate([base, base], axis=-1) if base.ndim else base
    return {
        "contiguous": base,
        "strided": big[..., ::2] if base.ndim else base,
        "reversed": base[::-1] if base.ndim else base,
        "transposed": base.T,
        "broadcast": np.broadcast_to(base[:1], base.shape) if base.ndim and base.shape[0] else base,
    }


def _cases() -> list[Case]:
    cases: list[Case] = []
    x = _f(4, 5)
    y = _f(4, 5)
    for lay, xv in _layouts(x).items():
        yv = np.ascontiguousarray(y[: xv.shape[0], : xv.shape[1]]) if xv.shape == y.shape else _f(*xv.shape)
        cases += [
            Case(f"add_{lay}", lambda a, b: a + b, (xv, yv), tags=(lay,)),
            Case(f"arith_{lay}", lambda a, b: (a * 2.0 - b) / (np.abs(b) + 1.0), (xv, yv), tags=(lay,)),
            Case(f"floordiv_mod_{lay}", lambda a, b: ((a * 10) // (b + 3), (a * 10) % (b + 3)), (xv, yv), rtol=1e-5, tags=(lay,)),
            Case(f"math_{lay}", lambda a: (np.exp(a), np.tanh(a), np.sin(a), np.cos(a), dl.sigmoid(a)), (xv,), rtol=1e-5, tags=(lay,),
                 expected=lambda a: (np.exp(a), np.tanh(a), np.sin(a), np.cos(a), 1 / (1 + np.exp(-a)))),
            Case(f"sqrt_log_{lay}", lambda a: (np.sqrt(np.abs(a)), np.log(np.abs(a) + 1)), (xv,), rtol=1e-5, tags=(lay,)),
            Case(f"where_{lay}", lambda a, b: np.where(a > b, a, b * 0.5), (xv, yv), tags=(lay,)),
            Case(f"maxmin_{lay}", lambda a, b: (np.maximum(a, b), np.minimum(a, b)), (xv, yv), tags=(lay,)),
            Case(f"reductions_{lay}", lambda a: (a.sum(), a.sum(axis=0), a.max(axis=1, keepdims=True), a.min(), a.mean(axis=(0, 1))),
                 (xv,), rtol=1e-5, tags=(lay,)),
            Case(f"transpose_{lay}", lambda a: (a.T, np.transpose(a)), (xv,), tags=(lay,)),
            Case(f"reshape_{lay}", lambda a: (a.reshape(-1), a.reshape(2, -1), a.reshape(1, -1)), (xv,), tags=(lay,)),
        ]
    # broadcasting between arguments
    cases += [
        Case("bcast_row", lambda a, b: a + b, (_f(4, 5), _f(1, 5)), tags=("broadcast",)),
        Case("bcast_col", lambda a, b: a * b, (_f(4, 5), _f(4, 1)), tags=("broadcast",)),
        Case("bcast_rank", lambda a, b: a - b, (_f(3, 4, 5), _f(5)), tags=("broadcast",)),
        Case("bcast_outer", lambda a, b: a * b, (_f(4, 1), _f(1, 5)), tags=("broadcast",)),
        Case("bcast_0d", lambda a, b: a + b, (_f(4, 5), np.array(2.5, np.float32)), tags=("0-d",)),
    ]
    # 0-d and empty
    z = np.array(1.5, np.float32)
    e = np.zeros((0, 3), np.float32)
    cases += [
        Case("zero_d", lambda a: (a * 2, np.exp(a), a.sum()), (z,), tags=("0-d",)),
        Case("empty", lambda a: (a + 1, a.sum(axis=0), a.T, a.reshape(-1)), (e,), tags=("empty",)),
        Case("empty_mean_axis1", lambda a: a.mean(axis=1), (e,), tags=("empty",)),
    ]
    # integers, unsigned, bool, mixed promotion, Python scalars
    ia, ib = _i(4, 5), _i(4, 5, lo=-7, hi=7)
    cases += [
        Case("int_floordiv_mod", lambda a, b: (a // b, a % b), (ia, ib), tags=("int", "div-by-zero")),
        Case("int_true_div", lambda a, b: a / np.where(b == 0, 1, b), (ia, ib), tags=("int",)),
        Case("int_pow", lambda a: a ** 3, (ia,), tags=("int",)),
        Case("uint8", lambda a, b: (a + b, a // np.maximum(b, 1), a > b, ~a), (_i(4, 5, dtype="uint8", lo=0, hi=255), _i(4, 5, dtype="uint8", lo=0, hi=255)), tags=("uint",)),
        Case("mixed_u8_i8", lambda a, b: a + b, (_i(4, 5, dtype="uint8", lo=0, hi=255), _i(4, 5, dtype="int8")), tags=("promotion",)),
        Case("int_float", lambda a, b: a * b, (_i(4, 5, dtype="int16"), _f(4, 5, dtype="float16")), rtol=1e-3, tags=("promotion",)),
        Case("weak_scalars", lambda a, s, t: (a * s + t, a + 1), (_f(4, 5), 2.0, 3), tags=("scalar",)),
        Case("bool_ops", lambda a, b: ((a > 0) & (b > 0), (a > 0) | ~(b > 0), np.logical_xor(a > 0, b > 0)), (x, y), tags=("bool",)),
        Case("astype", lambda a: (a.astype(np.int32), a.astype(np.float64), (a > 0).astype(np.float32), a.astype(bool)), (x * 10,), tags=("astype",)),
        Case("nan_maximum", lambda a, b: (np.maximum(a, b), a.max()), (np.array([1.0, np.nan, 3.0], np.float32), np.array([2.0, 0.0, np.nan], np.float32)), tags=("nan",)),
        Case("complex", lambda a, b: (a + b, a * b, a / b, np.abs(a), np.exp(a)),
             ((_f(3, 4) + 1j * _f(3, 4)).astype(np.complex64), (_f(3, 4) + 1j * _f(3, 4) + 3).astype(np.complex64)), rtol=1e-5, tags=("complex",)),
    ]
    # matmul
    cases += [
        Case("matmul_2d", lambda a, b: a @ b, (_f(3, 4), _f(4, 5)), rtol=1e-5),
        Case("matmul_1d_2d", lambda a, b: a @ b, (_f(4), _f(4, 5)), rtol=1e-5),
        Case("matmul_2d_1d", lambda a, b: a @ b, (_f(3, 4), _f(4)), rtol=1e-5),
        Case("matmul_dot", lambda a, b: a @ b, (_f(4), _f(4)), rtol=1e-5),
        Case("matmul_batched", lambda a, b: np.matmul(a, b), (_f(2, 3, 4), _f(2, 4, 5)), rtol=1e-5),
        Case("matmul_bcast_batch", lambda a, b: a @ b, (_f(2, 3, 4), _f(4, 5)), rtol=1e-5),
        Case("matmul_strided", lambda a, b: a @ b, (_f(6, 4)[::2], _f(5, 4).T), rtol=1e-5, tags=("strided",)),
        Case("matmul_int", lambda a, b: a @ b, (_i(3, 4), _i(4, 5))),
    ]
    return cases


CASES: list[Case] = _cases()


def check(case: Case, jitted: Callable[..., Any]) -> None:
    """Compare ``jitted(*case.inputs)`` with NumPy (dtypes and values)."""
    ref_fn = case.expected or case.fn
    with np.errstate(all="ignore"):
        want = ref_fn(*case.inputs)
    got = jitted(*case.inputs)
    if not isinstance(want, tuple):
        want, got = (want,), (got,)
    assert len(want) == len(got), case.name
    for w, g in zip(want, got):
        w = np.asarray(w)
        g = np.asarray(g)
        assert g.dtype == w.dtype, f"{case.name}: dtype {g.dtype} != {w.dtype}"
        assert g.shape == w.shape, f"{case.name}: shape {g.shape} != {w.shape}"
        if w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=case.rtol, atol=case.atol, equal_nan=True, err_msg=case.name)
        else:
            np.testing.assert_array_equal(g, w, err_msg=case.name)
