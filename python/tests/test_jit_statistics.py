"""Issue 26's statistics and numerical functions under ``@dlbridge.jit``, against NumPy on the CPU.

The ``nan`` reductions, ``ptp``, ``initial=``/``where=`` of the reductions, ``median``,
``quantile``/``percentile`` and their ``nan`` forms, ``partition``/``argpartition``, ``lexsort``,
tolerant comparisons, ``trapezoid``/``gradient``, ``convolve``/``correlate``, ``interp``,
``digitize``, ``isin``, ``select``, ``nan_to_num``, polynomials, the matrix functions and index
arithmetic. Each construct runs on every dtype class in C order, strided, reversed, empty and
0-d (float64), and must give NumPy's values, dtype and shape and leave its input untouched, or
raise where NumPy raises; each also compiles for CUDA (through ptxas). Targeted tests cover
all-NaN slices, NumPy's errors and dynamic sizes.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import dlbridge
import numpy as np
import pytest
from numpy_constructs import DTYPES, LAYOUTS, check_construct, compare, make


def _holes(a: Any) -> Any:
    """``a`` as floats with NaNs where its real part is above 0.5."""
    return np.where(np.real(a) > 0.5, np.nan, a)


#: name → the NumPy user's function of one array
CONSTRUCTS: dict[str, Callable[[Any], Any]] = {
    "nan_sums": lambda a: (np.nansum(a), np.nansum(_holes(a), axis=0), np.nanprod(_holes(a), axis=-1, keepdims=True),
                           np.nanmean(_holes(a), axis=1), np.nanmean(a)),
    "nan_extremes": lambda a: (np.nanmax(_holes(a), axis=1), np.nanmin(_holes(a), axis=0), np.nanmax(a.real, axis=-1)),
    "nan_var": lambda a: (np.nanvar(_holes(a), axis=0), np.nanstd(_holes(a), axis=1, ddof=1), np.nanvar(a)),
    "nan_scans": lambda a: (np.nancumsum(_holes(a), axis=1), np.nancumprod(a, axis=0), np.nancumsum(a)),
    "ptp": lambda a: (np.ptp(a, axis=0), np.ptp(a.real, axis=-1, keepdims=True)),
    "initial_where": lambda a: (np.sum(a, where=np.real(a) > 0), a.sum(axis=1, initial=3), np.max(a.real, axis=0, initial=2),
                                np.min(a.real, axis=1, where=np.real(a) >= 1, initial=5), np.prod(a, axis=0, initial=2),
                                np.mean(a, axis=1, where=np.real(a) > 0), np.any(a, axis=0, where=np.real(a) > 1),
                                np.all(a, axis=-1, where=np.real(a) < 1)),
    "median": lambda a: (np.median(a, axis=1), np.median(a, axis=(0, 1), keepdims=True), np.nanmedian(_holes(a))),
    "quantile": lambda a: (np.quantile(a, 0.3, axis=1), np.percentile(a, [10, 50, 90], axis=0),
                           np.quantile(a, [0.4, 0.7], axis=1, method="nearest", keepdims=True),
                           np.percentile(a, 35, method="midpoint")),
    "nan_quantile": lambda a: (np.nanquantile(_holes(a), 0.25, axis=0), np.nanpercentile(a, [5, 95], axis=1,
                                                                                          method="lower")),
    "partition": lambda a: (np.partition(a, 2, axis=-1)[..., 2], a[0][np.argpartition(a[0], 3)][3]),
    "lexsort": lambda a: (np.lexsort((a[0], a[-1])), np.lexsort((a, a[::-1]), axis=0)),
    "comparisons": lambda a: (np.isclose(a, a * 1.0000001), np.allclose(a, a + 1e-12), np.isclose(a, 1, equal_nan=True),
                              np.array_equal(a, a), np.array_equal(a, a[:1]), np.array_equiv(a, a[:1]),
                              np.allclose(a, a + 1)),
    "calculus": lambda a: (np.trapezoid(a, axis=1), np.trapezoid(a, dx=0.5, axis=0),
                           np.trapezoid(a, x=np.arange(5.0) ** 2), np.gradient(a, 2.0, axis=-1)),
    "convolve": lambda a: (np.convolve(a[0], a[-1, :3]), np.convolve(a[0], a[1, :2], "same"),
                           np.convolve(a[0, :2], a[1], "valid"), np.correlate(a[0], a[1, :3]),
                           np.correlate(a[0], a[1, :4], "same"), np.correlate(a[0, :3], a[1], "full")),
    "interp": lambda a: (np.interp(a, [-1.0, 0.0, 1.0], [0.0, 5.0, 3.0]),
                         np.interp(a[0], [-1.0, 0.5], [2.0, 1.0], left=-9, right=9)),
    "digitize": lambda a: (np.digitize(a, [-1.0, 0.0, 1.0]), np.digitize(a, [1, 0, -1], right=True)),
    "isin_select": lambda a: (np.isin(a, a[0]), np.isin(a, [0, 1], invert=True),
                              np.select([np.real(a) < 0, np.real(a) > 1], [a, 2 * a], 0),
                              np.nan_to_num(a / 0.0), np.nan_to_num(a, nan=-1.0)),
    "polynomials": lambda a: (np.polyval(a[0, :3], a), np.polyval([1.0, -2.0, 3.0], a), np.vander(a[0], 3),
                              np.vander(a[-1], increasing=True)),
    "matrices": lambda a: (np.diagonal(a), np.diagonal(a, 1), np.diag(a, -1), np.diag(a[0], -1), np.trace(a),
                           a.trace(2), np.tri(a.shape[0], a.shape[1], 1) * a, np.kron(a[:2, :2], a[:1])),
    "cross": lambda a: (np.cross(a[:, :3], a[:, 2:]), np.cross(a, a[::-1], axis=0), np.cross(a[:2], a[1:], axis=0),
                        np.cross(a[:, :2], a[:, 2:]), np.cross(a[:, 1:4], a[:, 3:], axisc=0)),
    "matrix_power": lambda a: tuple(np.linalg.matrix_power(a[:, :3], k) for k in (0, 1, 2, 5)),
    "index_math": lambda a: (np.unravel_index(np.argmax(np.real(a)), a.shape),
                             np.ravel_multi_index((np.argmax(np.real(a), axis=1), np.argmin(np.real(a), axis=1)),
                                                  a.shape),
                             np.ravel_multi_index(([0, 1], [7, -1]), (2, 6), mode="wrap")),
}

#: (construct, dtype) pairs NumPy runs that the tracer refuses with a TraceError: the order of
#: complex numbers in max/min, and matmul of bools.
REFUSED: set[tuple[str, str]] = {("nan_extremes", "complex128"), ("matrix_power", "bool")}

#: NumPy's ``nanquantile`` of an empty array is ``nanmean``'s result, without the quantiles'
#: axis: a shape that depends on the data's size, which the kernel only knows when it runs.
EMPTY_SHAPE = {"nan_quantile"}

JITTED = {name: dlbridge.jit(fn) for name, fn in CONSTRUCTS.items()}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(CONSTRUCTS))
def test_construct_matches_numpy(name: str, dtype: str, layout: str) -> None:
    if layout == "empty" and name in EMPTY_SHAPE:
        pytest.skip("NumPy's result for an empty input has a shape that depends on the data's size")
    check_construct(JITTED[name], CONSTRUCTS[name], dtype, layout, refused=(name, dtype) in REFUSED)


@pytest.mark.parametrize("name", list(CONSTRUCTS))
def test_construct_compiles_for_cuda(name: str) -> None:
    """Each construct's kernels go through the CUDA pipeline to PTX that ptxas accepts."""
    stages = dlbridge.jit(CONSTRUCTS[name], target="cuda").inspect(make("float64", "C"))
    assert stages["input"]


