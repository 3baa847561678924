"""The blocks of the CUDA loop path, read from the PTX (no GPU needed): every parallel loop,
whatever its static shape or rank, launches blocks of many threads, never of one
(``.maxntid 1, 1, 1``): dlbridge.compile's hand-written MLIR and ``@jit`` alike."""

from __future__ import annotations

import math
import re
from typing import Any

import dlbridge
import numpy as np
import pytest
from static_shape_kernels import SHAPES, add_row, elements, hand_written, memref_add, scale_add

MAXNTID = re.compile(r"\.maxntid (\d+), (\d+), (\d+)")


def block_sizes(source: str) -> list[int]:
    """The threads per block every kernel of ``source`` declares in its PTX."""
    ptx = dlbridge.inspect(source, target="cuda", chip="sm_90", format="ptx")["ptx"]
    sizes = [math.prod(int(n) for n in match) for match in MAXNTID.findall(ptx)]
    assert sizes, "no kernel declares its block size"
    return sizes


def assert_full(sizes: list[int], count: int) -> None:
    """Blocks of at least four warps, or of every element where there are fewer."""
    assert min(sizes) >= min(count, 128), f"blocks of {sizes} threads for {count} elements"


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_elementwise_static_shapes(shape: tuple[int, ...]) -> None:
    assert_full(block_sizes(scale_add(shape)), elements(shape))


@pytest.mark.parametrize("shape", [(1024, 100), (997, 13), (64, 64, 64), (2, 3, 4, 5)], ids=str)
def test_broadcast_operand(shape: tuple[int, ...]) -> None:
    assert_full(block_sizes(add_row(shape)), elements(shape))


@pytest.mark.parametrize("rows, cols", [(300, 300), (1024, 128), (7, 11)])
def test_memref_level_linalg_and_hand_written_loops(rows: int, cols: int) -> None:
    assert_full(block_sizes(memref_add(rows, cols)), rows * cols)
    assert_full(block_sizes(hand_written(rows, cols)), rows * cols)


def test_the_shape_of_issue_24() -> None:
    ptx = dlbridge.inspect(scale_add((1024, 100)), target="cuda", format="ptx")["ptx"]
    assert ".maxntid 1, 1, 1" not in ptx
    assert ".maxntid 256, 1, 1" in ptx


@dlbridge.jit(target="cuda")
def _scale_add(x: Any, y: Any) -> Any:
    return x * 2 + y


@pytest.mark.parametrize("shape", [(1, 1000), (5, 1, 7), (1000, 1), (3, 1, 5, 7)], ids=str)
def test_jit_strided_views_with_unit_dims(shape: tuple[int, ...]) -> None:
    # Every other element of the last dimension: the strided specialisation, the loop path.
    wide = np.ones((*shape[:-1], 2 * shape[-1]), np.float32)
    x = wide[..., ::2]
    ptx = _scale_add.inspect(x, x)["ptx"]
    sizes = [math.prod(int(n) for n in match) for match in MAXNTID.findall(ptx)]
    assert sizes and min(sizes) >= min(elements(shape), 128), sizes


def test_a_lambda_compiles_for_cuda() -> None:
    # Python names it "<lambda>"; its kernel needs a name PTX can spell.
    scale = dlbridge.jit(lambda x: x * 2.0 + 1.0, target="cuda")
    ptx = scale.inspect(np.ones(100, np.float32))["ptx"]
    assert re.search(r"\.entry _lambda_\w*_kernel\(", ptx), ptx[:400]
