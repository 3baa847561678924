"""``a @ b`` on PyTorch CUDA tensors: named contractions call cuBLASLt.

f16, bf16 and f32 products, 2-D, batched and matvec, on contiguous tensors and on
transposed and sliced views, against ``torch.matmul``. Views cuBLASLt cannot read (every other
column) run the generated kernel instead, with the same results up to that kernel's rounding.
Skipped without PyTorch or a CUDA device.
"""

from __future__ import annotations

from typing import Any, Callable

import dlbridge
import pytest

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="PyTorch sees no CUDA device")


@dlbridge.jit
def product(a: Any, b: Any) -> Any:
    return a @ b


DTYPES = [torch.float16, torch.bfloat16, torch.float32]

# (atol, rtol) against an f32 product of the same inputs. cuBLASLt accumulates in f32 and
# rounds once into the output type; the generated kernel accumulates in the output type.
LIBRARY_TOLERANCE = {torch.float16: (1e-2, 1e-2), torch.bfloat16: (5e-2, 2e-2), torch.float32: (1e-4, 1e-4)}
KERNEL_TOLERANCE = {torch.float16: (3e-2, 2e-2), torch.bfloat16: (2e-1, 5e-2), torch.float32: (1e-4, 1e-4)}

SHAPES = [
    ((33, 17), (17, 21)),  # matmul
    ((128, 64), (64, 96)),  # tensor-core sizes
    ((6, 33, 17), (6, 17, 21)),  # batch_matmul
    ((33, 17), (17,)),  # matvec
]


def _random(shape: tuple[int, ...], dtype: Any) -> Any:
    # Small values keep sums of products well inside f16's range and precision.
    return (torch.randn(shape, device="cuda") / 4).to(dtype)


def _views(x: Any) -> list[tuple[str, Any, bool]]:
    """``x`` as views with the same values: (name, view, whether cuBLASLt reads it)."""
    views = [("contiguous", x, True)]
    if x.dim() >= 2:
        views.append(("transposed", x.mT.contiguous().mT, True))
        rows = torch.zeros(x.shape[:-2] + (2 * x.shape[-2], x.shape[-1]), dtype=x.dtype, device=x.device)
        rows[..., ::2, :] = x
        views.append(("every-other-row", rows[..., ::2, :], True))
        cols = torch.zeros(x.shape[:-1] + (2 * x.shape[-1],), dtype=x.dtype, device=x.device)
        cols[..., ::2] = x
        views.append(("every-other-column", cols[..., ::2], False))
    return views


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shapes", SHAPES, ids=lambda s: f"{s[0]}@{s[1]}")
def test_products_match_torch_on_every_view(dtype: Any, shapes: tuple[tuple[int, ...], ...]) -> None:
    torch.manual_seed(0)
    a0, b0 = _random(shapes[0], dtype), _random(shapes[1], dtype)
    for name_a, a, library_a in _views(a0):
        for name_b, b, library_b in _views(b0):
            before = (a.clone(), b.clone())
            got = product(a, b)
            want = torch.matmul(a, b)
            assert isinstance(got, torch.Tensor) and got.device == want.device, (name_a, name_b)
            assert got.shape == want.shape and got.dtype == want.dtype, (name_a, name_b)
            tolerances = LIBRARY_TOLERANCE if library_a and library_b else KERNEL_TOLERANCE
            atol, rtol = tolerances[dtype]
            reference = torch.matmul(a.float(), b.float())
            where = f"{name_a} @ {name_b}"
            torch.testing.assert_close(got.float(), reference, atol=atol, rtol=rtol, msg=lambda m, w=where: f"{w}: {m}")
            assert torch.equal(a, before[0]) and torch.equal(b, before[1])


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_host_code_calls_cublaslt(dtype: Any) -> None:
    a, b = _random((64, 32), dtype), _random((32, 48), dtype)
    stages = product.inspect(a, b)
    assert "llvm.call @dlrt_cuda_matmul" in stages["host-to-llvm"]


def test_large_f16_product_runs_on_tensor_cores_fast_enough() -> None:
    """A 4096^3 f16 product in well under the naive kernel's time: at least 50 TFLOP/s, where
    one thread per output element reading global memory manages a few."""
    a, b = _random((4096, 4096), torch.float16), _random((4096, 4096), torch.float16)
    product(a, b)
    torch.cuda.synchronize()
    seconds = _time(lambda: product(a, b), repeat=10)
    assert 2 * 4096**3 / seconds > 50e12, f"{2 * 4096**3 / seconds / 1e12:.1f} TFLOP/s"


def _time(fn: Callable[[], Any], repeat: int) -> float:
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(repeat):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / 1000 / repeat