def _all_nan_rows() -> np.ndarray:
    x = np.arange(12.0).reshape(3, 4)
    x[1] = np.nan
    x[2, 1] = np.nan
    return x


ALL_NAN = dlbridge.jit(lambda a: (np.nanmax(a, axis=1), np.nanmin(a, axis=1), np.nanmean(a, axis=1),
                                  np.nanvar(a, axis=1), np.nanmedian(a, axis=1), np.nanquantile(a, 0.3, axis=1),
                                  np.nansum(a, axis=1), np.nanprod(a, axis=1)))


def test_all_nan_slices_give_numpys_results() -> None:
    """An all-NaN row: NaN for the extremes, the mean, the variance and the order statistics,
    0 and 1 for the sum and the product, as NumPy (which also warns)."""
    x = _all_nan_rows()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = (np.nanmax(x, axis=1), np.nanmin(x, axis=1), np.nanmean(x, axis=1), np.nanvar(x, axis=1),
                np.nanmedian(x, axis=1), np.nanquantile(x, 0.3, axis=1), np.nansum(x, axis=1), np.nanprod(x, axis=1))
    compare(ALL_NAN(x), want, False)


NANARGMAX = dlbridge.jit(lambda a: (np.nanargmax(a, axis=1), np.nanargmin(a)))


