"""The constructs of the CPU tables (numpy_constructs.py) on PyTorch CUDA tensors: inputs on the
device (PyTorch has no negative strides: reversed inputs are CPU-only), results read back, and
the check each construct gets per dtype and layout. Importing it skips the module that does
without PyTorch or a CUDA device."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import dlbridge
import numpy as np
import numpy_constructs
import pytest
from numpy_constructs import make, refusals

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA device", allow_module_level=True)

LAYOUTS = ["C", "strided", "empty", "0-d"]


def on_device(a: np.ndarray, layout: str) -> Any:
    """``a`` as a CUDA tensor, a strided view for ``layout`` "strided"."""
    if layout == "strided":
        base = torch.from_numpy(np.repeat(np.repeat(a, 2, axis=0), 2, axis=1)).cuda()
        return base[::2, ::2]
    return torch.from_numpy(np.array(a, order="C")).cuda()  # 0-d stays 0-d


def host(value: Any) -> Any:
    """A result (or tuple of them), which must be a CUDA tensor, as NumPy arrays."""
    if isinstance(value, tuple):
        return tuple(host(v) for v in value)
    assert isinstance(value, torch.Tensor) and value.device.type == "cuda", type(value)
    return value.cpu().numpy()


def compare(got: Any, want: Any, single: bool) -> None:
    """numpy_constructs.compare, to the GPU's math: 1e-10 for double precision."""
    numpy_constructs.compare(got, want, single, double_rtol=1e-10)


def check_construct_on_cuda(jitted: Any, fn: Callable[[Any], Any], dtype: str, layout: str, *,
                            refused: bool = False, dtype_from_kernel: bool = False) -> None:
    """``jitted``, ``fn`` under ``@jit``, gives on a CUDA tensor NumPy's answer (on the device)
    or error for the same values, and leaves the tensor untouched; see
    numpy_constructs.check_construct."""
    if layout == "0-d" and dtype != "float64":
        pytest.skip("0-d inputs: float64 (each dtype compiles a kernel per rank)")
    a = make(dtype, "C" if layout == "strided" else layout)
    x = on_device(a, layout)
    before = x.clone()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = fn(a.copy())
        except Exception as error:
            with pytest.raises(refusals(error)):
                jitted(x)
            return
        if refused:
            with pytest.raises(dlbridge.TraceError):
                jitted(x)
            return
        got = host(jitted(x))
    if dtype_from_kernel:
        want = tuple(w.astype(g.dtype) for g, w in zip(got, want))
    compare(got, want, dtype == "float32")
    assert torch.equal(x, before)
