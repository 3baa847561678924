"""Python as NumPy programs write it around arrays: parameters whose defaults are tuples,
strings, functions or dtypes are static without being named so; None leaves an optional array
out; the built-in ``max``/``min`` take traced scalars and sizes as Python evaluates them."""

from __future__ import annotations

from typing import Any

import dlbridge
import numpy as np
import pytest


def _layer(x: Any, w: Any = None, bias: Any = None, axes: tuple[int, ...] = (0,), act: Any = np.tanh,
           mode: str = "sum", dtype: Any = np.float32, scale: float = 2.0) -> Any:
    y = act(x).astype(dtype) * scale
    if w is not None:
        y = y * w
    if bias is not None:
        y = y + bias
    return y.sum(axis=axes) if mode == "sum" else y.max(axis=axes)


CALLS = [
    {}, {"axes": (1,)}, {"axes": (0, 1)}, {"mode": "max"}, {"act": np.sin}, {"dtype": np.float64},
    {"scale": 3.0}, {"w": np.full(3, 0.5)}, {"bias": np.ones((2, 3))},
    {"w": np.full(3, 0.5), "bias": np.ones(3), "mode": "max"}, {"w": None},
]


def test_defaults_that_no_array_stands_for_are_static() -> None:
    layer = dlbridge.jit(_layer)
    x = np.arange(6.0).reshape(2, 3)
    for kwargs in CALLS:
        got, want = layer(x, **kwargs), _layer(x, **kwargs)
        np.testing.assert_allclose(got, want, rtol=1e-6)
        assert got.dtype == want.dtype, kwargs
    # an optional array given positionally, and left out again: no new kernel for the latter
    np.testing.assert_allclose(layer(x, None, np.ones(3)), _layer(x, None, np.ones(3)), rtol=1e-6)
    count = layer.num_specialisations
    layer(x)
    assert layer.num_specialisations == count


def test_none_reaches_the_function_as_none() -> None:
    pick = dlbridge.jit(lambda a, b: a * 2 if b is None else a + b)
    np.testing.assert_array_equal(pick(np.ones(2), None), [2.0, 2.0])
    np.testing.assert_array_equal(pick(np.ones(2), np.ones(2)), [2.0, 2.0])
    np.testing.assert_array_equal(pick(np.ones(2), b=None), [2.0, 2.0])
    with pytest.raises(TypeError):
        dlbridge.jit(lambda a: a + 1)(None)


def _clamped(x: Any, v: Any) -> Any:
    hi = max(1.0, v)
    lo = min(v, x.sum(), 3.0)
    n = max(x.shape[0] - 3 + 1, 0)
    return np.zeros(n) + hi + lo


@pytest.mark.parametrize("v", [0.5, 2.0, 7.0, float("nan")])
def test_builtin_max_and_min_as_python_evaluates_them(v: float) -> None:
    clamped = dlbridge.jit(_clamped)
    for size in (5, 2, 0):
        x = np.arange(float(size))
        np.testing.assert_allclose(clamped(x, v), _clamped(x, v), equal_nan=True)


def test_builtin_max_of_sizes_stays_a_size() -> None:
    clamped = dlbridge.jit(_clamped)
    for size in (4, 6, 9):
        clamped(np.arange(float(size)), 1.0)
    assert clamped.num_specialisations == 1  # no size was fixed


def test_builtin_max_of_arrays_is_numpys_error() -> None:
    with pytest.raises(dlbridge.TraceError, match="bool"):
        dlbridge.jit(lambda x, y: max(x, y))(np.ones(3), np.zeros(3))


def _path_length(cpos: Any) -> Any:
    total = 0.0
    for i in range(1, cpos.shape[0]):
        dx, dy = cpos[i] - cpos[i - 1]
        total = total + np.sqrt(dx * dx + dy * dy)
    return total


def _sum_of_squares(pts: Any) -> Any:
    acc = np.zeros(pts.shape[1:])
    for z in pts:
        acc = acc + z * z
    return acc


@pytest.mark.parametrize("fn", [_path_length, _sum_of_squares], ids=lambda f: f.__name__)
def test_iterating_over_an_array_as_numpy_does(fn: Any) -> None:
    jitted = dlbridge.jit(fn)
    for n in (6, 3):
        c = np.random.default_rng(n).normal(size=(n, 2))
        np.testing.assert_allclose(jitted(c), fn(c))
        np.testing.assert_allclose(jitted(c[::-1]), fn(c[::-1]))


def test_iterating_over_a_0d_array_is_numpys_type_error() -> None:
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        dlbridge.jit(lambda x: [v for v in x.sum()])(np.ones(3))


def _relax(u: Any, steps: int) -> Any:
    for _ in range(steps):
        u = u * 0.5 + 1.0
    return u


def _relaxed_twice(u: Any, n: Any) -> Any:
    return _relax(u, 300) + _relax(u, n)


def test_loops_in_called_helpers_compile_as_loops() -> None:
    jitted = dlbridge.jit(_relaxed_twice)
    u = np.arange(4.0)
    np.testing.assert_allclose(jitted(u, 7), _relaxed_twice(u, 7))
    np.testing.assert_allclose(jitted(u, 0), _relaxed_twice(u, 0))
    # 300 trips and a dynamic count: two scf.for, not 300 unrolled bodies
    mlir = jitted.lower(u, 7)
    assert mlir.count("scf.for") == 2 and len(mlir.splitlines()) < 120


def _smoothed(u: Any, k: Any) -> Any:
    def smooth(v: Any, times: Any) -> Any:  # a helper defined in the function
        for _ in range(times):
            v = 0.5 * (v + np.roll(v, 1))
        return v

    squares = [t * t for t in range(3)]  # a comprehension is not a loop to rewrite
    return smooth(u, k) + smooth(u, 300) * squares[-1]


def test_loops_in_helpers_defined_in_the_function_compile_as_loops() -> None:
    jitted = dlbridge.jit(_smoothed)
    u = np.arange(5.0)
    for k in (0, 3, 40):
        np.testing.assert_allclose(jitted(u, k), _smoothed(u, k))
    assert jitted.num_specialisations == 1
    assert jitted.lower(u, 3).count("scf.for") == 2
