"""Array conversion and shape manipulation of issue 26 on PyTorch CUDA tensors under
``@dlbridge.jit``: the kernels of ``test_jit_shapes_surface.py`` run on the GPU and compared with
NumPy on the same values. Each construct runs on every dtype class, contiguous, strided (PyTorch has no negative
strides: reversed inputs are CPU-only), empty and 0-d; results stay on the device. Skipped
without PyTorch or a CUDA device."""

from __future__ import annotations

from typing import Any

import dlbridge
import numpy as np
import pytest
from device_constructs import LAYOUTS, check_construct_on_cuda, host, torch
from numpy_constructs import DTYPES
from test_jit_shapes_surface import CONSTRUCTS

JITTED = {name: dlbridge.jit(fn) for name, fn in CONSTRUCTS.items()}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(CONSTRUCTS))
def test_construct_on_cuda_matches_numpy(name: str, dtype: str, layout: str) -> None:
    check_construct_on_cuda(JITTED[name], CONSTRUCTS[name], dtype, layout)


def test_asarray_of_a_device_tensor_aliases_it_and_array_copies_it() -> None:
    """Writes through ``np.asarray`` reach the CUDA argument; ``np.array`` copies."""
    def f(a: Any) -> Any:
        np.asarray(a)[0, 0] = 10.0
        np.array(a)[0, 1] = 20.0
        return a * 1

    x = torch.zeros((2, 3), dtype=torch.float64).cuda()
    got = host(dlbridge.jit(f)(x))
    want = np.zeros((2, 3))
    want[0, 0] = 10.0
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
def test_pad_of_several_periods_on_the_device(mode: str) -> None:
    a = np.arange(15.0).reshape(3, 5)
    fn = dlbridge.jit(lambda v: np.pad(v, ((7, 2), (0, 11)), mode=mode))
    np.testing.assert_array_equal(host(fn(torch.from_numpy(a).cuda())), np.pad(a, ((7, 2), (0, 11)), mode=mode))
