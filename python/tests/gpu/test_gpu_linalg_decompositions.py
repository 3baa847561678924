"""``np.linalg.qr``, ``eigh``, ``eigvalsh``, ``svd``, ``lstsq``, ``pinv``, ``matrix_rank`` and
``slogdet`` under ``@dlbridge.jit`` on PyTorch CUDA tensors: the constructs of
``test_jit_linalg_decompositions.py`` run on the GPU (contiguous and strided inputs; PyTorch has
no negative strides) and checked against NumPy on the same values as on the CPU, results on the
device, inputs untouched. Skipped without PyTorch or a CUDA device."""

from __future__ import annotations

from typing import Any

import dlbridge
import numpy as np
import pytest
from device_constructs import torch
from test_jit_linalg_decompositions import CONSTRUCTS, SHAPES, SINGLE, arguments

JITTED = {name: dlbridge.jit(fn) for name, (fn, *_) in CONSTRUCTS.items()}


def on_device(a: np.ndarray, layout: str) -> Any:
    """``a`` as a CUDA tensor, a view with gaps between its elements for ``layout`` "strided"."""
    x = torch.from_numpy(np.ascontiguousarray(a)).cuda()
    if layout != "strided":
        return x
    big = torch.zeros((2 * a.shape[0], 3 * a.shape[1]) if a.ndim == 2 else (2 * a.shape[0],), dtype=x.dtype,
                      device="cuda")
    view = big[::2, ::3] if a.ndim == 2 else big[::2]
    view.copy_(x)
    return view


def to_host(value: Any) -> Any:
    """A result on the device (a CUDA tensor, or tuples and named tuples of them) as NumPy's."""
    if isinstance(value, tuple):
        parts = [to_host(v) for v in value]
        return type(value)(*parts) if hasattr(value, "_fields") else tuple(parts)
    assert isinstance(value, torch.Tensor) and value.device.type == "cuda", type(value)
    return value.cpu().numpy()


#: Each construct on float64, and the one calling every function on the other dtypes, as on the CPU.
CASES = [(name, "float64") for name in CONSTRUCTS] + [("every_function", "float32"), ("every_function", "int64")]


@pytest.mark.parametrize("layout", ["C", "strided"])
@pytest.mark.parametrize(("name", "dtype"), CASES)
def test_construct_on_cuda_matches_numpy(name: str, dtype: str, layout: str) -> None:
    fn, check, square, _ = CONSTRUCTS[name]
    SINGLE["input"] = dtype == "float32"
    try:
        for shape in [s for s in SHAPES if not square or s[0] == s[1]]:
            args = arguments(name, shape, dtype, "C")
            tensors = [on_device(a, layout) for a in args]
            got = to_host(JITTED[name](*tensors))
            for a, t in zip(args, tensors):
                np.testing.assert_array_equal(t.cpu().numpy(), a)
            check(got, fn(*args), args[0])
    finally:
        SINGLE["input"] = False


def test_sizes_checked_on_the_device() -> None:
    jitted = dlbridge.jit(lambda a: np.linalg.eigvalsh(a))
    with pytest.raises(ValueError, match="Last 2 dimensions of the array must be square"):
        jitted(torch.ones((3, 4), dtype=torch.float64, device="cuda"))
