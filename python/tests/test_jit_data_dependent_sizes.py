"""Results whose size the data gives (``np.nonzero``, ``np.flatnonzero``, ``np.argwhere``,
``np.extract``, ``x[mask]`` as an array): a count, then one pass storing the selected positions,
give NumPy's arrays for every layout, dtype and size; such kernels have no shape rule, which
says why."""

from __future__ import annotations

from typing import Any

import dlbridge
import numpy as np
import pytest
from dlbridge._shape_rules import shape_rule

RNG = np.random.default_rng(3)


def _samples(shape: tuple[int, ...], dtype: Any) -> list[Any]:
    values = RNG.integers(-2, 3, size=shape).astype(dtype)
    samples = [values, np.zeros(shape, dtype), np.ones(shape, dtype)]
    if values.ndim:
        samples.append(values[::-1])
    if values.ndim > 1:
        samples.append(values.T)
    return samples


FUNCTIONS = {
    "nonzero": lambda x: np.nonzero(x),
    "method_nonzero": lambda x: x.nonzero(),
    "flatnonzero": lambda x: np.flatnonzero(x),
    "argwhere": lambda x: np.argwhere(x),
    "extract": lambda x: np.extract(x > 0, x * 2),
    "mask": lambda x: x[x != 0],
    "positions_used": lambda x: (np.flatnonzero(x) * 10).sum(),
    "count_nonzero": lambda x: (np.count_nonzero(x), np.count_nonzero(x, axis=0)),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 2), (0, 3)], ids=str)
@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.bool_], ids=lambda d: np.dtype(d).name)
def test_data_dependent_sizes_match_numpy(name: str, shape: tuple[int, ...], dtype: Any) -> None:
    fn = FUNCTIONS[name]
    jitted = dlbridge.jit(fn)
    for x in _samples(shape, dtype):
        got, want = jitted(x), fn(x)
        for g, w in zip(got if isinstance(want, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            np.testing.assert_array_equal(g, w)
            assert np.asarray(g).shape == np.asarray(w).shape


def test_rows_selected_by_a_mask_over_leading_dims() -> None:
    x = RNG.normal(size=(6, 3, 2))
    keep = x[:, 0, 0] > 0
    np.testing.assert_array_equal(dlbridge.jit(lambda a, m: a[m])(x, keep), x[keep])


def test_nonzero_of_a_0d_array_is_numpys_error() -> None:
    with pytest.raises(ValueError, match="Calling nonzero on 0d arrays is not allowed"):
        dlbridge.jit(lambda x: np.nonzero(x.sum()))(np.ones(3))


def test_kernels_with_data_dependent_sizes_have_no_shape_rule() -> None:
    jitted = dlbridge.jit(lambda x: x[x > 0])
    traced = jitted._trace(jitted.specs(np.ones(3)))
    with pytest.raises(ValueError, match=r"result 0, dim 0: its size depends on the values of the arguments "
                                         r"\('scf.for' at \S*test_jit_data_dependent_sizes.py:\d+\)"):
        shape_rule(traced.mlir, traced.entry)


HISTOGRAMS = {
    "bincount": lambda x, w: np.bincount(x),
    "bincount_minlength": lambda x, w: np.bincount(x, minlength=12),
    "bincount_weights": lambda x, w: np.bincount(x, weights=w),
    "histogram": lambda x, w: np.histogram(w, bins=5),
    "histogram_range": lambda x, w: np.histogram(w, bins=4, range=(-1, 1)),
    "histogram_weights_density": lambda x, w: np.histogram(w, bins=6, weights=x, density=True),
    "histogram_of_ints": lambda x, w: np.histogram(x, 3),
}


@pytest.mark.parametrize("name", sorted(HISTOGRAMS))
@pytest.mark.parametrize("n", [1, 40])
def test_counting_into_bins_matches_numpy(name: str, n: int) -> None:
    fn = HISTOGRAMS[name]
    x = RNG.integers(0, 9, size=n)
    w = RNG.normal(size=n)
    got, want = dlbridge.jit(fn)(x, w), fn(x, w)
    for g, v in zip(got if isinstance(want, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        np.testing.assert_allclose(g, v, rtol=1e-12)
        assert np.asarray(g).dtype == np.asarray(v).dtype


def test_values_on_bin_edges_land_as_numpy_puts_them() -> None:
    a = np.linspace(0.0, 1.0, 31)
    got, want = dlbridge.jit(lambda v: np.histogram(v, 7))(a), np.histogram(a, 7)
    np.testing.assert_array_equal(got[0], want[0])


def test_counting_errors_are_numpys() -> None:
    with pytest.raises(ValueError, match="'list' argument must have no negative elements"):
        dlbridge.jit(lambda x: np.bincount(x))(np.array([1, -1]))
    with pytest.raises(ValueError, match="The weights and list don't have the same length"):
        dlbridge.jit(lambda x, w: np.bincount(x, weights=w))(np.array([1, 2]), np.ones(3))
    with pytest.raises(ValueError, match="autodetected range is not finite"):
        dlbridge.jit(lambda a: np.histogram(a, 3))(np.array([1.0, np.inf]))


UNIQUES = {
    "values": lambda x: np.unique(x),
    "all": lambda x: np.unique(x, return_index=True, return_inverse=True, return_counts=True),
    "counts": lambda x: np.unique(x, return_counts=True),
    "nan_apart": lambda x: np.unique(x, equal_nan=False),
}


@pytest.mark.parametrize("name", sorted(UNIQUES))
@pytest.mark.parametrize("dtype", [np.float64, np.int32], ids=lambda d: np.dtype(d).name)
def test_unique_matches_numpy(name: str, dtype: Any) -> None:
    fn = UNIQUES[name]
    jitted = dlbridge.jit(fn)
    values = RNG.integers(0, 4, size=(3, 5)).astype(dtype)
    samples = [values, values[::-1, ::2], np.zeros((0, 2), dtype), np.full(4, 7, dtype)]
    if dtype == np.float64:
        samples.append(np.array([np.nan, 1.0, np.nan, 0.5]))
    for x in samples:
        got, want = jitted(x), fn(x)
        for g, w in zip(got if isinstance(want, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            np.testing.assert_array_equal(g, w)
            assert np.asarray(g).dtype == np.asarray(w).dtype


def test_bincount_minlength_from_a_size_or_an_int_argument_stays_dynamic() -> None:
    """A CSR matrix-vector product's ``np.bincount(rows, weights, minlength=n_rows)`` with
    ``n_rows`` a size or an int argument: one kernel for every value, a negative one NumPy's
    ValueError when the kernel runs."""
    by_arg = dlbridge.jit(lambda x, m: np.bincount(x, minlength=m))
    by_size = dlbridge.jit(lambda x, ptr: np.bincount(x, minlength=ptr.shape[0] - 1))
    x = np.array([0, 3, 3, 1])
    for m in (0, 2, 7):
        np.testing.assert_array_equal(by_arg(x, m), np.bincount(x, minlength=m))
        np.testing.assert_array_equal(by_size(x, np.ones(m + 1)), np.bincount(x, minlength=m))
    np.testing.assert_array_equal(by_size(x[:0], np.ones(3)), np.bincount(x[:0], minlength=2))
    assert by_arg.num_specialisations == 1
    with pytest.raises(ValueError, match="minlength must be a non-negative integer"):
        by_arg(x, -1)
    with pytest.raises(ValueError, match="minlength must be a non-negative integer"):
        by_size(x, np.ones(0))
