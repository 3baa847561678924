"""Array creation and shape arithmetic inside ``@dlbridge.jit``, compared with NumPy."""

from __future__ import annotations

from typing import Any, Callable

import dlbridge
import numpy as np
import pytest
from numpy import zeros_like as imported_zeros_like


def _same(fn: Callable[..., Any], *args: Any) -> None:
    want = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    got = dlbridge.jit(fn)(*args)
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
    else:
        got, want = (got,), (want,)
    for g, w in zip(got, want):
        g = np.asarray(g)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(g, w, rtol=1e-12)


SIZES = [0, 1, 5]


@pytest.mark.parametrize("n", SIZES)
def test_filled_arrays_with_dynamic_sizes(n: int) -> None:
    def f(x: Any) -> Any:
        m = x.shape[0]
        return (
            np.zeros((m, 2)),
            np.ones(m, dtype=np.int32),
            np.full((2, m), 7),
            np.full(m, 1.5, dtype=np.float32),
            np.zeros_like(x),
            np.ones_like(x, dtype=bool),
            np.full_like(x, 2.9, dtype=np.int16),
            np.empty((m, 0)),
            np.zeros(()),
        )

    _same(f, np.arange(float(n)))


@pytest.mark.parametrize("n", SIZES)
def test_ranges(n: int) -> None:
    def f(x: Any) -> Any:
        m = len(x)
        return (
            np.arange(m),
            np.arange(2, m + 5, 3),
            np.arange(m, -1, -2),
            np.arange(0.5, 3.0, 0.25),
            np.arange(4, dtype=np.float32),
            np.linspace(0.0, 1.0, m),
            np.linspace(-1, 1, 7, endpoint=False),
            np.eye(m, k=1),
            np.eye(3, m, dtype=np.int64),
            np.identity(m),
        )

    _same(f, np.arange(float(n)))


def test_linspace_retstep_and_int_dtype() -> None:
    def f(x: Any) -> Any:
        y, step = np.linspace(0, 10, x.shape[0], retstep=True)
        return y * step, np.linspace(0, 10, 7, dtype=np.int64)

    _same(f, np.zeros(6))


@pytest.mark.parametrize("layout", ["c", "reversed"])
def test_joining(layout: str) -> None:
    x = np.arange(6.0) if layout == "c" else np.arange(6.0)[::-1]

    def f(x: Any) -> Any:
        return (
            np.concatenate([x, x[::-1] * 2, np.ones(3)]),
            np.concatenate((x[None], x[None]), axis=0),
            np.concatenate([x.reshape(2, 3), x.reshape(2, 3)], axis=None),
            np.stack([x, x + 1], axis=1),
            np.stack((x, x), axis=-1),
            np.vstack([x, x]),
            np.hstack((x, x.astype(np.float32))),
            np.concatenate([x.astype(np.int32), np.arange(2)]),
        )

    _same(f, x)


def test_concatenate_mismatched_dynamic_sizes_is_value_error() -> None:
    f = dlbridge.jit(lambda a, b: np.concatenate([a, b], axis=1))
    with pytest.raises(ValueError, match="must match exactly"):
        f(np.zeros((2, 3)), np.zeros((3, 3)))


def test_created_arrays_can_be_written_and_returned() -> None:
    def f(x: Any) -> Any:
        u = imported_zeros_like(x)
        u[1:-1] = x[2:] - x[:-2]
        grid = np.zeros((len(x), len(x)))
        grid[0, :] = x
        grid[:, -1] = 1.0
        return u, grid, x.copy()

    _same(f, np.arange(7.0) ** 2)


def test_negative_sizes_are_value_errors() -> None:
    with pytest.raises(ValueError, match="negative dimensions"):
        dlbridge.jit(lambda x: np.zeros(-2) + x)(np.zeros(1))
    f = dlbridge.jit(lambda x: np.zeros(x.shape[0] - 5))
    with pytest.raises(ValueError, match="negative dimensions"):
        f(np.zeros(3))
    assert f(np.zeros(7)).shape == (2,)


