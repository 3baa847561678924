"""Array conversion and shape manipulation of issue 26 on PyTorch CUDA tensors under
``@dlbridge.jit``: the kernels of ``test_jit_shapes_surface.py`` run on the GPU and compared with
NumPy on the same values. Each construct runs on every dtype class, contiguous, strided (PyTorch has no negative
strides: reversed inputs are CPU-only), empty and 0-d; results stay on the device. Skipped
without PyTorch or a CUDA device."""

from __future__ import annotations

import warnings
from typing import Any

import dlbridge
import numpy as np
import pytest
from test_jit_numpy_surface import DTYPES, make
from test_jit_shapes_surface import CONSTRUCTS

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA device", allow_module_level=True)

LAYOUTS = ["C", "strided", "empty", "0-d"]
JITTED = {name: dlbridge.jit(fn) for name, fn in CONSTRUCTS.items()}


def _on_device(a: np.ndarray, layout: str) -> Any:
    if layout == "strided":
        base = torch.from_numpy(np.repeat(np.repeat(a, 2, axis=0), 2, axis=1)).cuda()
        return base[::2, ::2]
    return torch.from_numpy(np.array(a, order="C")).cuda()  # 0-d stays 0-d


def _host(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_host(v) for v in value)
    assert isinstance(value, torch.Tensor) and value.device.type == "cuda", type(value)
    return value.cpu().numpy()


def _compare(got: Any, want: Any, single: bool) -> None:
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _compare(g, w, single)
        return
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    if want.dtype.kind in "fc":
        rtol = 1e-5 if single or want.dtype in (np.float32, np.complex64) else 1e-10
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(CONSTRUCTS))
def test_construct_on_cuda_matches_numpy(name: str, dtype: str, layout: str) -> None:
    if layout == "0-d" and dtype != "float64":
        pytest.skip("0-d inputs: float64 (each dtype compiles a kernel per rank)")
    a = make(dtype, "C" if layout == "strided" else layout)
    x = _on_device(a, layout)
    before = x.clone()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = CONSTRUCTS[name](a.copy())
        except Exception as error:
            with pytest.raises((type(error), dlbridge.TraceError)):
                JITTED[name](x)
            return
        got = _host(JITTED[name](x))
    _compare(got, want, dtype == "float32")
    assert torch.equal(x, before)


def test_asarray_of_a_device_tensor_aliases_it_and_array_copies_it() -> None:
    """Writes through ``np.asarray`` reach the CUDA argument; ``np.array`` copies."""
    def f(a: Any) -> Any:
        np.asarray(a)[0, 0] = 10.0
        np.array(a)[0, 1] = 20.0
        return a * 1

    x = torch.zeros((2, 3), dtype=torch.float64).cuda()
    got = _host(dlbridge.jit(f)(x))
    want = np.zeros((2, 3))
    want[0, 0] = 10.0
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
def test_pad_of_several_periods_on_the_device(mode: str) -> None:
    a = np.arange(15.0).reshape(3, 5)
    fn = dlbridge.jit(lambda v: np.pad(v, ((7, 2), (0, 11)), mode=mode))
    np.testing.assert_array_equal(_host(fn(torch.from_numpy(a).cuda())), np.pad(a, ((7, 2), (0, 11)), mode=mode))