def test_nanargmax_of_an_all_nan_slice_is_a_value_error() -> None:
    x = _all_nan_rows()
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        NANARGMAX(x)
    y = x[[0, 2]]
    compare(NANARGMAX(y), (np.nanargmax(y, axis=1), np.nanargmin(y)), False)


def test_max_with_where_needs_initial_and_an_empty_max_needs_it_too() -> None:
    x = np.arange(6.0).reshape(2, 3)
    with pytest.raises(ValueError, match="to use a where mask one has to specify 'initial'"):
        dlbridge.jit(lambda a: np.max(a, where=a > 1))(x)
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        dlbridge.jit(lambda a: np.max(a, axis=0))(x[:0])
    f = dlbridge.jit(lambda a: (np.max(a, axis=0, initial=-1.0), np.min(a, where=a > 1, initial=9.0),
                                a.sum(initial=10, where=a < 4)))
    for v in (x, x[:0]):
        compare(f(v), (np.max(v, axis=0, initial=-1.0), np.min(v, where=v > 1, initial=9.0),
                        v.sum(initial=10, where=v < 4)), False)


def test_quantile_arguments_numpy_refuses() -> None:
    x = np.arange(6.0)
    with pytest.raises(ValueError, match=r"Quantiles must be in the range \[0, 1\]"):
        dlbridge.jit(lambda a: np.quantile(a, 1.5))(x)
    with pytest.raises(ValueError, match=r"Percentiles must be in the range \[0, 100\]"):
        dlbridge.jit(lambda a: np.percentile(a, [10, -1]))(x)
    with pytest.raises(dlbridge.TraceError, match="method='hazen'"):
        dlbridge.jit(lambda a: np.quantile(a, 0.5, method="hazen"))(x)
    with pytest.raises(ValueError, match=r"kth\(=6\) out of bounds \(6\)"):
        dlbridge.jit(lambda a: np.partition(a, 6))(x)


def test_partition_by_an_int_argument_is_specialised_on_it() -> None:
    """``np.argpartition(x, -k)[-k:]`` (a top-k with ``k`` a Python int argument): NumPy needs
    ``kth`` as a number, so each ``k`` is its own guarded kernel."""
    top_k = dlbridge.jit(lambda a, k: np.sort(a[np.argpartition(a, -k)[-k:]]))
    x = np.random.default_rng(5).random(20)
    for k in (4, 1, 4, 20):
        np.testing.assert_array_equal(top_k(x, k), np.sort(x[np.argpartition(x, -k)[-k:]]))
    assert top_k.num_specialisations == 3
    with pytest.raises(ValueError, match=r"kth\(=-21\) out of bounds \(20\)"):
        top_k(x, 21)
    with pytest.raises(dlbridge.TraceError, match="kth that is not known while tracing"):
        dlbridge.jit(lambda a, k: np.partition(a, k))(x, np.array([1, 2]))


QUANTILE_OF = dlbridge.jit(lambda a, q: (np.quantile(a, q, axis=0), np.percentile(a, q * 100, axis=1, method="lower")))


