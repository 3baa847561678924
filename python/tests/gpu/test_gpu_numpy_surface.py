"""The everyday NumPy functions of issue 26 on PyTorch CUDA tensors under ``@dlbridge.jit``: the
kernels of ``test_jit_numpy_surface.py`` run on the GPU and compared with NumPy on the same
values. Each construct runs on every dtype class, contiguous, strided (PyTorch has no negative
strides: reversed inputs are CPU-only), empty and 0-d; results stay on the device. Skipped
without PyTorch or a CUDA device."""

from __future__ import annotations

import dlbridge
import numpy as np
import pytest
from device_constructs import LAYOUTS, check_construct_on_cuda, host, torch
from numpy_constructs import DTYPES
from test_jit_numpy_surface import CONSTRUCTS, EMPTY_DTYPE, REFUSED

JITTED = {name: dlbridge.jit(fn) for name, fn in CONSTRUCTS.items()}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(CONSTRUCTS))
def test_construct_on_cuda_matches_numpy(name: str, dtype: str, layout: str) -> None:
    check_construct_on_cuda(JITTED[name], CONSTRUCTS[name], dtype, layout, refused=(name, dtype) in REFUSED,
                            dtype_from_kernel=(name, dtype, layout) in EMPTY_DTYPE)


def test_results_of_scalars_only_stay_numpy_on_the_host() -> None:
    """A function of no array computes on the CPU and returns NumPy arrays even on a GPU host."""
    got = dlbridge.jit(lambda n, s: np.arange(n) * s)(3, 2.0)
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, np.arange(3) * 2.0)


@pytest.mark.parametrize("n", [1, 2, 1000, 1 << 20])
def test_a_long_row_sorts_on_the_device(n: int) -> None:
    """Rows longer than a block, of every length class (one, a power of two, odd), with ties and
    NaNs: merge passes of a thread per element, stable."""
    rng = np.random.default_rng(n)
    a = rng.integers(-1000, 1000, n).astype(np.float32)
    a[rng.random(n) < 0.01] = np.nan
    got = host(SORTS(torch.from_numpy(a).cuda()))
    np.testing.assert_array_equal(got[0], np.sort(a))
    np.testing.assert_array_equal(got[1], np.argsort(a, kind="stable"))


SORTS = dlbridge.jit(lambda v: (np.sort(v), np.argsort(v)))
