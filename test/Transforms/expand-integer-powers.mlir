// RUN: dl-opt %s --dlbridge-expand-integer-powers | FileCheck %s

// The expansion computes what the CPU pipeline's convert-math-to-funcs
// computes, every exponent sign included: run both on the CPU and compare
// (but for 0 to a negative power, which that divides by zero for; the
// expansion gives 0).
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; b, p = np.meshgrid(np.arange(-4, 5), np.arange(-3, 12)); keep = (b != 0) | (p >= 0); b, p = b[keep], p[keep]; np.save('%t/b.npy', np.append(b.ravel(), [3, 2, -2, 7]).astype(np.int64)); np.save('%t/p.npy', np.append(p.ravel(), [40, 62, 63, 5]).astype(np.int64))"
// RUN: dl-opt %s --dlbridge-expand-integer-powers -o %t/expanded.mlir
// RUN: dl-run %t/expanded.mlir --entry powers -i %t/b.npy -i %t/p.npy -o %t/expanded.npy
// RUN: dl-run %s --entry powers -i %t/b.npy -i %t/p.npy -o %t/funcs.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/expanded.npy "f" f=%t/funcs.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/expanded.npy "np.where(p >= 0, b ** np.maximum(p, 0), np.where(b == 1, 1, np.where(b == -1, 1 - 2 * (p % 2), 0)))" b=%t/b.npy p=%t/p.npy

// A scalar integer power by a run-time exponent: a square-and-multiply loop
// for exponents >= 0, selected against the negative exponents' results.

// CHECK-LABEL: func.func @power
// CHECK-SAME: (%[[B:.*]]: i64, %[[P:.*]]: i64)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[P]], %[[ZERO]] : i64
// CHECK: %[[BITS:.*]] = arith.select %[[NEG]], %[[ZERO]], %[[P]] : i64
// CHECK: %[[LOOP:.*]]:3 = scf.while (%{{.*}} = %[[ONE]], %{{.*}} = %[[B]], %{{.*}} = %[[BITS]])
// CHECK: arith.muli
// CHECK: arith.shrui
// CHECK-NOT: math.ipowi
// CHECK: %[[R:.*]] = arith.select %[[NEG]], %{{.*}}, %[[LOOP]]#0 : i64
// CHECK: return %[[R]]
func.func @power(%b: i64, %p: i64) -> i64 {
  %r = math.ipowi %b, %p : i64
  return %r : i64
}

// Vectors are left alone (the CUDA pipeline does not vectorize).

// CHECK-LABEL: func.func @vector
// CHECK: math.ipowi
func.func @vector(%b: vector<4xi32>, %p: vector<4xi32>) -> vector<4xi32> {
  %r = math.ipowi %b, %p : vector<4xi32>
  return %r : vector<4xi32>
}

// CHECK-LABEL: func.func @powers
#id = affine_map<(i) -> (i)>
func.func @powers(%b: tensor<?xi64> {dlpack.name = "b"}, %p: tensor<?xi64> {dlpack.name = "p"})
    -> (tensor<?xi64> {dlpack.name = "r"}) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %b, %c0 : tensor<?xi64>
  %init = tensor.empty(%n) : tensor<?xi64>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%b, %p : tensor<?xi64>, tensor<?xi64>) outs(%init : tensor<?xi64>) {
  ^bb0(%x: i64, %e: i64, %o: i64):
    %y = math.ipowi %x, %e : i64
    linalg.yield %y : i64
  } -> tensor<?xi64>
  return %r : tensor<?xi64>
}
