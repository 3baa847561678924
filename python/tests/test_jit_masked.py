"""``x[mask]`` with a traced boolean mask: arithmetic on selections by the same mask,
reductions over them and assignments through the mask give NumPy's numbers without building
the selection; used as an array, the selection is gathered at the positions the mask selects."""

from __future__ import annotations

from typing import Any

import dlbridge
import masked_kernels as K
import numpy as np
import pytest

RNG = np.random.default_rng(7)
DTYPES = [np.float32, np.float64, np.int32, np.int64]


def _data(dtype: Any, shape: tuple[int, ...] = (6, 5)) -> Any:
    values = RNG.normal(scale=3.0, size=shape)
    return values.astype(dtype) if np.dtype(dtype).kind == "f" else np.round(values).astype(dtype)


def _layouts(a: Any) -> list[Any]:
    """``a`` contiguous, reversed, and as a strided view of a larger array."""
    wide = np.zeros((a.shape[0], 2 * a.shape[1]), a.dtype)
    wide[:, ::2] = a
    return [a, a[::-1, ::-1].copy()[::-1, ::-1], wide[:, ::2]]


def _close(got: Any, want: Any, dtype: Any) -> None:
    rtol = 1e-5 if np.dtype(dtype) == np.float32 else 1e-12
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol)
        assert np.asarray(g).dtype == np.asarray(w).dtype


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_reductions_over_a_selection(dtype: Any) -> None:
    stats, count, mean = dlbridge.jit(K.masked_stats), dlbridge.jit(K.masked_count), dlbridge.jit(K.positive_mean)
    for data in _layouts(_data(dtype)):
        mask = data > 0
        _close(stats(data, mask), K.masked_stats(data, mask), dtype)
        _close(count(data, mask), K.masked_count(data, mask), dtype)
        _close(mean(data), K.positive_mean(data), dtype)


def test_masks_over_leading_dims() -> None:
    data = _data(np.float64, (7, 4))
    rows = data[:, 0] > 0
    _close(dlbridge.jit(K.rows_where)(data, rows), K.rows_where(data, rows), np.float64)


def test_empty_selections() -> None:
    data = _data(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"), pytest.warns(RuntimeWarning):
        want = K.positive_mean(-np.abs(data) - 1)
    assert np.isnan(want) and np.isnan(dlbridge.jit(K.positive_mean)(-np.abs(data) - 1))
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        dlbridge.jit(K.masked_stats)(data, data > 100)
    assert dlbridge.jit(lambda x: x[x > 0].sum())(np.zeros((0, 3))) == 0.0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_assignment_through_the_same_mask(dtype: Any) -> None:
    x = np.linspace(-2, 3, 11).astype(dtype)
    got = dlbridge.jit(K.inverse_power)(x.copy())
    _close(got, K.inverse_power(x.copy()), dtype)
    y = np.linspace(0, 4, 11).astype(dtype)
    _close(dlbridge.jit(K.clipped_update)(x.copy(), y), K.clipped_update(x.copy(), y), dtype)


def test_mandelbrot_updates_only_the_points_inside() -> None:
    c = (np.linspace(-2.2, 1.0, 24)[None, :] + 1j * np.linspace(-1.2, 1.2, 9)[:, None]).astype(np.complex128)
    np.testing.assert_array_equal(dlbridge.jit(K.mandelbrot)(c, 30), K.mandelbrot(c, 30))


def test_selections_by_different_but_equal_masks_combine() -> None:
    def both(x: Any, y: Any) -> Any:
        return (x[x > 0] * y[x > 0]).sum()

    x, y = _data(np.float64), _data(np.float64)
    _close(dlbridge.jit(both)(x, y), both(x, y), np.float64)


def test_selections_by_unequal_masks_are_refused_when_called() -> None:
    def swap(x: Any, y: Any) -> Any:
        x[x > 0] = y[y > 0]
        return x

    with pytest.raises(ValueError, match="selections by different masks"):
        dlbridge.jit(swap)(np.arange(-2.0, 3.0), np.arange(3.0, -2.0, -1.0))


def test_a_mask_of_another_shape_is_an_index_error() -> None:
    with pytest.raises(IndexError, match="boolean index did not match indexed array along axis 0"):
        dlbridge.jit(lambda x, m: x[m].sum())(np.ones(4), np.ones(3, bool))
    with pytest.raises(IndexError, match="along axis 0; size of axis is 4"):
        dlbridge.jit(lambda x: x[np.ones(3, bool) > 0].sum())(np.ones(4))


@pytest.mark.parametrize("use", [
    lambda x: x[x > 0],
    lambda x: x[x > 0].reshape(-1, 1) * 2,
    lambda x: x[x > 0] + x[x > 0][::-1],
    lambda x: x[x > 0][1:],
    lambda x: np.concatenate([x[x > 0], x[x < 0]]),
], ids=["returned", "reshaped", "with_array", "indexed", "concatenated"])
def test_selections_used_as_arrays_are_gathered(use: Any) -> None:
    for x in (np.arange(-2.0, 5.0), np.arange(-2.0, 5.0)[::-2], np.zeros(0)):
        np.testing.assert_array_equal(dlbridge.jit(use)(x), use(x))


def test_the_length_of_a_selection_is_not_a_python_int() -> None:
    with pytest.raises(dlbridge.TraceError, match=r"len\(x\[mask\]\)"):
        dlbridge.jit(lambda x: len(x[x > 0]))(np.arange(-2.0, 3.0))


def test_inputs_that_are_only_read_stay_untouched() -> None:
    data = _data(np.float64)
    before = data.copy()
    dlbridge.jit(K.masked_stats)(data, data > 0)
    np.testing.assert_array_equal(data, before)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_masks_on_other_axes_select_and_assign(dtype: Any) -> None:
    """``x[:, mask]`` (NumPy: the mask is the indices it selects): a size known when the call
    runs, read and assigned through, one kernel for every mask."""
    reads, writes = dlbridge.jit(K.columns_where), dlbridge.jit(K.zero_columns)
    for data in _layouts(_data(dtype)) + [_data(dtype, (3, 0))]:
        _close(reads(data), K.columns_where(data), dtype)
        before = data.copy()
        _close(writes(data), K.zero_columns(data), dtype)
        np.testing.assert_array_equal(data, before)
    assert reads.num_specialisations <= 3  # C order, strided, and the size-0 layouts


def test_a_mask_on_another_axis_of_another_length_is_an_index_error() -> None:
    with pytest.raises(IndexError, match="boolean index did not match indexed array along axis 1"):
        dlbridge.jit(lambda a, m: a[:, m])(np.ones((2, 4)), np.ones(3, bool))