def test_traced_quantiles() -> None:
    """``q`` as an array argument: the quantiles' shape leads the result's."""
    x = np.random.default_rng(3).standard_normal((5, 4))
    q = np.array([[0.0, 0.25], [0.5, 1.0]])
    compare(QUANTILE_OF(x, q), (np.quantile(x, q, axis=0), np.percentile(x, q * 100, axis=1, method="lower")), False)
    with pytest.raises(ValueError, match="Quantiles must be in the range"):
        QUANTILE_OF(x, q + 0.5)


ORDER_STATS = dlbridge.jit(lambda a: (np.median(a), np.median(a, axis=-1), np.nanmedian(a, axis=0),
                                      np.quantile(a, [0.1, 0.5, 0.77], axis=-1), np.nanpercentile(a, 40, axis=0),
                                      np.convolve(a[0], a[-1], "same"), np.correlate(a[-1], a[0], "same"),
                                      np.diagonal(a, 1), np.diag(a[0], -2), np.interp(a[0], np.sort(a[-1]), a[-1])))


@pytest.mark.parametrize("shape", [(3, 4), (2, 7), (5, 1)])
def test_sizes_of_every_parity(shape: tuple[int, int]) -> None:
    """Odd and even slice lengths, a single sample, NaNs among them: the order statistics,
    convolutions, diagonals and ``interp`` take their indices from the sizes of the call."""
    x = np.random.default_rng(sum(shape)).integers(-3, 4, shape).astype(np.float64)
    x[0, 0] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = (np.median(x), np.median(x, axis=-1), np.nanmedian(x, axis=0), np.quantile(x, [0.1, 0.5, 0.77], axis=-1),
                np.nanpercentile(x, 40, axis=0), np.convolve(x[0], x[-1], "same"), np.correlate(x[-1], x[0], "same"),
                np.diagonal(x, 1), np.diag(x[0], -2), np.interp(x[0], np.sort(x[-1]), x[-1]))
        compare(ORDER_STATS(x), want, False)


def test_numpy_values_give_numpy_results() -> None:
    """Called on no traced value inside a jitted function, the functions are NumPy's own."""
    f = dlbridge.jit(lambda a: a + np.median([1.0, 5.0, 2.0]) + np.trace(np.eye(3)) + np.interp(0.5, [0, 1], [0, 4]))
    x = np.arange(3.0)
    np.testing.assert_array_equal(f(x), x + 2.0 + 3.0 + 2.0)


def test_isclose_of_infinities_and_nans() -> None:
    x = np.array([np.inf, -np.inf, np.nan, 1.0, 1e10])
    y = np.array([np.inf, np.inf, np.nan, 1.0 + 1e-9, 1.00001e10])
    f = dlbridge.jit(lambda a, b: (np.isclose(a, b), np.isclose(a, b, equal_nan=True), np.allclose(a, b),
                                   np.allclose(a[3:], b[3:]), np.array_equal(a, a, equal_nan=True),
                                   np.array_equal(a, a)))
    compare(f(x, y), (np.isclose(x, y), np.isclose(x, y, equal_nan=True), np.asarray(np.allclose(x, y)),
                       np.asarray(np.allclose(x[3:], y[3:])), np.asarray(np.array_equal(x, x, equal_nan=True)),
                       np.asarray(np.array_equal(x, x))), False)


def test_index_arithmetic_out_of_bounds_is_numpys_error() -> None:
    with pytest.raises(ValueError, match="out of bounds"):
        dlbridge.jit(lambda i: np.unravel_index(i, (2, 3)))(np.array([1, 6]))
    with pytest.raises(ValueError, match="invalid entry in coordinates array"):
        dlbridge.jit(lambda i: np.ravel_multi_index((i, i), (2, 3)))(np.array([0, 2]))


def test_where_as_a_list_or_a_numpy_array_broadcasts() -> None:
    f = dlbridge.jit(lambda a: (np.sum(a, axis=1, where=[True, False, True]),
                                np.mean(a, where=np.array([[True], [False]])), np.any(a, where=False)))
    x = np.arange(6.0).reshape(2, 3)
    compare(f(x), (np.sum(x, axis=1, where=[True, False, True]), np.mean(x, where=np.array([[True], [False]])),
                    np.any(x, where=False)), False)
