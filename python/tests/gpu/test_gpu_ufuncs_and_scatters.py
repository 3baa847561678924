"""NumPy's remaining ufuncs, gathers and scatters on PyTorch CUDA tensors under ``@dlbridge.jit``:
the kernels of ``test_jit_ufuncs_and_scatters.py`` run on the GPU and compared with NumPy on the
same values. Each construct runs on every dtype class, contiguous, strided (PyTorch has no negative
strides: reversed inputs are CPU-only), empty and 0-d; results stay on the device. Skipped
without PyTorch or a CUDA device."""

from __future__ import annotations

import warnings
from typing import Any

import dlbridge
import numpy as np
import pytest
from test_jit_numpy_surface import DTYPES, make
from test_jit_ufuncs_and_scatters import CONSTRUCTS, REFUSED

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
        if (name, dtype) in REFUSED:
            with pytest.raises(dlbridge.TraceError):
                JITTED[name](x)
            return
        got = _host(JITTED[name](x))
    _compare(got, want, dtype == "float32")
    assert torch.equal(x, before)


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
    got = _host(SORTS(torch.from_numpy(a).cuda()))
    np.testing.assert_array_equal(got[0], np.sort(a))
    np.testing.assert_array_equal(got[1], np.argsort(a, kind="stable"))


SORTS = dlbridge.jit(lambda v: (np.sort(v), np.argsort(v)))


def test_traced_indices_are_checked_on_the_device() -> None:
    """Out-of-range index arrays are NumPy's IndexError on CUDA too, the array untouched."""

    def f(a: Any, i: Any) -> Any:
        np.add.at(a, (0, i), 1.0)
        return np.take(a, i, axis=1)

    x = torch.arange(12.0, dtype=torch.float64).reshape(3, 4).cuda()
    ok = torch.tensor([0, -1, 3, 3]).cuda()
    want_a = x.cpu().numpy().copy()
    want = f(want_a, ok.cpu().numpy())
    got = _host(dlbridge.jit(f)(x, ok))
    _compare(got, want, False)
    _compare(x.cpu().numpy(), want_a, False)
    before = x.clone()
    with pytest.raises(IndexError, match="out of bounds"):
        dlbridge.jit(f)(x, torch.tensor([0, 4]).cuda())
    assert torch.equal(x, before)


def test_repeat_counts_from_the_device() -> None:
    """The result's length is the counts' sum, read back from the device."""
    f = dlbridge.jit(lambda a, r: np.repeat(a, r, axis=0))
    x = torch.arange(12.0, dtype=torch.float64).reshape(4, 3).cuda()
    for r in ([1, 0, 2, 3], [0, 0, 0, 0]):
        got = _host(f(x, torch.tensor(r).cuda()))
        _compare(got, np.repeat(x.cpu().numpy(), r, axis=0), False)
