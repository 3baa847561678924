"""Reductions on an NVIDIA GPU under ``@dlbridge.jit``, against PyTorch on the same CUDA tensors.

The CUDA pipeline lowers reductions to kernels whose threads cooperate (a block per row, warp
shuffles, shared memory; two kernels for full reductions): these tests check the numbers on odd
sizes (1, 31, 33, 1000003 elements), rows of no elements, strided views, every dtype class and
every combiner the tracer emits. Skipped without PyTorch or a CUDA device."""

from __future__ import annotations

from typing import Any, Callable

import dlbridge
import numpy as np
import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA device", allow_module_level=True)

SHAPES = [(1, 1), (3, 31), (5, 33), (2, 1000003), (1000, 257), (4097, 3)]


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
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_row_sum(shape: tuple[int, int], dtype: Any) -> None:
    x = _data(shape, dtype)
    rtol = 1e-4 if dtype == torch.float32 else 1e-10
    _check(_run(lambda v: v.sum(axis=-1), x), x.sum(dim=-1), rtol, atol=rtol * shape[1] ** 0.5)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kind", ["max", "min"])
def test_row_max_min(shape: tuple[int, int], kind: str) -> None:
    x = _data(shape, torch.float32)
    if kind == "max":
        _check(_run(lambda v: v.max(axis=1), x), x.amax(dim=1), 0.0)
    else:
        _check(_run(lambda v: v.min(axis=1), x), x.amin(dim=1), 0.0)


def test_max_propagates_nan() -> None:
    x = _data((4, 1000), torch.float32)
    x[1, 517] = float("nan")
    x[3, 0] = float("nan")
    _check(_run(lambda v: v.max(axis=1), x), x.amax(dim=1), 0.0)
    _check(_run(lambda v: np.max(v), x), x.amax(), 0.0)


@pytest.mark.parametrize("n", [1, 31, 33, 1000003, 10**7])
def test_full_sum(n: int) -> None:
    x = _data((n,), torch.float32)
    want = x.double().sum().float()
    _check(_run(lambda v: v.sum(), x), want, 1e-4, atol=1e-3 * n**0.5)


@pytest.mark.parametrize("n", [1, 33, 1000003])
def test_full_max_min_prod(n: int) -> None:
    x = _data((n,), torch.float32)
    _check(_run(lambda v: np.max(v), x), x.amax(), 0.0)
    _check(_run(lambda v: np.min(v), x), x.amin(), 0.0)
    y = 1.0 + x[: min(n, 64)] * 1e-3
    _check(_run(lambda v: np.prod(v), y), torch.prod(y), 1e-5)


def test_full_sum_of_matrix_and_keepdims() -> None:
    x = _data((1001, 999), torch.float32)
    _check(_run(lambda v: v.sum(), x), x.double().sum().float(), 1e-4, atol=1e-2)
    _check(_run(lambda v: v.sum(keepdims=True), x), x.double().sum().float().reshape(1, 1),
           1e-4, atol=1e-2)


def test_empty_rows_give_the_initial_value() -> None:
    x = torch.empty((5, 0), device="cuda", dtype=torch.float32)
    _check(_run(lambda v: v.sum(axis=1), x), torch.zeros(5, device="cuda"), 0.0)
    _check(_run(lambda v: v.sum(), x), torch.zeros((), device="cuda"), 0.0)


@pytest.mark.parametrize("view", ["every-other-column", "transposed", "reversed", "row-slice"])
def test_strided_views(view: str) -> None:
    base = _data((300, 1001), torch.float32)
    x = {
        "every-other-column": base[:, ::2],
        "transposed": base.t(),
        "reversed": base.flip(1)[:, 3:],
        "row-slice": base[7:200:3],
    }[view]
    _check(_run(lambda v: v.sum(axis=-1), x), x.sum(dim=-1), 1e-4, atol=1e-4)
    _check(_run(lambda v: v.max(axis=-1), x), x.amax(dim=-1), 0.0)
    _check(_run(lambda v: v.sum(), x), x.double().sum().float(), 1e-4, atol=1e-2)


