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


def test_an_empty_selections_maximum_is_refused_on_cuda(torch: Any) -> None:
    """max/min over a selection check that it is not empty on the host, which CUDA kernels'
    data is not on: a compile error says so rather than a wrong number."""
    with pytest.raises(ValueError, match="host code"):
        dlbridge.jit(K.masked_stats)(_on_gpu(torch, np.ones(4)), _on_gpu(torch, np.ones(4, bool)))
