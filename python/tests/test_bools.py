"""NumPy bool arrays through ``dlbridge.compile``: DLPack bools are one byte
each, on scalar, vector and linalg paths alike."""

from __future__ import annotations

import dlbridge
import numpy as np

# y[i:i+8] = not x[i:i+8] with vector loads and stores, then the tail
# element by element.
VECTOR_NOT = """
func.func @vector_not(%x: memref<?xi1> {dlpack.name = "x"}, %y: memref<?xi1> {dlpack.name = "y"}) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %true = arith.constant true
  %trues = arith.constant dense<true> : vector<8xi1>
  %n = memref.dim %x, %c0 : memref<?xi1>
  %rem = arith.remui %n, %c8 : index
  %body = arith.subi %n, %rem : index
  scf.for %i = %c0 to %body step %c8 {
    %v = vector.load %x[%i] : memref<?xi1>, vector<8xi1>
    %w = arith.xori %v, %trues : vector<8xi1>
    vector.store %w, %y[%i] : memref<?xi1>, vector<8xi1>
  }
  scf.for %i = %body to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xi1>
    %w = arith.xori %v, %true : i1
    memref.store %w, %y[%i] : memref<?xi1>
  }
  return
}
"""

# Elementwise on bool tensors: a fresh bool result.
GREATER_AND = """
func.func @greater_and(%a: tensor<?xf32>, %b: tensor<?xf32>, %m: tensor<?xi1>) -> tensor<?xi1> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %init = tensor.empty(%n) : tensor<?xi1>
  %r = linalg.map ins(%a, %b, %m : tensor<?xf32>, tensor<?xf32>, tensor<?xi1>) outs(%init : tensor<?xi1>)
    (%x: f32, %y: f32, %k: i1, %o: i1) {
      %g = arith.cmpf ogt, %x, %y : f32
      %v = arith.andi %g, %k : i1
      linalg.yield %v : i1
    }
  return %r : tensor<?xi1>
}
"""


def test_vector_loads_and_stores_of_bools_are_bytes() -> None:
    vector_not = dlbridge.compile(VECTOR_NOT)
    x = np.array([1, 1, 1, 1, 0, 0, 0, 1, 0, 1, 1], dtype=bool)
    y = np.zeros_like(x)
    vector_not(x, y)
    np.testing.assert_array_equal(y, ~x)
    assert set(y.view(np.uint8).tolist()) <= {0, 1}


def test_linalg_on_bools_returns_a_numpy_bool_array() -> None:
    greater_and = dlbridge.compile(GREATER_AND)
    rng = np.random.default_rng(3)
    a = rng.standard_normal(37).astype(np.float32)
    b = rng.standard_normal(37).astype(np.float32)
    m = rng.integers(0, 2, 37).astype(bool)
    out = greater_and(a, b, m)
    assert out.dtype == np.bool_
    np.testing.assert_array_equal(out, (a > b) & m)
    np.testing.assert_array_equal(greater_and(a[::-2], b[::-2], m[::-2]), (a[::-2] > b[::-2]) & m[::-2])
