"""NumPy's everyday elementwise functions under ``@dlbridge.jit``: values and dtypes as NumPy's."""

from __future__ import annotations

import warnings
from typing import Any

import dlbridge
import numpy as np
import pytest

FLOATS = np.array([-2.5, -0.5, -0.0, 0.0, 0.5, 1.5, 2.5, 0.75, np.nan, np.inf, -np.inf, 1e300])
INPUTS = {
    "f64": FLOATS,
    "f32": FLOATS.astype(np.float32),
    "f64-reversed": FLOATS[::-1],
    "i64": np.array([-3, 0, 2, 7]),
    "u8": np.array([0, 3, 255], dtype=np.uint8),
    "0-d": np.array(0.25),
    "empty": np.zeros((0, 3)),
}

UNARY = [
    "log1p", "expm1", "log2", "log10", "exp2", "tan", "sinh", "cosh", "arcsin", "arccos", "arctan",
    "arcsinh", "arccosh", "arctanh", "cbrt", "rint", "floor", "ceil", "trunc", "sign", "isnan",
    "isinf", "isfinite", "round",
]
BINARY = ["arctan2", "hypot", "copysign", "fmax", "fmin"]


def _compare(got: Any, want: Any) -> None:
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape)
    rtol = 2e-6 if want.dtype == np.float32 else 1e-13
    np.testing.assert_allclose(got, want, rtol=rtol, equal_nan=True)


@pytest.mark.parametrize("kind", list(INPUTS))
@pytest.mark.parametrize("name", UNARY)
def test_unary(name: str, kind: str) -> None:
    f = getattr(np, name)
    x = INPUTS[kind]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = f(x)
        got = dlbridge.jit(lambda v: f(v))(x)
    _compare(got, want)


@pytest.mark.parametrize("name", BINARY)
def test_binary_with_broadcasting(name: str) -> None:
    f = getattr(np, name)
    x = FLOATS.reshape(3, 4)
    y = FLOATS[::-3].copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _compare(dlbridge.jit(lambda a, b: f(a, b))(x, y), f(x, y))
        _compare(dlbridge.jit(lambda a: f(a, 2))(np.arange(4)), f(np.arange(4), 2))


def test_hypot_does_not_overflow() -> None:
    x = np.array([1e200, 3e-200, 0.0, np.inf, np.nan])
    y = np.array([1e200, 4e-200, 0.0, np.nan, np.inf])
    _compare(dlbridge.jit(np.hypot)(x, y), np.hypot(x, y))


@pytest.mark.parametrize("decimals", [-1, 0, 1, 2])
def test_round_decimals(decimals: int) -> None:
    x = np.array([1.25, 2.675, -0.5, 15.0, 25.0, 0.125])
    _compare(dlbridge.jit(lambda v: np.round(v, decimals))(x), np.round(x, decimals))
    _compare(dlbridge.jit(lambda v: v.round(decimals))(x), x.round(decimals))
    ints = np.array([15, 25, -35])
    _compare(dlbridge.jit(lambda v: np.around(v, decimals))(ints), np.around(ints, decimals))


def test_clip() -> None:
    x = np.array([-3.0, 0.5, 2.0, np.nan])
    _compare(dlbridge.jit(lambda v: np.clip(v, -1, 1))(x), np.clip(x, -1, 1))
    _compare(dlbridge.jit(lambda v: v.clip(0))(x), x.clip(0))
    _compare(dlbridge.jit(lambda v: v.clip(max=0.5))(x), x.clip(max=0.5))
    lo, hi = np.zeros(4), np.array([1.0, 0.1, 3.0, 1.0])
    _compare(dlbridge.jit(lambda v, a, b: np.clip(v, a, b))(x, lo, hi), np.clip(x, lo, hi))
    _compare(dlbridge.jit(lambda v: np.clip(v, 1, 3))(np.arange(5)), np.clip(np.arange(5), 1, 3))


def test_sign_of_bool_is_refused() -> None:
    with pytest.raises(dlbridge.TraceError, match="sign"):
        dlbridge.jit(lambda v: np.sign(v))(np.array([True]))


def test_integer_powers_by_run_time_exponents_compile_for_cuda() -> None:
    """``x ** n`` of integers with ``n`` an argument or an array: math.ipowi, which only the CPU
    pipeline lowered, is a square-and-multiply loop on CUDA, in kernels and host code alike."""
    x = np.arange(6)
    for fn, args in ((lambda a, n: a ** n, (x, 3)), (lambda a, b: a ** b, (x, x[::-1])),
                     (lambda a, r: a // (2 * r + 1) ** 2, (x, 2))):
        stages = dlbridge.jit(fn, target="cuda").inspect(*args)
        assert "math.ipowi" not in stages["kernels-to-nvvm"] and ".entry" in stages["ptx"]
        np.testing.assert_array_equal(dlbridge.jit(fn)(*args), fn(*args))
