"""Backend IR whose indices come from data (a frontend's gather lowering, a
scatter) is bounds-checked in the generated code: an index out of range is
an ``IndexError`` naming the op, the index and the size, never garbage; in
range, the numbers are NumPy's. A tensor carried through ``scf.while`` is an
entry result as one carried through ``scf.for`` is."""

from __future__ import annotations

import dlbridge
import numpy as np
import pytest

GATHER = """
#id = affine_map<(d0) -> (d0)>
func.func @take(%x: tensor<?xf32> {dlpack.name = "x"}, %idx: tensor<?xi64> {dlpack.name = "idx"})
    -> tensor<?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %idx, %c0 : tensor<?xi64>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%idx : tensor<?xi64>) outs(%e : tensor<?xf32>) {
  ^bb0(%k: i64, %o: f32):
    %i = arith.index_cast %k : i64 to index
    %v = tensor.extract %x[%i] : tensor<?xf32>
    linalg.yield %v : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
"""

SCATTER = """
func.func @scatter(%dst: tensor<8xf32>, %idx: tensor<?xi64>, %v: tensor<?xf32>)
    -> tensor<8xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %idx, %c0 : tensor<?xi64>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %dst) -> tensor<8xf32> {
    %j = tensor.extract %idx[%i] : tensor<?xi64>
    %k = arith.index_cast %j : i64 to index
    %x = tensor.extract %v[%i] : tensor<?xf32>
    %u = tensor.insert %x into %acc[%k] : tensor<8xf32>
    scf.yield %u : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
"""

WHILE = """
func.func @double_while(%a: tensor<?xf64>, %n: index) -> tensor<?xf64> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.while (%i = %c0, %acc = %a) : (index, tensor<?xf64>) -> (index, tensor<?xf64>) {
    %more = arith.cmpi slt, %i, %n : index
    scf.condition(%more) %i, %acc : index, tensor<?xf64>
  } do {
  ^bb0(%j: index, %t: tensor<?xf64>):
    %s = arith.addf %t, %t : tensor<?xf64>
    %k = arith.addi %j, %c1 : index
    scf.yield %k, %s : index, tensor<?xf64>
  }
  return %r#1 : tensor<?xf64>
}
"""


def test_gather_in_range_gives_numpy_numbers() -> None:
    take = dlbridge.compile(GATHER)
    x = np.arange(10, dtype=np.float32) * 1.5
    idx = np.array([9, 0, 3, 3, 7], np.int64)
    # The checks read nothing but the index: read-only arguments stay welcome.
    x.setflags(write=False)
    idx.setflags(write=False)
    np.testing.assert_array_equal(np.asarray(take(x, idx)), x[idx])


@pytest.mark.parametrize("bad", [10, 2**40, -1])
def test_gather_out_of_range_is_index_error(bad: int) -> None:
    take = dlbridge.compile(GATHER)
    x = np.arange(10, dtype=np.float32)
    idx = np.array([1, bad, 2], np.int64)
    with pytest.raises(IndexError, match=rf"'tensor.extract' at .*: index {bad} is out of bounds "
                       r"for dimension #0 of operand #0 with size 10"):
        take(x, idx)
    # The next call with good indices is not affected.
    np.testing.assert_array_equal(np.asarray(take(x, idx[[0, 2]])), x[[1, 2]])


def test_scatter_checks_its_insert_and_leaves_arguments_untouched() -> None:
    scatter = dlbridge.compile(SCATTER)
    dst = np.zeros(8, np.float32)
    v = np.array([1.0, 2.0, 3.0], np.float32)
    expected = dst.copy()
    good = np.array([7, 0, 3], np.int64)
    expected[good] = v
    np.testing.assert_array_equal(np.asarray(scatter(dst, good, v)), expected)
    with pytest.raises(IndexError, match=r"'tensor.insert' at .*: index 8 is out of bounds "
                       r"for dimension #0 of operand #1 with size 8"):
        scatter(dst, np.array([7, 8, 3], np.int64), v)
    np.testing.assert_array_equal(dst, np.zeros(8, np.float32))


@pytest.mark.parametrize("n", [0, 1, 4])
def test_tensor_carried_through_scf_while_is_an_entry_result(n: int) -> None:
    double_while = dlbridge.compile(WHILE)
    a = np.arange(6, dtype=np.float64)
    out = np.asarray(double_while(a, n))
    np.testing.assert_array_equal(out, a * 2**n)
    np.testing.assert_array_equal(a, np.arange(6, dtype=np.float64))
    assert not np.shares_memory(out, a)
