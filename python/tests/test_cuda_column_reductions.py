"""Column and middle-axis reductions on the CUDA path, read from the PTX (no GPU needed).

A reduction whose innermost loop is parallel (``x.sum(axis=0)``, ``x.sum(axis=1)`` of a 3-d
array) runs as tiles of adjacent columns: over contiguous, aligned buffers the threads load
16 bytes at a time, the block combines its rows through shared memory, and the fill of the
output's initial value has no kernel of its own. Three kernels in all: the tiles writing the
output, the tiles writing partial values when the reduced axis is split over blocks, and the
kernel that combines those (which reads only the partial values, never the input)."""

from __future__ import annotations

import re
from typing import Any

import dlbridge
import numpy as np
import pytest
from column_reduction_kernels import reduce_into, reduce_tensor

ENTRY = re.compile(r"\.entry (\w+)\(.*?\n\}", re.S)
WIDE_LOAD = re.compile(r"ld\.global(?:\.\w+)*\.v(?:4\.[bfsu]32|2\.[bfsu]64)\b")
LOAD = re.compile(r"ld\.global(?:\.\w+)*\.(?:v\d\.)?[bfsu]\d+\b")

# MLIR element type, a fill value, the combiner.
DTYPES = [
    ("f32", "0.0", "arith.addf"),
    ("f16", "0xFC00", "arith.maximumf"),
    ("bf16", "1.0", "arith.mulf"),
    ("f64", "0.0", "arith.addf"),
    ("i8", "0", "arith.addi"),
    ("i32", "0", "arith.maxsi"),
    ("i64", "0", "arith.minsi"),
]


def _kernels(ptx: str) -> list[str]:
    return [match.group(0) for match in ENTRY.finditer(ptx)]


@pytest.mark.parametrize("shape, axis", [((16384, 16384), 0), ((64, 64, 16384), 1), ((256, 64, 16384), 1),
                                         ((997, 16), 0), ((4, 3, 40), 1)], ids=str)
@pytest.mark.parametrize("element, fill, combiner", DTYPES, ids=[d[0] for d in DTYPES])
def test_contiguous_columns_load_16_bytes_once(shape: tuple[int, ...], axis: int, element: str, fill: str,
                                               combiner: str) -> None:
    source = reduce_into(shape, axis, element, fill, combiner)
    kernels = _kernels(dlbridge.inspect(source, target="cuda", chip="sm_90", format="ptx")["ptx"])
    # Static shapes fold the choices the shapes decide: whether the axis is split (tiles and a
    # finishing kernel) or not (tiles alone), or both where the buffers' alignment decides.
    tiles = [kernel for kernel in kernels if ".shared" in kernel]
    finish = [kernel for kernel in kernels if ".shared" not in kernel]
    assert 1 <= len(tiles) <= 2 and len(finish) <= 1 and len(tiles) + len(finish) == len(kernels)
    # No kernel that only stores: the fill is the initial value.
    assert all(LOAD.search(kernel) for kernel in kernels)
    lanes = 16 // (int(re.sub(r"\D", "", element)) // 8)
    for kernel in tiles:
        if shape[-1] % lanes == 0:
            assert WIDE_LOAD.search(kernel), "no 16-byte load of the input"
        assert "bar.sync" in kernel and "ld.shared" in kernel
        assert "shfl.sync" not in kernel
        assert ".maxntid 256, 1, 1" in kernel
    # The kernel combining partial values reads them alone, element by element.
    assert not any(WIDE_LOAD.search(kernel) for kernel in finish)


@pytest.mark.parametrize("shape, axis, kernels", [((16384, 16384), 0, 2), ((64, 64, 16384), 1, 1)], ids=str)
def test_bench_shapes(shape: tuple[int, ...], axis: int, kernels: int) -> None:
    """bench/gpu.py's column and middle-axis sums: a 16384-column sum has 128 tiles, too few, so
    the rows are split over blocks (tiles, then the kernel combining them); 64 x 128 tiles are
    enough for one kernel."""
    source = reduce_into(shape, axis, "f32", "0.0", "arith.addf")
    found = _kernels(dlbridge.inspect(source, target="cuda", chip="sm_90", format="ptx")["ptx"])
    assert len(found) == kernels
    assert all(WIDE_LOAD.search(kernel) for kernel in found if ".shared" in kernel)


@pytest.mark.parametrize("source", [
    reduce_into((1000, 64), 0, "f32", "0.0", "arith.addf").replace(
        "memref<1000x64xf32>", "memref<1000x64xf32, strided<[128, 1]>>"),
    reduce_tensor((1000, 64), 0, "f32", "0.0", "arith.addf")], ids=["strided-memref", "tensor"])
def test_strided_columns_load_elements(source: str) -> None:
    kernels = _kernels(dlbridge.inspect(source, target="cuda", chip="sm_90", format="ptx")["ptx"])
    assert kernels
    assert not any(WIDE_LOAD.search(kernel) for kernel in kernels)
    assert all(".maxntid 256, 1, 1" in kernel for kernel in kernels)


@dlbridge.jit(target="cuda")
def _column_sum(x: Any) -> Any:
    return x.sum(axis=0)


@dlbridge.jit(target="cuda")
def _middle_max(x: Any) -> Any:
    return x.max(axis=1)


@dlbridge.jit(target="cuda")
def _middle_mean(x: Any) -> Any:
    return x.mean(axis=1)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int8, np.int32, np.int64, np.uint8])
@pytest.mark.parametrize("fn, rank", [(_column_sum, 2), (_middle_max, 3), (_middle_mean, 3)],
                         ids=["column_sum", "middle_max", "middle_mean"])
def test_jit_columns_share_blocks(fn: Any, rank: int, dtype: Any) -> None:
    x = np.ones((5, 7, 9)[:rank], dtype)
    ptx = fn.inspect(x)["ptx"]
    assert ".maxntid 1, 1, 1" not in ptx
    assert "bar.sync" in ptx and ".shared" in ptx
