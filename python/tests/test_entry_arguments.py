"""Tensor-level entries of ``dlbridge.compile``: arguments are read-only
unless marked ``bufferization.writable = true``, and results are always fresh
buffers, never the caller's array or a shared constant."""

from __future__ import annotations

import dlbridge
import numpy as np
import pytest

INSERT = """
func.func @insert(%x: tensor<?xf32> {dlpack.name = "x"}, %i: index) -> tensor<?xf32> attributes {dlpack.entry} {
  %five = arith.constant 5.0 : f32
  %r = tensor.insert %five into %x[%i] : tensor<?xf32>
  return %r : tensor<?xf32>
}
"""

MAP_INTO_ARGUMENT = """
func.func @absolute(%x: tensor<?xf32> {dlpack.name = "x"}) -> tensor<?xf32> attributes {dlpack.entry} {
  %r = linalg.map { math.absf } ins(%x : tensor<?xf32>) outs(%x : tensor<?xf32>)
  return %r : tensor<?xf32>
}
"""

IDENTITY_AND_CONSTANT = """
func.func @pass_through(%x: tensor<?xf32> {dlpack.name = "x"}) -> (tensor<?xf32>, tensor<2xf32>) attributes {dlpack.entry} {
  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %x, %c : tensor<?xf32>, tensor<2xf32>
}
"""

WRITABLE = """
func.func @fill(%x: tensor<?xf32> {dlpack.name = "x", bufferization.writable = true}) -> tensor<?xf32> attributes {dlpack.entry} {
  %seven = arith.constant 7.0 : f32
  %r = linalg.fill ins(%seven : f32) outs(%x : tensor<?xf32>) -> tensor<?xf32>
  %w = bufferization.materialize_in_destination %r in %x : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %w : tensor<?xf32>
}
"""


def read_only(values: list[float]) -> np.ndarray:
    """A float32 array NumPy exports with the READ_ONLY flag."""
    array = np.array(values, np.float32)
    array.flags.writeable = False
    return array


def test_insert_into_argument_leaves_the_caller_array_alone() -> None:
    insert = dlbridge.compile(INSERT)
    assert insert.signature["args"][0]["access"] == "read"
    x = np.array([1, 2, 3], np.float32)
    np.testing.assert_array_equal(insert(x, 1), [1, 5, 3])
    np.testing.assert_array_equal(x, [1, 2, 3])
    frozen = read_only([1, 2, 3])
    np.testing.assert_array_equal(insert(frozen, 2), [1, 2, 5])
    np.testing.assert_array_equal(frozen, [1, 2, 3])


def test_linalg_into_argument_compiles_and_returns_a_fresh_array() -> None:
    absolute = dlbridge.compile(MAP_INTO_ARGUMENT)
    assert absolute.signature["args"][0]["access"] == "read"
    x = read_only([-1, 2, -3])
    out = absolute(x)
    np.testing.assert_array_equal(out, [1, 2, 3])
    np.testing.assert_array_equal(x, [-1, 2, -3])


def test_returned_argument_and_constant_are_copies() -> None:
    pass_through = dlbridge.compile(IDENTITY_AND_CONSTANT)
    x = read_only([4, 5, 6])
    same, constant = pass_through(x)
    np.testing.assert_array_equal(same, x)
    assert not np.shares_memory(same, x)
    same[0] = 40
    constant[0] = 10
    np.testing.assert_array_equal(x, [4, 5, 6])
    again, constant_again = pass_through(x)
    np.testing.assert_array_equal(again, [4, 5, 6])
    np.testing.assert_array_equal(constant_again, [1, 2])


def test_jax_arrays_are_accepted_and_unchanged() -> None:
    jnp = pytest.importorskip("jax.numpy")
    insert = dlbridge.compile(INSERT)
    x = jnp.asarray([1, 2, 3], dtype=jnp.float32)
    np.testing.assert_array_equal(np.asarray(insert(x, 0)), [5, 2, 3])
    np.testing.assert_array_equal(np.asarray(x), [1, 2, 3])


def test_writable_argument_is_updated_in_place() -> None:
    fill = dlbridge.compile(WRITABLE)
    assert fill.signature["args"][0]["access"] == "read_write"
    x = np.zeros(3, np.float32)
    np.testing.assert_array_equal(fill(x), [7, 7, 7])
    np.testing.assert_array_equal(x, [7, 7, 7])
    with pytest.raises(BufferError, match=r"argument 0 'x': expected a writable tensor, got a READ_ONLY one"):
        fill(read_only([0, 0, 0]))
