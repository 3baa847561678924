"""Hand-written MLIR column and middle-axis reductions over static shapes, shared by the PTX
checks of test_cuda_column_reductions.py and the GPU runs of gpu/test_gpu_column_reductions.py.

``reduce_into`` writes into its output argument, a memref of identity layout (what the contiguous
specialisation passes: 16-byte loads); ``reduce_tensor`` returns a new tensor (the strided
specialisation: element loads)."""

from __future__ import annotations

from collections.abc import Sequence


def _type(kind: str, shape: Sequence[int], element: str) -> str:
    return f"{kind}<{''.join(f'{n}x' for n in shape)}{element}>"


def _out_shape(shape: Sequence[int], axis: int) -> tuple[int, ...]:
    return tuple(n for i, n in enumerate(shape) if i != axis)


def _reduce(ins: str, outs: str, axis: int, element: str, combiner: str) -> str:
    return f"""linalg.reduce ins(%x : {ins}) outs(%init : {outs}) dimensions = [{axis}]
    (%in: {element}, %out: {element}) {{
      %r = {combiner} %out, %in : {element}
      linalg.yield %r : {element}
    }}"""


def reduce_into(shape: Sequence[int], axis: int, element: str, fill: str, combiner: str) -> str:
    """``@reduce(x, y)``: ``y`` filled with ``fill``, then ``x`` folded into it along ``axis``
    with ``combiner`` (an arith op on ``element``), on memrefs of identity layouts."""
    x = _type("memref", shape, element)
    y = _type("memref", _out_shape(shape, axis), element)
    return f"""
func.func @reduce(%x: {x}, %init: {y}) attributes {{dlpack.entry}} {{
  %v = arith.constant {fill} : {element}
  linalg.fill ins(%v : {element}) outs(%init : {y})
  {_reduce(x, y, axis, element, combiner)}
  return
}}
"""


def reduce_tensor(shape: Sequence[int], axis: int, element: str, fill: str, combiner: str) -> str:
    """``@reduce(x) -> y``: as :func:`reduce_into`, on tensors, returning ``y``."""
    x = _type("tensor", shape, element)
    y = _type("tensor", _out_shape(shape, axis), element)
    return f"""
func.func @reduce(%x: {x}) -> {y} attributes {{dlpack.entry}} {{
  %v = arith.constant {fill} : {element}
  %e = tensor.empty() : {y}
  %init = linalg.fill ins(%v : {element}) outs(%e : {y}) -> {y}
  %y = {_reduce(x, y, axis, element, combiner)}
  return %y : {y}
}}
"""
