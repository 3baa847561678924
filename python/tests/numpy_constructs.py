"""NumPy users' functions ("constructs") under ``@dlbridge.jit`` against NumPy on the CPU: the
inputs (every dtype class, in C order, strided, reversed, empty and 0-d), the comparison, and
the check each construct gets per dtype and layout. The tables of constructs live in the test
files (test_jit_numpy_surface.py, test_jit_statistics.py, ...); gpu/device_constructs.py runs
them on PyTorch CUDA tensors."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import dlbridge
import numpy as np
import pytest

DTYPES = ["float64", "float32", "int64", "uint8", "bool", "complex128"]
LAYOUTS = ["C", "strided", "reversed", "empty", "0-d"]


def values(dtype: str, shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """Reproducible values of ``dtype``: small integers with repeats, both signs of floats."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype.startswith("uint"):
        return rng.integers(0, 6, shape).astype(dtype)
    if dtype.startswith("int"):
        return rng.integers(-4, 5, shape).astype(dtype)
    if dtype.startswith("complex"):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def make(dtype: str, layout: str) -> np.ndarray:
    """A 3 x 5 input of ``dtype`` in ``layout`` (or an empty or 0-d one)."""
    if layout == "C":
        return values(dtype, (3, 5))
    if layout == "strided":
        return values(dtype, (6, 10))[::2, ::2]
    if layout == "reversed":
        return values(dtype, (3, 5))[::-1, ::-1]
    if layout == "empty":
        return values(dtype, (0, 5))
    return values(dtype, ())


def compare(got: Any, want: Any, single: bool, double_rtol: float = 1e-11) -> None:
    """``got`` has NumPy's dtype, shape and values (to ``double_rtol`` for double precision, 1e-5
    for single-precision results or inputs, ``single``)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            compare(g, w, single, double_rtol)
        return
    want = np.asarray(want)
    got = np.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype.kind in "fc":
        rtol = 1e-5 if single or want.dtype in (np.float32, np.complex64) else double_rtol
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


def numpy_result(fn: Callable[[Any], Any], a: np.ndarray) -> Any:
    """``fn(a)`` on a copy of ``a``, or the exception NumPy raised."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(a.copy())
        except Exception as error:  # NumPy refuses: dlbridge must refuse too
            return error


def refusals(want: Any) -> tuple[type[BaseException], ...]:
    """What ``@jit`` may raise where NumPy raised ``want``: its type, a TraceError, and for a
    LinAlgError about sizes (checked when the kernel runs) its base class, ValueError."""
    linalg = (ValueError,) if isinstance(want, np.linalg.LinAlgError) else ()
    return (type(want), dlbridge.TraceError, *linalg)


def check_construct(jitted: Any, fn: Callable[[Any], Any], dtype: str, layout: str, *, refused: bool = False,
                    dtype_from_kernel: bool = False) -> None:
    """``jitted``, ``fn`` under ``@jit``, gives NumPy's answer or error on an input of ``dtype``
    in ``layout`` and leaves it untouched; a TraceError where ``refused``. Where
    ``dtype_from_kernel``, NumPy's result dtype depends on the data's size, and the kernel's
    stands."""
    if layout == "0-d" and dtype != "float64":
        pytest.skip("0-d inputs: float64 (each dtype compiles a kernel per rank)")
    a = make(dtype, layout)
    before = a.copy()
    want = numpy_result(fn, a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if refused and not isinstance(want, Exception):
            with pytest.raises(dlbridge.TraceError):
                jitted(a)
            return
        if isinstance(want, Exception):
            with pytest.raises(refusals(want)):
                jitted(a)
            return
        got = jitted(a)
    if dtype_from_kernel:
        want = tuple(w.astype(g.dtype) for g, w in zip(got, want))
    compare(got, want, dtype == "float32")
    np.testing.assert_array_equal(a, before)
