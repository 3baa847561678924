"""Scans (``cumsum``/``cumprod``) on an NVIDIA GPU under ``@dlbridge.jit``, against
``torch.cumsum``/``torch.cumprod`` on the same CUDA tensors.

Along the last axis a scan is a kernel of a block per row (warp shuffles, warp totals through
shared memory, the running value carried from chunk to chunk); along other axes a thread per
column walks down. These tests check the numbers on odd sizes (rows of 1, 31, 33, 513 and
1000003 elements, more rows than a grid), empty rows, strided views, every dtype class and both
combiners, and that a scan runs the same way twice. Skipped without PyTorch or a CUDA device."""

from __future__ import annotations

from typing import Any, Callable

import dlbridge
import numpy as np
import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA device", allow_module_level=True)

SHAPES = [(1, 1), (3, 31), (5, 33), (7, 513), (2, 1000003), (1000, 257), (4097, 3), (0, 5), (5, 0)]


def _run(fn: Callable[..., Any], *args: Any) -> Any:
    out = dlbridge.jit(fn)(*args)
    return out if isinstance(out, torch.Tensor) else torch.from_dlpack(out)


def _check(got: Any, want: Any, rtol: float, atol: float = 0.0) -> None:
    assert got.device.type == "cuda"
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    torch.testing.assert_close(got.cpu().double(), want.cpu().double(), rtol=rtol, atol=atol,
                               equal_nan=True)


def _data(shape: tuple[int, ...], dtype: Any, seed: int = 0) -> Any:
    g = torch.Generator(device="cuda").manual_seed(seed)
    return torch.randn(shape, generator=g, device="cuda", dtype=torch.float32).to(dtype)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_cumsum_float32(shape: tuple[int, int], axis: int) -> None:
    x = _data(shape, torch.float32)
    n = max(shape[axis], 1)
    _check(_run(lambda v: np.cumsum(v, axis=axis), x), torch.cumsum(x, dim=axis),
           rtol=1e-4, atol=1e-5 * n ** 0.5)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.int8, torch.bool])
@pytest.mark.parametrize("axis", [0, -1])
def test_cumsum_integers_are_exact(dtype: Any, axis: int) -> None:
    g = torch.Generator(device="cuda").manual_seed(1)
    x = torch.randint(0, 3, (37, 2049), generator=g, device="cuda").to(dtype)
    got = _run(lambda v: np.cumsum(v, axis=axis), x)
    assert got.dtype == torch.int64  # NumPy promotes small integers and bools to int64
    assert torch.equal(got, torch.cumsum(x.long(), dim=axis))


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16])
def test_cumsum_other_floats(dtype: Any) -> None:
    x = _data((9, 3000), dtype)
    rtol = 1e-10 if dtype == torch.float64 else 2e-2
    _check(_run(lambda v: np.cumsum(v, axis=-1), x), torch.cumsum(x, dim=-1), rtol=rtol, atol=rtol * 50)


@pytest.mark.parametrize("axis", [0, -1])
def test_cumprod(axis: int) -> None:
    x = 1.0 + 0.01 * _data((33, 700), torch.float32)
    _check(_run(lambda v: np.cumprod(v, axis=axis), x), torch.cumprod(x, dim=axis), rtol=1e-4)
    i = torch.full((5, 70), 3, device="cuda", dtype=torch.int64)
    assert torch.equal(_run(lambda v: v.cumprod(axis=axis), i), torch.cumprod(i, dim=axis))


def test_flattened_and_middle_axes() -> None:
    x = _data((6, 50, 70), torch.float32)
    _check(_run(lambda v: np.cumsum(v), x), torch.cumsum(x.reshape(-1), dim=0), rtol=1e-3, atol=1e-2)
    _check(_run(lambda v: np.cumsum(v, axis=1), x), torch.cumsum(x, dim=1), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("view", ["transposed", "strided", "offset"])
@pytest.mark.parametrize("axis", [0, -1])
def test_strided_views(view: str, axis: int) -> None:
    base = _data((300, 400), torch.float32)
    x = {"transposed": base.t(), "strided": base[::3, ::2], "offset": base[5:, 7:]}[view]
    _check(_run(lambda v: np.cumsum(v, axis=axis), x), torch.cumsum(x, dim=axis), rtol=1e-4, atol=1e-4)


def test_same_result_every_run() -> None:
    x = _data((64, 100003), torch.float32)
    f = dlbridge.jit(lambda v: np.cumsum(v, axis=-1))
    first = torch.from_dlpack(f(x)).clone()
    for _ in range(3):
        assert torch.equal(torch.from_dlpack(f(x)), first)


def test_many_rows_and_signed_zeros() -> None:
    x = torch.zeros((1 << 21, 2), device="cuda").neg()
    got = _run(lambda v: np.cumsum(v, axis=-1), x)
    assert torch.equal(got, x) and bool(torch.signbit(got).all())
