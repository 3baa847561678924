"""Static-shape kernels of the CUDA loop path on an NVIDIA GPU, against NumPy: hand-written
MLIR through ``dlbridge.compile`` over the shapes that once ran in blocks of one thread (shapes
their tiles divide, primes, size-1 dimensions, ranks 1 to 4), broadcasts, memref-level linalg
and ``scf.parallel`` written by hand, strided views (the loop path) and contiguous tensors alike;
and ``@jit`` on strided views with unit dimensions. Skipped without PyTorch or a CUDA device."""

from __future__ import annotations

from typing import Any

import dlbridge
import numpy as np
import pytest
from static_shape_kernels import SHAPES, add_row, hand_written, memref_add, scale_add

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA device", allow_module_level=True)


def _strided(values: np.ndarray) -> Any:
    """``values`` on the GPU as a view that takes every other element of a wider last
    dimension: the strided specialisation, whose kernels take the loop path."""
    wide = torch.zeros((*values.shape[:-1], 2 * values.shape[-1]), device="cuda")
    view = wide[..., ::2]
    view.copy_(torch.from_numpy(values))
    return view


def _on_gpu(values: np.ndarray, strided: bool) -> Any:
    return _strided(values) if strided else torch.from_numpy(values).cuda()


def _numpy(result: Any) -> np.ndarray:
    tensor = result if isinstance(result, torch.Tensor) else torch.from_dlpack(result)
    assert tensor.device.type == "cuda"
    return tensor.cpu().numpy()


def _data(shape: tuple[int, ...], seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("strided", [True, False], ids=["strided", "contiguous"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_elementwise(shape: tuple[int, ...], strided: bool) -> None:
    kernel = dlbridge.compile(scale_add(shape), target="cuda")
    a, b = _data(shape, 0), _data(shape, 1)
    got = _numpy(kernel(_on_gpu(a, strided), _on_gpu(b, strided)))
    np.testing.assert_allclose(got, a * 2 + b, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("shape", [(1024, 100), (997, 13), (64, 64, 64), (2, 3, 4, 5)], ids=str)
def test_broadcast_operand(shape: tuple[int, ...]) -> None:
    kernel = dlbridge.compile(add_row(shape), target="cuda")
    a, row = _data(shape, 2), _data(shape[-1:], 3)
    got = _numpy(kernel(_strided(a), _strided(row)))
    np.testing.assert_allclose(got, a + row, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("rows, cols", [(300, 300), (1024, 128), (7, 11)])
def test_memref_level_linalg(rows: int, cols: int) -> None:
    kernel = dlbridge.compile(memref_add(rows, cols), target="cuda")
    a, b = _data((rows, cols), 4), _data((rows, cols), 5)
    out = _strided(np.zeros((rows, cols), np.float32))
    kernel(_strided(a), _strided(b), out)
    np.testing.assert_allclose(out.cpu().numpy(), a + b, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("rows, cols", [(640, 48), (1024, 128), (7, 11)])
def test_hand_written_scf_parallel(rows: int, cols: int) -> None:
    kernel = dlbridge.compile(hand_written(rows, cols), target="cuda")
    a = _data((rows, cols), 6)
    view = _strided(a)
    kernel(view)
    want = a * 2 + np.arange(cols, dtype=np.float32)
    np.testing.assert_allclose(view.cpu().numpy(), want, rtol=1e-6, atol=1e-6)
    # The elements between the view's are untouched.
    assert torch.count_nonzero(view.as_strided((rows, cols), (2 * cols, 2), 1)).item() == 0


@dlbridge.jit
def _scale_add(x: Any, y: Any) -> Any:
    return x * 2 + y


@pytest.mark.parametrize("shape", [(1, 1000), (5, 1, 7), (1000, 1), (3, 1, 5, 7)], ids=str)
def test_jit_strided_views_with_unit_dims(shape: tuple[int, ...]) -> None:
    a, b = _data(shape, 7), _data(shape, 8)
    got = _numpy(_scale_add(_strided(a), _strided(b)))
    np.testing.assert_allclose(got, a * 2 + b, rtol=1e-6, atol=1e-6)
