"""Column and middle-axis reductions on an NVIDIA GPU, against NumPy.

``x.sum(axis=0)`` and reductions over a middle axis run as tiles of adjacent columns (16-byte
loads over contiguous, aligned buffers, element loads otherwise), with the reduced axis split
over blocks and a second kernel when the tiles are few. These tests check the numbers for
every combiner the tracer emits and every dtype class, on odd sizes, size-1 and empty
dimensions, unaligned and strided views, dynamic shapes (``@jit``) and static ones (hand-written
MLIR); that results are the same from run to run; and that inputs are left untouched.
Skipped without PyTorch or a CUDA device."""

from __future__ import annotations

from typing import Any, Callable

import dlbridge
import numpy as np
import pytest
from column_reduction_kernels import reduce_into, reduce_tensor

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA device", allow_module_level=True)

SHAPES_2D = [(997, 13), (1, 1000), (1000, 1), (4097, 3), (33, 1025), (3, 16384), (2048, 4096), (0, 5), (5, 0)]
SHAPES_3D = [(7, 129, 33), (1, 5000, 16), (64, 3, 4096), (256, 64, 1024), (3, 0, 5), (2, 9, 1), (0, 4, 4)]

OPS: dict[str, Callable[[Any, int], Any]] = {
    "sum": lambda v, axis: v.sum(axis=axis),
    "max": lambda v, axis: v.max(axis=axis),
    "min": lambda v, axis: v.min(axis=axis),
    "prod": lambda v, axis: v.prod(axis=axis),
    "mean": lambda v, axis: v.mean(axis=axis),
}

TORCH_DTYPES = {
    np.float32: torch.float32, np.float64: torch.float64, np.float16: torch.float16,
    np.int8: torch.int8, np.uint8: torch.uint8, np.int32: torch.int32, np.int64: torch.int64,
    np.bool_: torch.bool,
}


def _values(shape: tuple[int, ...], dtype: Any, op: str, seed: int = 0) -> np.ndarray:
    """Data for ``op``: near 1 for products (so they neither overflow nor vanish), small
    integers for integer types, normal floats otherwise."""
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "b":
        return rng.random(shape) < 0.7
    if np.dtype(dtype).kind in "iu":
        low, high = (0, 3) if op == "prod" else ((0, 50) if np.dtype(dtype).kind == "u" else (-50, 50))
        return rng.integers(low, high, shape).astype(dtype)
    if op == "prod":
        return (1 + 0.01 * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _to_numpy(result: Any) -> np.ndarray:
    tensor = result if isinstance(result, torch.Tensor) else torch.from_dlpack(result)
    assert tensor.device.type == "cuda"
    if tensor.dtype == torch.bfloat16:
        tensor = tensor.float()
    return tensor.cpu().numpy()


def _tolerance(dtype: Any, length: int) -> tuple[float, float]:
    """rtol, atol for a fold of ``length`` elements in ``dtype`` (any order)."""
    eps = {np.float16: 1e-3, np.float32: 1.2e-7, np.float64: 2.3e-16}.get(dtype, 0.0)
    return 8 * eps, 8 * eps * max(length, 1) ** 0.5 * 4


def _check(got: np.ndarray, want: np.ndarray, dtype: Any, length: int) -> None:
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    rtol, atol = _tolerance(dtype, length)
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


def _run(op: str, axis: int, x: Any) -> np.ndarray:
    return _to_numpy(dlbridge.jit(lambda v: OPS[op](v, axis))(x))


@pytest.mark.parametrize("shape", SHAPES_2D, ids=str)
@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32, np.int64, np.int8, np.uint8])
def test_column_reductions(shape: tuple[int, int], op: str, dtype: Any) -> None:
    if op in ("max", "min") and 0 in shape[:1]:
        pytest.skip("NumPy raises on a max of no elements; test_empty_extremes_raise covers it")
    values = _values(shape, dtype, op)
    x = torch.from_numpy(values).cuda()
    _check(_run(op, 0, x), OPS[op](values, 0), dtype, shape[0])
    assert np.array_equal(x.cpu().numpy(), values), "the input changed"


@pytest.mark.parametrize("shape", SHAPES_3D, ids=str)
@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64, np.uint8])
def test_middle_and_leading_axes(shape: tuple[int, int, int], op: str, axis: int, dtype: Any) -> None:
    if op in ("max", "min") and shape[axis] == 0:
        pytest.skip("NumPy raises on a max of no elements; test_empty_extremes_raise covers it")
    values = _values(shape, dtype, op, seed=1)
    _check(_run(op, axis, torch.from_numpy(values).cuda()), OPS[op](values, axis), dtype, shape[axis])


def test_empty_extremes_raise() -> None:
    x = torch.zeros((0, 5), device="cuda")
    with pytest.raises(ValueError):
        np.max(np.zeros((0, 5), np.float32), axis=0)
    with pytest.raises(ValueError):
        _run("max", 0, x)


