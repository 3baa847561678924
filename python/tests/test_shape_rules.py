"""Result shapes read off a kernel's IR (``dlbridge._shape_rules``) agree with the shapes the
kernel returns, for traced functions and hand-written MLIR, for every size they are called with;
sizes that depend on values are refused, naming the result, the dim and the operation."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import dlbridge
import numpy as np
import pytest
from dlbridge._shape_rules import SizeOps, shape_rule


def _slices(x: Any, n: int) -> Any:
    return x[1:], x[n:, ::3], x[-n:], x[::-2, n - 1:]


def _reductions(x: Any, n: int) -> Any:
    return x.sum(axis=0), x.max(axis=1, keepdims=True), x.mean(), np.cumsum(x, axis=1)


def _shapes(x: Any, n: int) -> Any:
    return x.T, x.reshape(-1), x[:, None, :] * 2, np.concatenate([x, x[1:]]), x @ x.T


def _loop(x: Any, n: int) -> Any:
    y = x[:n]
    for _ in range(3):
        y = y * 2 + 1
    return y


FUNCTIONS = [_slices, _reductions, _shapes, _loop]
SIZES = [(9, 8), (0, 5), (3, 2), (2, 3)]


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_traced_result_shapes_match_the_kernels(fn: Callable[..., Any]) -> None:
    jitted = dlbridge.jit(fn)
    traced = jitted._trace(jitted.specs(np.ones((4, 5), np.float32), 2))
    rule = shape_rule(traced.mlir, traced.entry)
    for (rows, cols), n in itertools.product(SIZES, [-12, -3, 0, 2, 4, 20]):
        x = np.ones((rows, cols), np.float32)
        try:
            results = jitted(x, n)
        except ValueError:
            continue  # a size the kernel refuses (an empty max, a shape mismatch)
        results = results if isinstance(results, tuple) else (results,)
        assert rule([x, n]) == [r.shape for r in results], (rows, cols, n)


def test_compiled_kernels_sizes_with_scalars_and_affine_maps() -> None:
    kernel = dlbridge.compile("""
func.func @grow(%a: memref<?xf32>, %k: i64) -> (memref<?x?xf32>, f32) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  %rows = affine.apply affine_map<()[s0] -> (s0 * 2 + 1)>()[%n]
  %cols = arith.index_cast %k : i64 to index
  %r = memref.alloc(%rows, %cols) : memref<?x?xf32>
  %zero = arith.constant 0.0 : f32
  return %r, %zero : memref<?x?xf32>, f32
}""")
    rule = shape_rule(kernel.mlir["input"], kernel.signature["name"])
    assert rule.num_results == 2
    a = np.ones(6, np.float32)
    assert rule([a, 9]) == [(13, 9), ()]
    assert rule([a, 9])[0] == kernel(a, 9)[0].shape


def test_sizes_computed_from_values_are_refused() -> None:
    source = """
func.func @count(%a: memref<?xi64>) -> memref<?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<?xi64>
  %n = arith.index_cast %v : i64 to index
  %r = memref.alloc(%n) : memref<?xf32>
  return %r : memref<?xf32>
}"""
    with pytest.raises(ValueError, match=r"result 0, dim 0: .*depends on the values.*'memref.load'"):
        shape_rule(source)
    with pytest.raises(ValueError, match="no 'dlpack.entry' function named @other"):
        shape_rule(source, "other")


class _Size:
    """A symbolic size: records the arithmetic a rule does on it, as a framework's would."""

    def __init__(self, text: str) -> None:
        self.text = text

    def _op(self, symbol: str, other: Any) -> _Size:
        return _Size(f"({self.text} {symbol} {getattr(other, 'text', other)})")

    def __add__(self, other: Any) -> _Size:
        return self._op("+", other)

    def __sub__(self, other: Any) -> _Size:
        return self._op("-", other)

    def __rsub__(self, other: Any) -> _Size:
        return _Size(f"({other} - {self.text})")

    def __mul__(self, other: Any) -> _Size:
        return self._op("*", other)


def test_symbolic_sizes_go_through_the_given_operations() -> None:
    jitted = dlbridge.jit(lambda x: x[1:] * 2)
    traced = jitted._trace(jitted.specs(np.ones((4, 5), np.float32)))
    rule = shape_rule(traced.mlir, traced.entry)

    class Array:
        shape = (_Size("s0"), _Size("s1"))

    ops = SizeOps(min=lambda a, b: _Size(f"min({getattr(a, 'text', a)}, {getattr(b, 'text', b)})"),
                  max=lambda a, b: _Size(f"max({getattr(a, 'text', a)}, {getattr(b, 'text', b)})"))
    (shape,) = rule([Array()], ops)
    assert [s.text for s in shape] == ["max((s0 - min(s0, 1)), 0)", "s1"]
