"""Indices read from data are checked inside CUDA kernels: a gather with an
index out of range ends the call with ``IndexError`` (read back from the
kernel after it ran) and touches no memory out of bounds; in range, and on
the next call, the numbers are PyTorch's. A tensor carried through
``scf.while`` is an entry result on the GPU too."""

from __future__ import annotations

from typing import Any

import dlbridge
import pytest
from test_compile_data_indices import GATHER, SCATTER, WHILE


def test_gather_in_kernels(torch: Any) -> None:
    take = dlbridge.compile(GATHER, target="cuda")
    x = torch.arange(1 << 16, device="cuda", dtype=torch.float32) * 0.5
    idx = torch.randint(0, x.numel(), (100_000,), device="cuda", dtype=torch.int64)
    torch.testing.assert_close(torch.from_dlpack(take(x, idx)), x[idx])
    for bad in (x.numel(), -1, 1 << 40):
        wrong = idx.clone()
        wrong[77_777] = bad
        with pytest.raises(IndexError, match=rf"'tensor.extract' at .*: index {bad} is out of "
                           rf"bounds for dimension #0 of operand #0 with size {x.numel()}"):
            take(x, wrong)
    torch.testing.assert_close(torch.from_dlpack(take(x, idx)), x[idx])


def test_scatter_in_kernels(torch: Any) -> None:
    scatter = dlbridge.compile(SCATTER, target="cuda")
    dst = torch.zeros(8, device="cuda")
    v = torch.tensor([1.0, 2.0, 3.0], device="cuda")
    good = torch.tensor([7, 0, 3], device="cuda")
    expected = dst.clone()
    expected[good] = v
    torch.testing.assert_close(torch.from_dlpack(scatter(dst, good, v)), expected)
    with pytest.raises(IndexError, match=r"'tensor.insert' at .*: index 8 is out of bounds"):
        scatter(dst, torch.tensor([7, 8, 3], device="cuda"), v)
    assert int(torch.count_nonzero(dst)) == 0


def test_scf_while_result_on_the_gpu(torch: Any) -> None:
    double_while = dlbridge.compile(WHILE, target="cuda")
    a = torch.arange(6, device="cuda", dtype=torch.float64)
    torch.testing.assert_close(torch.from_dlpack(double_while(a, 3)), a * 8)
