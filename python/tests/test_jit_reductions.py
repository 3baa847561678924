"""Reductions and scans under ``@dlbridge.jit``: NumPy's values, dtypes, NaN rules and errors."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import dlbridge
import numpy as np
import pytest

ARRAYS = {
    "f64-nan": np.array([[3.0, np.nan, 1.0, 7.0], [2.0, 2.0, -1.0, 0.0], [5.0, 1.0, 5.0, -9.0]]),
    "f32-fortran": np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4) - 5),
    "i32-reversed": np.arange(12, dtype=np.int32).reshape(3, 4)[::-1, ::-1] % 5,
    "u8": np.array([[1, 255, 3], [0, 2, 2]], dtype=np.uint8),
    "bool": np.array([[True, False], [False, False]]),
}

REDUCTIONS: list[tuple[str, Callable[[Any], Any]]] = [
    ("prod", lambda v: np.prod(v)),
    ("prod-axis", lambda v: v.prod(axis=1)),
    ("prod-keepdims", lambda v: np.prod(v, axis=0, keepdims=True)),
    ("any", lambda v: np.any(v, axis=1)),
    ("all", lambda v: v.all()),
    ("any-keepdims", lambda v: v.any(axis=0, keepdims=True)),
    ("argmax", lambda v: np.argmax(v)),
    ("argmin-axis", lambda v: np.argmin(v, axis=1)),
    ("argmax-keepdims", lambda v: v.argmax(axis=0, keepdims=True)),
    ("cumsum", lambda v: np.cumsum(v)),
    ("cumsum-axis", lambda v: np.cumsum(v, axis=1)),
    ("cumprod-axis", lambda v: v.cumprod(axis=0)),
]

FLOAT_REDUCTIONS: list[tuple[str, Callable[[Any], Any]]] = [
    ("var", lambda v: np.var(v)),
    ("std-ddof", lambda v: np.std(v, axis=0, ddof=1)),
    ("var-keepdims", lambda v: v.var(axis=1, keepdims=True)),
    ("std-method", lambda v: v.std()),
]


def _compare(fn: Callable[[Any], Any], x: np.ndarray) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = np.asarray(fn(x))
        got = np.asarray(dlbridge.jit(fn)(x))
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize("kind", list(ARRAYS))
@pytest.mark.parametrize("name", [n for n, _ in REDUCTIONS])
def test_reduction(name: str, kind: str) -> None:
    fn = dict(REDUCTIONS)[name]
    if kind == "bool" and name.startswith(("cumprod",)):
        pytest.skip("NumPy's cumprod of bools is int64; covered by the int cases")
    _compare(fn, ARRAYS[kind])


@pytest.mark.parametrize("kind", ["f64-nan", "f32-fortran", "i32-reversed"])
@pytest.mark.parametrize("name", [n for n, _ in FLOAT_REDUCTIONS])
def test_variance(name: str, kind: str) -> None:
    _compare(dict(FLOAT_REDUCTIONS)[name], ARRAYS[kind])


@pytest.mark.parametrize("n", [0, 1, 9, 40])
def test_scans_on_dynamic_lengths(n: int) -> None:
    x = np.arange(float(n)) - 3
    _compare(lambda v: np.cumsum(v), x)
    _compare(lambda v: np.cumprod(v * 0.5), x)


def test_argmax_ties_take_the_first_index() -> None:
    _compare(lambda v: np.argmax(v, axis=0), np.array([[1, 5], [5, 1], [5, 5]]))
    _compare(lambda v: np.argmin(v), np.array([2.0, 1.0, 1.0, np.nan, np.nan]))


def test_argmax_of_empty_is_value_error() -> None:
    f = dlbridge.jit(lambda v: np.argmax(v))
    with pytest.raises(ValueError, match="empty"):
        f(np.zeros(0))
    assert int(np.asarray(f(np.array([1.0, 3.0])))) == 1


def test_prod_of_empty_is_one_and_any_of_empty_is_false() -> None:
    _compare(lambda v: (v.prod(axis=0)), np.zeros((0, 3)))
    _compare(lambda v: (v.any(axis=0)), np.zeros((0, 3)))
    _compare(lambda v: (v.all(axis=0)), np.zeros((0, 3)))


@pytest.mark.parametrize("x", [np.arange(1, 7, dtype=np.int8).reshape(2, 3), np.array([[True, False]]), ARRAYS["f64-nan"]])
def test_multiply_reduce_is_prod(x: np.ndarray) -> None:
    _compare(lambda v: np.multiply.reduce(v, axis=0), x)
    _compare(lambda v: np.multiply.reduce(v, axis=1, dtype=np.float64), x)


@pytest.mark.parametrize(
    "fn",
    [
        lambda v: np.linalg.norm(v),
        lambda v: np.linalg.norm(v, axis=1),
        lambda v: np.linalg.norm(v, axis=0, keepdims=True),
        lambda v: np.linalg.norm(v, ord=1, axis=1),
        lambda v: np.linalg.norm(v, ord=np.inf, axis=0),
        lambda v: np.linalg.norm(v, ord=3, axis=1),
        lambda v: np.linalg.norm(v, "fro"),
        lambda v: np.linalg.norm(v[0]),
    ],
)
@pytest.mark.parametrize("kind", ["f32-fortran", "i32-reversed"])
def test_linalg_norm(fn: Callable[[Any], Any], kind: str) -> None:
    _compare(fn, ARRAYS[kind])


def test_matrix_norms_other_than_frobenius_are_refused() -> None:
    with pytest.raises(dlbridge.TraceError, match="matrix norm"):
        dlbridge.jit(lambda v: np.linalg.norm(v, ord=2))(np.eye(3))


def test_complex_max_and_min_follow_numpys_lexicographic_order_and_nans() -> None:
    """``max``/``min`` (and ``argmax``/``argmin``) of complex arrays compare real parts, then
    imaginary ones; the first element with a NaN part wins, as NumPy's ``maximum.reduce``."""
    nan = np.nan
    cases = [np.array([1 + 1j, 3 - 2j, 3 + 1j, -5j]), np.array([[1 + 1j, nan + 2j], [3 + nan * 1j, 2]]),
             np.array([2 + 0j, complex(2, nan), 1]), np.array([[1j, -1j], [1 - 1j, 1 + 0j]], dtype=np.complex64)]
    fns = [lambda a: a.max(), lambda a: a.min(), lambda a: np.max(a, axis=0),
           lambda a: np.min(a, axis=-1, keepdims=True), lambda a: np.amax(a, initial=0), lambda a: np.ptp(a, 0),
           lambda a: a.argmax(), lambda a: np.argmin(a), lambda a: np.argmax(a, axis=0),
           lambda a: a.argmin(axis=-1, keepdims=True)]
    for fn in fns:
        jitted = dlbridge.jit(fn)
        for x in cases:
            got, want = np.asarray(jitted(x)), np.asarray(fn(x))
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
