"""Issue 26's statistics and numerical functions on PyTorch CUDA tensors under ``@dlbridge.jit``:
the constructs of ``test_jit_statistics.py`` run on the GPU and compared with NumPy on the same
values. Each runs on every dtype class, contiguous, strided (PyTorch has no negative strides:
reversed inputs are CPU-only), empty and 0-d; results stay on the device. Skipped without
PyTorch or a CUDA device."""

from __future__ import annotations

import warnings

import dlbridge
import numpy as np
import pytest
from device_constructs import LAYOUTS, check_construct_on_cuda, compare, host, torch
from numpy_constructs import DTYPES
from test_jit_statistics import CONSTRUCTS, EMPTY_SHAPE, REFUSED

JITTED = {name: dlbridge.jit(fn) for name, fn in CONSTRUCTS.items()}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(CONSTRUCTS))
def test_construct_on_cuda_matches_numpy(name: str, dtype: str, layout: str) -> None:
    if layout == "empty" and name in EMPTY_SHAPE:
        pytest.skip("NumPy's result for an empty input has a shape that depends on the data's size")
    check_construct_on_cuda(JITTED[name], CONSTRUCTS[name], dtype, layout, refused=(name, dtype) in REFUSED)


ORDER_STATS = dlbridge.jit(lambda a: (np.median(a, axis=-1), np.nanmedian(a, axis=0),
                                      np.quantile(a, [0.1, 0.5, 0.77], axis=-1), np.nanpercentile(a, 40, axis=0)))


@pytest.mark.parametrize("shape", [(3, 4), (2, 7), (5, 1), (64, 1000)])
def test_order_statistics_of_every_size_on_the_device(shape: tuple[int, int]) -> None:
    """Odd and even slice lengths with NaNs, up to rows longer than a block."""
    x = np.random.default_rng(sum(shape)).integers(-3, 4, shape).astype(np.float64)
    x[0, 0] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = (np.median(x, axis=-1), np.nanmedian(x, axis=0), np.quantile(x, [0.1, 0.5, 0.77], axis=-1),
                np.nanpercentile(x, 40, axis=0))
        compare(host(ORDER_STATS(torch.from_numpy(x).cuda())), want, False)
