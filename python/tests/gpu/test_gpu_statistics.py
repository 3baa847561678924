"""Issue 26's statistics and numerical functions on PyTorch CUDA tensors under ``@dlbridge.jit``:
the constructs of ``test_jit_statistics.py`` run on the GPU and compared with NumPy on the same
values. Each runs on every dtype class, contiguous, strided (PyTorch has no negative strides:
reversed inputs are CPU-only), empty and 0-d; results stay on the device. Skipped without
PyTorch or a CUDA device."""

from __future__ import annotations

import warnings
from typing import Any

import dlbridge
import numpy as np
import pytest
from test_jit_numpy_surface import DTYPES, make
from test_jit_statistics import CONSTRUCTS, EMPTY_SHAPE, REFUSED

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
    if layout == "empty" and name in EMPTY_SHAPE:
        pytest.skip("NumPy's result for an empty input has a shape that depends on the data's size")
    a = make(dtype, "C" if layout == "strided" else layout)
    x = _on_device(a, layout)
    before = x.clone()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = CONSTRUCTS[name](a.copy())
        except Exception as error:
            linalg = (ValueError,) if isinstance(error, np.linalg.LinAlgError) else ()
            with pytest.raises((type(error), dlbridge.TraceError, *linalg)):
                JITTED[name](x)
            return
        if (name, dtype) in REFUSED:
            with pytest.raises(dlbridge.TraceError):
                JITTED[name](x)
            return
        got = _host(JITTED[name](x))
    _compare(got, want, dtype == "float32")
    assert torch.equal(x, before)


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
        _compare(_host(ORDER_STATS(torch.from_numpy(x).cuda())), want, False)