# Reductions of bfloat16 accumulate in bfloat16, as NumPy's accumulate in the array's type (PyTorch
# accumulates in float32): a product of 4097 factors near 1 drifts far from the exact one at 8
# bits per step, so products are checked over a short axis only.
@pytest.mark.parametrize("op, shape", [("sum", (4097, 333)), ("max", (4097, 333)), ("sum", (64, 3, 4096)),
                                       ("max", (64, 3, 4096)), ("prod", (64, 3, 4096))], ids=str)
def test_bfloat16(op: str, shape: tuple[int, ...]) -> None:
    values = _values(shape, np.float32, op, seed=2)
    x = torch.from_numpy(values).cuda().to(torch.bfloat16)
    exact = x.float().cpu().numpy()
    axis = len(shape) - 2
    got = _to_numpy(dlbridge.jit(lambda v: OPS[op](v, axis))(x)).astype(np.float64)
    want = OPS[op](exact.astype(np.float64), axis)
    # A sum's error is bounded by a fraction of the sum of magnitudes: each of the ~30 additions
    # a thread makes in a row rounds to 8 bits.
    atol = 2**-9 * np.abs(exact).sum(axis=axis) if op == "sum" else 2e-2 * shape[axis] ** 0.5
    assert np.all(np.abs(got - want) <= atol + 2e-2 * np.abs(want)), np.abs(got - want).max()


@pytest.mark.parametrize("op", ["max", "min", "sum"])
def test_booleans(op: str) -> None:
    values = _values((1001, 37), np.bool_, op)
    want = {"max": values.any(axis=0), "min": values.all(axis=0), "sum": values.sum(axis=0)}[op]
    fn = {"max": lambda v: v.any(axis=0), "min": lambda v: v.all(axis=0), "sum": lambda v: v.sum(axis=0)}[op]
    got = _to_numpy(dlbridge.jit(fn)(torch.from_numpy(values).cuda()))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("view", ["every-other-column", "transposed", "unaligned", "row-slice"])
def test_views(view: str) -> None:
    values = _values((1031, 260), np.float32, "sum", seed=3)
    base = torch.from_numpy(values).cuda()
    x, want = {
        "every-other-column": (base[:, ::2], values[:, ::2]),
        "transposed": (base.t(), values.T),
        # One float in: no row starts 16-byte aligned, the element path.
        "unaligned": (base.flatten()[1:1 + 1030 * 256].view(1030, 256),
                      values.flatten()[1:1 + 1030 * 256].reshape(1030, 256)),
        "row-slice": (base[7:900:3], values[7:900:3]),
    }[view]
    _check(_run("sum", 0, x), want.sum(axis=0), np.float32, want.shape[0])
    _check(_run("max", 0, x), want.max(axis=0), np.float32, want.shape[0])


@pytest.mark.parametrize("shape", [(16384, 16384), (256, 64, 16384)], ids=str)
def test_bench_shapes_deterministic(shape: tuple[int, ...]) -> None:
    g = torch.Generator(device="cuda").manual_seed(4)
    x = torch.randn(shape, generator=g, device="cuda")
    axis = len(shape) - 2
    fn = dlbridge.jit(lambda v: v.sum(axis=axis))
    first = _to_numpy(fn(x))
    for _ in range(3):
        assert np.array_equal(_to_numpy(fn(x)), first), "results changed from run to run"
    want = x.double().sum(dim=axis).cpu().numpy()
    np.testing.assert_allclose(first, want, rtol=1e-5, atol=1e-5 * shape[axis] ** 0.5 * 4)


STATIC = [((997, 13), 0), ((1, 1000), 0), ((1000, 1), 0), ((3, 16384), 0), ((2048, 4096), 0),
          ((7, 129, 33), 1), ((64, 3, 4096), 1), ((4, 3, 40), 1)]
ELEMENTS = {"f32": (np.float32, "0.0"), "f16": (np.float16, "0.0"), "i32": (np.int32, "0")}


@pytest.mark.parametrize("shape, axis", STATIC, ids=str)
@pytest.mark.parametrize("element", list(ELEMENTS))
@pytest.mark.parametrize("kind", ["memref-in-place", "tensor"])
def test_static_shapes(shape: tuple[int, ...], axis: int, element: str, kind: str) -> None:
    dtype, zero = ELEMENTS[element]
    combiner = "arith.addf" if element.startswith("f") else "arith.addi"
    values = _values(shape, dtype, "sum", seed=5)
    x = torch.from_numpy(values).cuda()
    # Floats against the sum in float64: NumPy's own float32 sum down a column adds
    # the rows one by one, with an error of its own as large as the kernel's.
    exact = np.float64 if element.startswith("f") else dtype
    want = values.sum(axis=axis, dtype=exact).astype(dtype)
    if kind == "tensor":
        kernel = dlbridge.compile(reduce_tensor(shape, axis, element, zero, combiner), target="cuda")
        got = _to_numpy(kernel(x))
    else:
        kernel = dlbridge.compile(reduce_into(shape, axis, element, zero, combiner), target="cuda")
        out = torch.full(want.shape, 7, dtype=TORCH_DTYPES[dtype], device="cuda")
        kernel(x, out)
        got = out.cpu().numpy()
    _check(got, want, dtype, shape[axis])
