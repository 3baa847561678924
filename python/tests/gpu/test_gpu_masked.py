"""``x[mask]`` selections on PyTorch CUDA tensors: the same kernels as test_jit_masked.py, run
by CUDA kernels, give NumPy's numbers."""

from __future__ import annotations

from typing import Any

import dlbridge
import masked_kernels as K
import numpy as np
import pytest

RNG = np.random.default_rng(11)


def _on_gpu(torch: Any, a: Any) -> Any:
    return torch.from_numpy(np.ascontiguousarray(a)).cuda()


def _host(value: Any) -> Any:
    return value.cpu().numpy() if hasattr(value, "cpu") else np.asarray(value)


def test_reductions_over_selections(torch: Any) -> None:
    data = RNG.normal(size=(64, 33))
    mask = data > 0
    got = dlbridge.jit(K.masked_count)(_on_gpu(torch, data), _on_gpu(torch, mask))
    for g, w in zip(got, K.masked_count(data, mask)):
        np.testing.assert_array_equal(_host(g), w)
    np.testing.assert_allclose(_host(dlbridge.jit(K.positive_mean)(_on_gpu(torch, data))),
                               K.positive_mean(data), rtol=1e-12)
    rows = data[:, 0] > 0
    for g, w in zip(dlbridge.jit(K.rows_where)(_on_gpu(torch, data), _on_gpu(torch, rows)),
                    K.rows_where(data, rows)):
        np.testing.assert_allclose(_host(g), w, rtol=1e-10)


def test_assignments_through_masks(torch: Any) -> None:
    x = np.linspace(-2, 3, 1001)
    got = dlbridge.jit(K.inverse_power)(_on_gpu(torch, x))
    np.testing.assert_allclose(_host(got), K.inverse_power(x.copy()), rtol=1e-12)
    c = np.linspace(-2.2, 1.0, 200)[None, :] + 1j * np.linspace(-1.2, 1.2, 100)[:, None]
    np.testing.assert_array_equal(_host(dlbridge.jit(K.mandelbrot)(_on_gpu(torch, c), 40)),
                                  K.mandelbrot(c, 40))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_statistics_of_selections_and_the_emptiness_check(torch: Any, dtype: Any) -> None:
    """max/min over a selection check on the host that it is not empty: the count comes back
    from the device, and an empty selection is NumPy's error rather than a wrong number."""
    data = RNG.normal(size=(40, 9)).astype(dtype)
    mask = data > 0.3
    got = dlbridge.jit(K.masked_stats)(_on_gpu(torch, data), _on_gpu(torch, mask))
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    for g, w in zip(got, K.masked_stats(data, mask)):
        np.testing.assert_allclose(_host(g), w, rtol=rtol)
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        dlbridge.jit(K.masked_stats)(_on_gpu(torch, data), _on_gpu(torch, np.zeros(data.shape, bool)))


def test_selections_as_arrays(torch: Any) -> None:
    """``x[mask]`` used as an array: its size is the count the device computed."""
    data = RNG.normal(size=(64, 33))
    for mask in (data > 0, np.zeros(data.shape, bool), np.ones(data.shape, bool)):
        got = dlbridge.jit(lambda x, m: x[m] * 2.0)(_on_gpu(torch, data), _on_gpu(torch, mask))
        np.testing.assert_array_equal(_host(got), data[mask] * 2.0)
    strided = _on_gpu(torch, data)[::2, 1::3]
    view = data[::2, 1::3]
    np.testing.assert_array_equal(_host(dlbridge.jit(lambda x: x[x > 0])(strided)), view[view > 0])


def test_masks_on_other_axes(torch: Any) -> None:
    """``x[:, mask]`` read and assigned on the device: the selected count comes back to size it."""
    data = RNG.normal(size=(40, 9))
    got = dlbridge.jit(K.columns_where)(_on_gpu(torch, data))
    for g, w in zip(got, K.columns_where(data)):
        np.testing.assert_allclose(_host(g), w, rtol=1e-12)
    np.testing.assert_allclose(_host(dlbridge.jit(K.zero_columns)(_on_gpu(torch, data))), K.zero_columns(data),
                               rtol=1e-12)