def test_helper_functions_see_the_numpy_proxy() -> None:
    def pad(v: Any) -> Any:
        out = np.zeros(v.shape[0] + 2)
        out[1:-1] = v
        return out

    _same(lambda x: pad(x) * 2, np.arange(4.0))


def _rotate_twice(y: Any) -> Any:
    def rotate(v: Any) -> Any:  # the only user of np: the enclosing function names none
        return np.array([v[1], -v[0]])

    return rotate(y) + rotate(rotate(y))


def test_functions_defined_in_the_traced_function_see_the_numpy_proxy() -> None:
    _same(_rotate_twice, np.array([1.0, 2.0]))


def test_numpy_names_still_numpy_inside_the_trace() -> None:
    def f(x: Any) -> Any:
        # np.float32 is a stand-in that casts traced values (np.float32(x)); as a dtype, in
        # comparisons and isinstance checks it is NumPy's float32
        real = __import__("numpy").float32
        assert np.float32 == real and np.dtype(np.float32) == np.dtype(real)
        assert isinstance(real(1), np.float32) and issubclass(np.float32, np.floating)
        return x.astype(np.float32) * np.pi, np.float32(2.5) * x, np.float32(x)

    _same(f, np.arange(3.0))


@pytest.mark.parametrize("n", [1, 4, 7])
def test_shape_arithmetic(n: int) -> None:
    def f(x: Any) -> Any:
        m = x.shape[0]
        half = m // 2
        return x[:half] * 1, x[m - half :] + m, x.sum() / x.size, x[-(m % 3) :] * 1, np.zeros(2 * m - 1)

    _same(f, np.arange(float(n)))


def test_control_flow_on_shape_entries_specialises() -> None:
    def f(x: Any) -> Any:
        return x if x.shape[0] > 2 else -x

    jitted = dlbridge.jit(f)
    for n in (3, 2, 5):
        np.testing.assert_array_equal(jitted(np.arange(float(n))), f(np.arange(float(n))))
    assert jitted.num_specialisations == 3  # fixed at each size


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
def test_meshgrid_of_traced_vectors(indexing: str, sparse: bool) -> None:
    def f(x: Any, y: Any) -> Any:
        return tuple(np.meshgrid(x, y, indexing=indexing, sparse=sparse))

    _same(f, np.arange(3.0), np.arange(4.0)[::-1] * 10)


LOOKUP = np.array([[0.5, 1.0], [2.0, 4.0]])


def test_numpy_constants_mgrid_and_tables() -> None:
    def f(x: Any) -> Any:
        rows, cols = np.mgrid[0:3, 0:4]
        ramp = np.mgrid[0:1:5j]
        mask = np.array([[True, False, True, False]] * 3)
        return x * rows + cols + np.where(mask, 1.0, 0.0), ramp * 2, x[:2, :2] @ LOOKUP

    _same(f, np.ones((3, 4)))


def test_large_constants_are_refused() -> None:
    big = np.zeros(3 << 20)

    with pytest.raises(dlbridge.TraceError, match="pass it as an argument"):
        dlbridge.jit(lambda x: np.concatenate([x, big]))(np.zeros(3))


def test_joining_arrays_that_are_empty_while_tracing() -> None:
    def f(x: Any) -> Any:
        e = np.arange(0, 0)
        return np.stack([e, e]), np.concatenate([np.zeros((0, 2)), np.ones((0, 2))], axis=1), np.vstack([e, e]) + x

    _same(f, np.zeros((), dtype=np.int64))


def test_a_seeded_generator_gives_numpys_numbers_in_every_call() -> None:
    """``np.random.default_rng(seed)`` inside the function draws the same numbers in every NumPy
    call, so the kernel's constants are NumPy's; its sizes may come from the arguments."""
    def noisy(x: Any) -> Any:
        rng = np.random.default_rng(7)
        return x + rng.standard_normal(x.shape)

    jitted = dlbridge.jit(noisy)
    for n in (3, 5):
        x = np.arange(float(n))
        np.testing.assert_array_equal(jitted(x), noisy(x))
        np.testing.assert_array_equal(jitted(x), noisy(x))