def test_middle_and_leading_axes() -> None:
    x = _data((7, 129, 33), torch.float32)
    _check(_run(lambda v: v.sum(axis=1), x), x.sum(dim=1), 1e-4, atol=1e-4)
    _check(_run(lambda v: v.max(axis=0), x), x.amax(dim=0), 0.0)
    _check(_run(lambda v: v.sum(axis=(1, 2)), x), x.sum(dim=(1, 2)), 1e-4, atol=1e-3)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.int8, torch.uint8])
def test_integer_sums_and_extremes(dtype: Any) -> None:
    g = torch.Generator(device="cuda").manual_seed(1)
    lo, hi = (0, 200) if dtype == torch.uint8 else (-100, 100)
    x = torch.randint(lo, hi, (33, 1000003 // 33), generator=g, device="cuda").to(dtype)

    def as_int64(sums: Any) -> Any:
        # NumPy sums unsigned integers in uint64, PyTorch in int64.
        if dtype == torch.uint8:
            assert sums.dtype == torch.uint64
            return sums.to(torch.int64)
        return sums

    _check(as_int64(_run(lambda v: v.sum(axis=1), x)), x.sum(dim=1), 0.0)
    _check(_run(lambda v: v.max(axis=1), x), x.amax(dim=1), 0.0)
    _check(_run(lambda v: v.min(), x), x.amin(), 0.0)
    _check(as_int64(_run(lambda v: v.sum(), x)), x.sum(), 0.0)


def test_bools() -> None:
    g = torch.Generator(device="cuda").manual_seed(2)
    x = torch.rand((65, 1031), generator=g, device="cuda") < 0.001
    _check(_run(lambda v: v.any(axis=1), x), x.any(dim=1), 0.0)
    _check(_run(lambda v: v.all(axis=1), ~x), (~x).all(dim=1), 0.0)
    _check(_run(lambda v: np.any(v), x), x.any(), 0.0)
    _check(_run(lambda v: np.all(v), x), x.all(), 0.0)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision(dtype: Any) -> None:
    x = _data((129, 4099), dtype)
    _check(_run(lambda v: v.max(axis=1), x), x.amax(dim=1), 0.0)
    _check(_run(lambda v: v.mean(axis=1), x), x.float().mean(dim=1).to(dtype), 1e-2, atol=1e-2)


def test_mean_var_and_softmax_rows() -> None:
    x = _data((513, 1000), torch.float32)

    def softmax(v: Any) -> Any:
        e = np.exp(v - v.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    _check(_run(lambda v: v.mean(axis=-1), x), x.mean(dim=-1), 1e-4, atol=1e-5)
    _check(_run(lambda v: v.var(axis=-1), x), x.var(dim=-1, correction=0), 1e-4, atol=1e-5)
    _check(_run(softmax, x), torch.softmax(x, dim=1), 1e-4, atol=1e-6)


# Softmax and layer norm: the CUDA pipeline runs each row reduction and the ops on the same rows in
# one kernel, a block per row (dlbridge-gpu-reductions-to-kernels, fuse-rows). Odd shapes, more
# rows than blocks (the grid-stride loop), strided views and float64 check that every member sees
# its own row's values.
ROW_SHAPES = [(1, 1), (3, 31), (5, 33), (1000, 257), (4097, 3), (64, 4096), (2, 100003),
              ((1 << 20) + 3, 2)]


def _softmax(v: Any) -> Any:
    e = np.exp(v - v.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _layer_norm(x: Any, g: Any, b: Any) -> Any:
    n = x.shape[-1]
    mean = x.sum(axis=-1, keepdims=True) / n
    d = x - mean
    var = (d * d).sum(axis=-1, keepdims=True) / n
    return d / np.sqrt(var + 1e-5) * g + b


@pytest.mark.parametrize("shape", ROW_SHAPES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_softmax_rows(shape: tuple[int, int], dtype: Any) -> None:
    x = _data(shape, dtype) * 4
    rtol = 1e-4 if dtype == torch.float32 else 1e-10
    _check(_run(_softmax, x), torch.softmax(x, dim=-1), rtol, atol=rtol * 1e-2)


@pytest.mark.parametrize("view", ["every-other-column", "transposed", "row-slice"])
def test_softmax_strided_views(view: str) -> None:
    base = _data((300, 1001), torch.float32) * 4
    x = {"every-other-column": base[:, ::2], "transposed": base.t(), "row-slice": base[7:200:3]}[view]
    _check(_run(_softmax, x), torch.softmax(x, dim=-1), 1e-4, atol=1e-6)


def test_softmax_nan_and_infinite_rows() -> None:
    x = _data((4, 1000), torch.float32)
    x[1, 517] = float("nan")
    x[2, 3] = float("inf")
    x[3, :] = float("-inf")
    e = torch.exp(x - x.amax(dim=-1, keepdim=True))
    _check(_run(_softmax, x), e / e.sum(dim=-1, keepdim=True), 1e-4, atol=1e-6)


@pytest.mark.parametrize("shape", ROW_SHAPES)
def test_layer_norm(shape: tuple[int, int]) -> None:
    x = _data(shape, torch.float32) * 3 + 1
    g = _data(shape[-1:], torch.float32, seed=1)
    b = _data(shape[-1:], torch.float32, seed=2)
    want = torch.nn.functional.layer_norm(x, shape[-1:], g, b, eps=1e-5)
    _check(_run(_layer_norm, x, g, b), want, 1e-4, atol=1e-4)


def test_centered_rows_and_row_statistics() -> None:
    x = _data((777, 1031), torch.float32)
    _check(_run(lambda v: v - v.mean(axis=-1, keepdims=True), x), x - x.mean(dim=-1, keepdim=True),
           1e-4, atol=1e-5)
    _check(_run(lambda v: v / np.abs(v).max(axis=-1, keepdims=True), x),
           x / x.abs().amax(dim=-1, keepdim=True), 1e-6)


# Compact rows load 16 bytes per thread where a row starts 16-byte aligned, element by element
# where it does not: odd widths make rows alternate, offsets into an allocation misalign all.
@pytest.mark.parametrize("columns", [1001, 1024, 7])
@pytest.mark.parametrize("offset", [0, 1, 3])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_contiguous_rows_at_any_alignment(columns: int, offset: int, dtype: Any) -> None:
    rows = 333
    x = _data((rows * columns + 8,), dtype)[offset: offset + rows * columns].view(rows, columns)
    assert x.is_contiguous()
    rtol = 1e-4 if dtype == torch.float32 else 1e-2
    _check(_run(lambda v: v.sum(axis=-1), x), x.sum(dim=-1), rtol, atol=rtol * columns ** 0.5)
    _check(_run(lambda v: v.max(axis=-1), x), x.amax(dim=-1), 0.0)
    if dtype == torch.float32:
        _check(_run(_softmax, x), torch.softmax(x, dim=-1), 1e-4, atol=1e-6)


def test_row_buffer_shared_between_members() -> None:
    # `e` is a result, so the kernel writes it whole and the sum reads it back: the threads that
    # read a row's elements (vector loop) are not those that wrote them, and must wait for them.
    x = _data((2048, 4100), torch.float32)

    def exp_and_total(v: Any) -> Any:
        e = np.exp(v)
        return e, e.sum(axis=-1)

    e, s = _run_all(exp_and_total, x)
    _check(e, torch.exp(x), 1e-6)
    _check(s, torch.exp(x).sum(dim=-1), 1e-4, atol=1e-2)


def _run_all(fn: Callable[..., Any], *args: Any) -> tuple[Any, ...]:
    return tuple(out if isinstance(out, torch.Tensor) else torch.from_dlpack(out)
                 for out in dlbridge.jit(fn)(*args))


# Rows several members read are copied into shared memory once where they fit (96 KiB per block:
# 24576 floats), read from device memory by every member where they do not: the widths either
# side of that limit, rows of two such inputs, half precision and the usual row kernels.
@pytest.mark.parametrize("columns", [24575, 24576, 24577, 50000])
def test_cached_rows_either_side_of_the_limit(columns: int) -> None:
    x = _data((40, columns), torch.float32) * 4
    _check(_run(_softmax, x), torch.softmax(x, dim=-1), 1e-4, atol=1e-7)
    x16 = x.to(torch.float16)
    _check(_run(_softmax, x16), torch.softmax(x16.float(), dim=-1).half(), 2e-2, atol=1e-4)


def test_two_inputs_cached_together() -> None:
    x = _data((300, 3000), torch.float32)
    y = _data((300, 3000), torch.float32, seed=5)

    def normalised_difference(a: Any, b: Any) -> Any:
        d2 = ((a - b) ** 2).sum(axis=-1, keepdims=True)
        return (a - b) / np.sqrt(d2) + a * b

    d = x - y
    want = d / torch.sqrt((d * d).sum(dim=-1, keepdim=True)) + x * y
    _check(_run(normalised_difference, x, y), want, 1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_cached_row_kernels(dtype: Any) -> None:
    x = _data((513, 4099), dtype) * 2
    g = _data((4099,), dtype, seed=3)
    rtol, atol = (1e-4, 1e-5) if dtype == torch.float32 else (3e-2, 3e-2)

    def log_softmax(v: Any) -> Any:
        s = v - v.max(axis=-1, keepdims=True)
        return s - np.log(np.exp(s).sum(axis=-1, keepdims=True))

    def rms_norm(v: Any, w: Any) -> Any:
        return v / np.sqrt((v * v).mean(axis=-1, keepdims=True) + 1e-6) * w

    xf = x.float()
    _check(_run(log_softmax, x), torch.log_softmax(xf, dim=-1).to(dtype), rtol, atol)
    want = (xf / torch.sqrt((xf * xf).mean(dim=-1, keepdim=True) + 1e-6) * g.float()).to(dtype)
    _check(_run(rms_norm, x, g), want, rtol, atol)


# Rows of at most 512 elements get a warp each, eight per block; longer ones a block each.
@pytest.mark.parametrize("columns", [1, 5, 64, 511, 512, 513])
def test_short_rows_a_warp_each(columns: int) -> None:
    x = _data((4099, columns), torch.float32) * 4
    g = _data((columns,), torch.float32, seed=1)
    b = _data((columns,), torch.float32, seed=2)
    _check(_run(_softmax, x), torch.softmax(x, dim=-1), 1e-4, atol=1e-7)
    _check(_run(lambda v: v.sum(axis=-1), x), x.sum(dim=-1), 1e-4, atol=1e-4)
    want = torch.nn.functional.layer_norm(x, (columns,), g, b, eps=1e-5)
    _check(_run(_layer_norm, x, g, b), want, 1e-4, atol=1e-3)


def test_short_row_buffer_shared_between_lanes() -> None:
    # As test_row_buffer_shared_between_members, with a warp per row: its lanes wait for each
    # other (a warp barrier) before the sum reads what other lanes wrote.
    x = _data((3001, 101), torch.float32)

    def exp_and_total(v: Any) -> Any:
        e = np.exp(v)
        return e, e.sum(axis=-1)

    e, s = _run_all(exp_and_total, x)
    _check(e, torch.exp(x), 1e-6)
    _check(s, torch.exp(x).sum(dim=-1), 1e-4, atol=1e-3)
