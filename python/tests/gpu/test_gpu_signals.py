"""``np.angle``, ``np.unwrap``, ``np.sinc`` and the window functions on PyTorch CUDA tensors under
``@dlbridge.jit``: the kernels of ``test_jit_signals.py`` run on the GPU and compared with NumPy
on the same values. Skipped without PyTorch or a CUDA device."""

from __future__ import annotations

import dlbridge
import pytest
from device_constructs import LAYOUTS, check_construct_on_cuda
from numpy_constructs import DTYPES
from test_jit_signals import CONSTRUCTS

JITTED = {name: dlbridge.jit(fn) for name, fn in CONSTRUCTS.items()}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(CONSTRUCTS))
def test_construct_on_cuda_matches_numpy(name: str, dtype: str, layout: str) -> None:
    check_construct_on_cuda(JITTED[name], CONSTRUCTS[name], dtype, layout)
