"""Scatters and writes through views on PyTorch CUDA tensors under ``@dlbridge.jit``: the kernels
of ``test_jit_scatters_and_views.py`` run on the GPU and compared with NumPy on the same values.
Each construct runs on every dtype class, contiguous, strided (PyTorch has no negative strides:
reversed inputs are CPU-only), empty and 0-d; results stay on the device; then writes through
views into the argument tensor itself. Skipped without PyTorch or a CUDA device."""

from __future__ import annotations

from typing import Any, Callable

import dlbridge
import numpy as np
import pytest
from device_constructs import LAYOUTS, check_construct_on_cuda, compare, host, on_device, torch
from numpy_constructs import DTYPES, make
from test_jit_scatters_and_views import ARG_WRITES, CONSTRUCTS, REFUSED

JITTED = {name: dlbridge.jit(fn) for name, fn in CONSTRUCTS.items()}
ARG_JITTED = {f.__name__: dlbridge.jit(f) for f in ARG_WRITES}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [d for d in DTYPES if d != "float32"])
@pytest.mark.parametrize("name", list(CONSTRUCTS))
def test_construct_on_cuda_matches_numpy(name: str, dtype: str, layout: str) -> None:
    check_construct_on_cuda(JITTED[name], CONSTRUCTS[name], dtype, layout, refused=(name, dtype) in REFUSED)


@pytest.mark.parametrize("layout", ["C", "strided"])
@pytest.mark.parametrize("fn", ARG_WRITES, ids=lambda f: f.__name__)
def test_writes_through_views_of_a_device_tensor_update_it(fn: Callable[[Any], Any], layout: str) -> None:
    a = make("float64", "C")
    want = a.copy()
    fn(want)
    x = on_device(a, layout)
    ARG_JITTED[fn.__name__](x)
    compare(x.cpu().numpy(), want, False)


def test_scatter_indices_out_of_range_on_the_device() -> None:
    """``np.put`` out of range is NumPy's IndexError on CUDA too, the tensor untouched."""

    def f(a: Any, i: Any) -> Any:
        np.put(a, i, 1.0)
        np.add.at(a, i, 1.0)
        return a + 0

    x = torch.zeros(2, 3, dtype=torch.float64).cuda()
    before = x.clone()
    with pytest.raises(IndexError, match="out of bounds"):
        dlbridge.jit(f)(x, torch.tensor([0, 6]).cuda())
    assert torch.equal(x, before)
    want = np.zeros((2, 3))
    f(want, np.array([-6, 5, 5]))
    compare(host(dlbridge.jit(f)(x, torch.tensor([-6, 5, 5]).cuda())), want, False)
