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
    "f64-small": np.array([1e-8, -1e-10, 1e-12, 3e-300, -1e-15, 2.0**-30]),
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


#: Complex arguments of every quadrant, the axes and their branch cuts (signed zeros), small
#: and large ones.
COMPLEX = np.array([1 + 2j, -0.5 + 0.1j, 3 - 1j, -2 - 2j, 0j, 1, -1, 1j, -1j, 2, -2, 2j, -3j, complex(0.0, -3.0),
                    complex(-0.0, 3.0), complex(-2.0, 0.0), complex(-2.0, -0.0), 1e-8 + 1e-8j, 1e-12 - 3e-12j,
                    20 + 1j, -30 - 0.5j, 0.5 + 40j])
COMPLEX_UNARY = ["exp", "log", "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh", "expm1", "log1p", "log2",
                 "log10", "exp2", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh"]


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
@pytest.mark.parametrize("name", COMPLEX_UNARY)
def test_unary_of_complex_numbers(name: str, dtype: str) -> None:
    """NumPy's values, on the branch cuts too (the sign of zero picks the side), and accurate
    for small arguments (relative to each part of the result)."""
    f = getattr(np, name)
    z = COMPLEX.astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = f(z)
        got = np.asarray(dlbridge.jit(lambda v: f(v))(z))
    assert got.dtype == want.dtype
    rtol = 1e-5 if dtype == "complex64" else 1e-12
    eps = np.finfo(got.real.dtype).eps
    for part in (np.real, np.imag):
        g, w = part(got), part(want)
        allowed = rtol * np.abs(w) + 4 * eps * np.abs(want)  # each part, or a few ulp of the whole
        close = (g == w) | (np.abs(g - w) <= allowed) | (np.isnan(g) & np.isnan(w))
        assert close.all(), (z[~close], g[~close], w[~close])


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite", "sign"])
def test_classes_and_sign_of_complex_numbers(name: str) -> None:
    """A NaN or infinite part makes the number NaN or infinite; ``sign`` is NumPy 2's ``z / |z|``
    with its rules for infinite parts."""
    nan, inf = np.nan, np.inf
    z = np.array([1 + 2j, 0j, complex(nan, 1), complex(1, inf), complex(-inf, nan), complex(inf, inf),
                  complex(nan, inf), complex(-0.0, -0.0), complex(5e-324, 0), 1e300 + 1e300j, -3j])
    f = getattr(np, name)
    for dtype in ("complex128", "complex64"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = f(z.astype(dtype))
            got = np.asarray(dlbridge.jit(lambda v: f(v))(z.astype(dtype)))
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6, equal_nan=True)


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
