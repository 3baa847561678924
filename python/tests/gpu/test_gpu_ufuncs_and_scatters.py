"""NumPy's remaining ufuncs, gathers and scatters on PyTorch CUDA tensors under ``@dlbridge.jit``:
the kernels of ``test_jit_ufuncs_and_scatters.py`` run on the GPU and compared with NumPy on the
same values. Each construct runs on every dtype class, contiguous, strided (PyTorch has no negative
strides: reversed inputs are CPU-only), empty and 0-d; results stay on the device. Skipped
without PyTorch or a CUDA device."""

from __future__ import annotations

from typing import Any

import dlbridge
import numpy as np
import pytest
from device_constructs import LAYOUTS, check_construct_on_cuda, compare, host, torch
from numpy_constructs import DTYPES
from test_jit_ufuncs_and_scatters import CONSTRUCTS, REFUSED

JITTED = {name: dlbridge.jit(fn) for name, fn in CONSTRUCTS.items()}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(CONSTRUCTS))
def test_construct_on_cuda_matches_numpy(name: str, dtype: str, layout: str) -> None:
    check_construct_on_cuda(JITTED[name], CONSTRUCTS[name], dtype, layout, refused=(name, dtype) in REFUSED)


def test_traced_indices_are_checked_on_the_device() -> None:
    """Out-of-range index arrays are NumPy's IndexError on CUDA too, the array untouched."""

    def f(a: Any, i: Any) -> Any:
        np.add.at(a, (0, i), 1.0)
        return np.take(a, i, axis=1)

    x = torch.arange(12.0, dtype=torch.float64).reshape(3, 4).cuda()
    ok = torch.tensor([0, -1, 3, 3]).cuda()
    want_a = x.cpu().numpy().copy()
    want = f(want_a, ok.cpu().numpy())
    got = host(dlbridge.jit(f)(x, ok))
    compare(got, want, False)
    compare(x.cpu().numpy(), want_a, False)
    before = x.clone()
    with pytest.raises(IndexError, match="out of bounds"):
        dlbridge.jit(f)(x, torch.tensor([0, 4]).cuda())
    assert torch.equal(x, before)


def test_repeat_counts_from_the_device() -> None:
    """The result's length is the counts' sum, read back from the device."""
    f = dlbridge.jit(lambda a, r: np.repeat(a, r, axis=0))
    x = torch.arange(12.0, dtype=torch.float64).reshape(4, 3).cuda()
    for r in ([1, 0, 2, 3], [0, 0, 0, 0]):
        got = host(f(x, torch.tensor(r).cuda()))
        compare(got, np.repeat(x.cpu().numpy(), r, axis=0), False)
