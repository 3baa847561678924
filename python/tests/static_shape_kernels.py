"""Hand-written MLIR kernels over static shapes, shared by the PTX checks of
test_cuda_block_shapes.py and the GPU runs of gpu/test_gpu_static_shapes.py.

Each source has one ``dlpack.entry`` function whose parallel loop takes the CUDA loop path
(tensor arguments in the strided specialisation, memref arguments of strided layout)."""

from __future__ import annotations

import math
from collections.abc import Sequence

# Ranks 1 to 4: shapes that tiles of 256 threads divide (which canonicalisation merges with
# their tile loop), primes, size-1 dimensions, fewer elements than a warp, more than a block.
SHAPES: list[tuple[int, ...]] = [
    (997,), (13,), (1 << 16,),
    (1024, 100), (1024, 1024), (997, 13), (1, 1000), (1000, 1), (4, 3), (1000, 4),
    (64, 64, 64), (5, 1, 7), (1, 1, 1000),
    (2, 3, 4, 5), (1000, 2, 2, 2), (3, 1, 5, 7),
]


def tensor_type(shape: Sequence[int]) -> str:
    """The MLIR type of an f32 tensor of ``shape``."""
    return f"tensor<{'x'.join(map(str, shape))}xf32>" if shape else "tensor<f32>"


def _maps(rank: int, operand_dims: Sequence[int]) -> str:
    """An affine map of ``rank`` loops to the dimensions ``operand_dims``."""
    dims = ", ".join(f"d{i}" for i in range(rank))
    return f"affine_map<({dims}) -> ({', '.join(f'd{i}' for i in operand_dims)})>"


def scale_add(shape: Sequence[int]) -> str:
    """``@scale_add(a, b) = a * 2 + b``, elementwise over ``shape``."""
    t, rank = tensor_type(shape), len(shape)
    identity = _maps(rank, range(rank))
    return f"""
func.func @scale_add(%a: {t}, %b: {t}) -> {t} attributes {{dlpack.entry}} {{
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : {t}
  %r = linalg.generic {{indexing_maps = [{identity}, {identity}, {identity}],
                       iterator_types = [{", ".join(['"parallel"'] * rank)}]}}
      ins(%a, %b : {t}, {t}) outs(%e : {t}) {{
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %two : f32
    %s = arith.addf %m, %y : f32
    linalg.yield %s : f32
  }} -> {t}
  return %r : {t}
}}
"""


def add_row(shape: Sequence[int]) -> str:
    """``@add_row(a, row) = a + row``: ``row`` of the last dimension broadcast over the others."""
    t, rank = tensor_type(shape), len(shape)
    row = tensor_type(shape[-1:])
    identity, last = _maps(rank, range(rank)), _maps(rank, [rank - 1])
    return f"""
func.func @add_row(%a: {t}, %row: {row}) -> {t} attributes {{dlpack.entry}} {{
  %e = tensor.empty() : {t}
  %r = linalg.generic {{indexing_maps = [{identity}, {last}, {identity}],
                       iterator_types = [{", ".join(['"parallel"'] * rank)}]}}
      ins(%a, %row : {t}, {row}) outs(%e : {t}) {{
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }} -> {t}
  return %r : {t}
}}
"""


def memref_add(rows: int, cols: int) -> str:
    """``@memref_add(a, b, out)``: ``out = a + b`` by memref-level linalg, written in place."""
    m = f"memref<{rows}x{cols}xf32, strided<[?, ?], offset: ?>>"
    return f"""
func.func @memref_add(%a: {m}, %b: {m}, %out: {m}) attributes {{dlpack.entry}} {{
  linalg.add ins(%a, %b : {m}, {m}) outs(%out : {m})
  return
}}
"""


def hand_written(rows: int, cols: int) -> str:
    """``@hand_written(a)``: ``a[i, j] = 2 * a[i, j] + j`` by an ``scf.parallel`` written by hand."""
    m = f"memref<{rows}x{cols}xf32, strided<[?, ?], offset: ?>>"
    return f"""
func.func @hand_written(%a: {m}) attributes {{dlpack.entry}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = arith.constant {rows} : index
  %cols = arith.constant {cols} : index
  %two = arith.constant 2.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%rows, %cols) step (%c1, %c1) {{
    %x = memref.load %a[%i, %j] : {m}
    %jf = arith.index_cast %j : index to i64
    %jx = arith.sitofp %jf : i64 to f32
    %y = arith.mulf %x, %two : f32
    %z = arith.addf %y, %jx : f32
    memref.store %z, %a[%i, %j] : {m}
  }}
  return
}}
"""


def elements(shape: Sequence[int]) -> int:
    """The number of elements of ``shape``."""
    return math.prod(shape)
