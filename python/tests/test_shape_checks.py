"""Shapes of arguments that do not fit together are refused at run time by the
generated code, with NumPy's ``ValueError`` and the actual shapes, for ``@jit``
and ``dlbridge.compile`` alike; shapes that fit still give NumPy's numbers."""

from __future__ import annotations

import dlbridge
import numpy as np
import pytest

MATMUL = """
func.func @mm(%a: tensor<?x?xf32> {dlpack.name = "a"}, %b: tensor<?x?xf32> {dlpack.name = "b"})
    -> tensor<?x?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""

SQUARE = """
func.func @square(%n: index {dlpack.name = "n"}) -> tensor<?x?xf64> attributes {dlpack.entry} {
  %one = arith.constant 1.0 : f64
  %e = tensor.empty(%n, %n) : tensor<?x?xf64>
  %r = linalg.fill ins(%one : f64) outs(%e : tensor<?x?xf64>) -> tensor<?x?xf64>
  return %r : tensor<?x?xf64>
}
"""


def test_jit_add_refuses_shapes_that_do_not_broadcast() -> None:
    @dlbridge.jit
    def add(a, b):
        return a + b

    a = np.ones((5, 7), np.float32)
    b = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match=r"add\(\): operands could not be broadcast together "
                       r"with shapes \(5,7\) \(2,3\) at test_shape_checks.py:\d+: return a \+ b"):
        add(a, b)


def test_jit_broadcasting_still_follows_numpy() -> None:
    @dlbridge.jit
    def add(a, b):
        return a + b

    a = np.arange(35, dtype=np.float32).reshape(5, 7)
    np.testing.assert_array_equal(add(a, a), a + a)
    row = np.arange(7, dtype=np.float32)
    np.testing.assert_array_equal(add(a, row), a + row)
    col = np.arange(5, dtype=np.float32).reshape(5, 1)
    np.testing.assert_array_equal(add(a, col), a + col)
    with pytest.raises(ValueError, match=r"shapes \(5,7\) \(6,\)"):
        add(a, np.ones(6, np.float32))


def test_jit_matmul_refuses_mismatched_contraction() -> None:
    @dlbridge.jit
    def mm(a, b):
        return a @ b

    a = np.ones((3, 4), np.float32)
    for bad, size in [(np.ones((5, 6), np.float32), 5), (np.ones(6, np.float32), 6),
                      (np.ones((2, 1, 6), np.float32), 1)]:
        with pytest.raises(ValueError, match=r"core dimension 0"):
            a @ bad
        with pytest.raises(ValueError, match=rf"mm\(\): matmul: Input operand 1 has a mismatch in "
                           rf"its core dimension 0, with gufunc signature \(n\?,k\),\(k,m\?\)->"
                           rf"\(n\?,m\?\) \(size {size} is different from 4\) at "
                           rf"test_shape_checks.py:\d+: return a @ b"):
            mm(a, bad)
    b = np.arange(24, dtype=np.float32).reshape(4, 6)
    np.testing.assert_allclose(mm(a, b), a @ b)


def test_jit_batched_matmul_refuses_batch_dims_that_do_not_broadcast() -> None:
    @dlbridge.jit
    def mm(a, b):
        return a @ b

    a = np.ones((2, 3, 4), np.float32)
    with pytest.raises(ValueError, match=r"shapes \(2,3,4\) \(5,4,6\)"):
        mm(a, np.ones((5, 4, 6), np.float32))
    b = np.ones((2, 4, 6), np.float32)
    np.testing.assert_allclose(mm(a, b), a @ b)


def test_compiled_matmul_refuses_bad_dims() -> None:
    mm = dlbridge.compile(MATMUL)
    a = np.ones((3, 4), np.float32)
    with pytest.raises(ValueError, match=r"mm\(\): 'linalg.matmul' at .*dimension #0 of "
                       r"input/output operand #1 is incompatible with inferred dimension size; "
                       r"operand shapes: \(3, 4\) \(5, 6\) \(3, 6\)"):
        mm(a, np.ones((5, 6), np.float32))
    b = np.arange(24, dtype=np.float32).reshape(4, 6)
    np.testing.assert_allclose(mm(a, b), a @ b)


def test_allocations_that_cannot_succeed_are_memory_errors() -> None:
    square = dlbridge.compile(SQUARE)
    # 2**32 x 2**32 doubles: the byte size overflows int64, so the call ends
    # before allocating.
    with pytest.raises(MemoryError, match=r"square\(\): cannot allocate .* of shape "
                       r"\(4294967296, 4294967296\) .*overflows int64"):
        square(2**32)
    # 2**49 bytes: the allocation fails.
    with pytest.raises(MemoryError, match=r"square\(\): cannot allocate"):
        square(2**23)
    with pytest.raises(ValueError, match=r"negative dimensions are not allowed"):
        square(-1)
    np.testing.assert_array_equal(np.from_dlpack(square(3)), np.ones((3, 3)))


@pytest.mark.parametrize("kind", ["max", "min"])
@pytest.mark.parametrize("shape,axis", [((0, 3), None), ((0, 3), 0), ((3, 0), 1), ((0, 0), 1)])
def test_jit_max_of_nothing_is_refused(kind, shape, axis) -> None:
    """max and min have no identity: NumPy refuses to reduce an empty axis."""
    x = np.ones(shape, np.float32)
    with pytest.raises(ValueError, match="zero-size array"):
        getattr(x, kind)(axis=axis)
    f = dlbridge.jit(lambda a: getattr(a, kind)(axis=axis))
    name = "maximum" if kind == "max" else "minimum"
    with pytest.raises(ValueError, match=rf"zero-size array to reduction operation {name} "
                       r"which has no identity"):
        f(x)


def test_jit_max_of_non_empty_axes_of_an_empty_array_is_empty() -> None:
    x = np.ones((0, 3), np.int32)
    f = dlbridge.jit(lambda a: a.max(axis=1))
    np.testing.assert_array_equal(f(x), x.max(axis=1))
    assert f(np.arange(6, dtype=np.int32).reshape(2, 3)).tolist() == [2, 5]
