"""Elementwise kernels of the contiguous specialisation, whose threads move 16
bytes at a time: every dtype width, lengths that leave a tail, views whose data
is not 16-byte aligned, and the strided calls that keep the general kernel."""

from __future__ import annotations

from typing import Any

import dlbridge
import pytest


@dlbridge.jit
def scale_shift(x: Any) -> Any:
    return x * 3 + 1


@dlbridge.jit
def add3(a: Any, b: Any, c: Any) -> Any:
    return a + b + c


@dlbridge.jit
def widen(x: Any, y: Any) -> Any:
    return x + y.astype("float64")


@dlbridge.jit
def add_into(x: Any, y: Any) -> None:
    x += y


DTYPES = ["float32", "float16", "bfloat16", "float64", "int8", "int16", "int32", "int64"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 3, 4, 5, 15, 17, 1023, 4099, 1 << 20])
def test_every_width_and_tail(torch: Any, dtype: str, n: int) -> None:
    t = getattr(torch, dtype)
    x = (torch.arange(n, device="cuda") % 13 - 6).to(t)
    before = x.clone()
    assert torch.equal(scale_shift(x), x * 3 + 1)
    assert torch.equal(x, before)


@pytest.mark.parametrize("offset", [1, 2, 3, 4, 7])
def test_views_not_aligned_to_sixteen_bytes(torch: Any, offset: int) -> None:
    # Compact, so the contiguous kernel runs, but starting `offset` elements
    # into an allocation: the vector path must not be taken where it would
    # fault, and every element is still computed.
    base = torch.arange(3 * 4096 + 8, device="cuda", dtype=torch.float32)
    a, b, c = (base[offset + i: offset + i + 4096] for i in range(3))
    assert a.is_contiguous()
    assert torch.equal(add3(a, b, c), a + b + c)
    m = base[offset: offset + 63 * 65].view(63, 65)
    assert torch.equal(scale_shift(m), m * 3 + 1)


def test_mixed_widths(torch: Any) -> None:
    x = torch.randn(7, 1001, device="cuda", dtype=torch.float64)
    y = torch.randn(7, 1001, device="cuda", dtype=torch.float32)
    assert torch.equal(widen(x, y), x + y.double())


def test_contiguous_and_strided_calls_agree(torch: Any) -> None:
    x = torch.randn(256, 300, device="cuda")
    strided = x[:, ::2]
    assert torch.equal(scale_shift(strided), strided * 3 + 1)
    assert torch.equal(scale_shift(x), x * 3 + 1)
    assert torch.equal(scale_shift(x.T), x.T * 3 + 1)


def test_in_place_update(torch: Any) -> None:
    x = torch.arange(10_001, device="cuda", dtype=torch.float32)
    y = torch.full_like(x, 0.5)
    expected = x + y
    add_into(x, y)
    assert torch.equal(x, expected)
