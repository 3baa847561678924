// Indices read from data, as frontends lower gathers and scatters
// (linalg.generic + linalg.index + tensor.extract at an index loaded from
// another tensor; memref-level loads and stores): in range, NumPy's
// numbers; out of range (too large or negative), the call fails with the
// op, the index and the size instead of reading or writing past the buffer.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.arange(10, dtype=np.float32) * 1.5); np.save('%t/table.npy', np.arange(12, dtype=np.float32).reshape(4, 3)); np.save('%t/i.npy', np.array([3, 0, 9, 2, 9], np.int64)); np.save('%t/rows.npy', np.array([3, 0, 2], np.int32)); np.save('%t/big.npy', np.array([3, 0, 10, 2], np.int64)); np.save('%t/neg.npy', np.array([3, -1], np.int64)); np.save('%t/badrows.npy', np.array([1, 4], np.int32)); np.save('%t/bins.npy', np.zeros(10, np.int64))"

// RUN: dl-run %s --entry take -i %t/x.npy -i %t/i.npy -o %t/take.npy
// RUN: %python %S/check.py %t/take.npy "x[i]" x=%t/x.npy i=%t/i.npy
// RUN: not dl-run %s --entry take -i %t/x.npy -i %t/big.npy 2>&1 | FileCheck %s --check-prefix=BIG
// BIG: dl-run: 'tensor.extract' at {{.*}}data-indices.mlir:[[@LINE+28]]:10: index 10 is out of bounds for dimension #0 of operand #0 with size 10
// RUN: not dl-run %s --entry take -i %t/x.npy -i %t/neg.npy 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: dl-run: 'tensor.extract' at {{.*}}: index -1 is out of bounds for dimension #0 of operand #0 with size 10

// RUN: dl-run %s --entry embed -i %t/table.npy -i %t/rows.npy -o %t/embed.npy
// RUN: %python %S/check.py %t/embed.npy "t[r]" t=%t/table.npy r=%t/rows.npy
// RUN: not dl-run %s --entry embed -i %t/table.npy -i %t/badrows.npy 2>&1 | FileCheck %s --check-prefix=ROWS
// ROWS: dl-run: 'tensor.extract' at {{.*}}: index 4 is out of bounds for dimension #0 of operand #0 with size 4

// A memref-level histogram: the store's index comes from data too.
// RUN: dl-run %s --entry histogram -i %t/i.npy -i %t/bins.npy -o %t/hist.npy
// RUN: %python %S/check.py %t/hist.npy "np.bincount(i, minlength=10)" i=%t/i.npy
// RUN: not dl-run %s --entry histogram -i %t/big.npy -i %t/bins.npy 2>&1 | FileCheck %s --check-prefix=HIST
// HIST: dl-run: 'memref.load' at {{.*}}: index 10 is out of bounds for dimension #0 of operand #0 with size 10

#id = affine_map<(d0) -> (d0)>
#rows = affine_map<(d0, d1) -> (d0)>
#out = affine_map<(d0, d1) -> (d0, d1)>

func.func @take(%x: tensor<?xf32>, %idx: tensor<?xi64>) -> tensor<?xf32>
    attributes {dlpack.entry} {
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

func.func @embed(%table: tensor<?x3xf32>, %idx: tensor<?xi32>) -> tensor<?x3xf32>
    attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %idx, %c0 : tensor<?xi32>
  %e = tensor.empty(%n) : tensor<?x3xf32>
  %r = linalg.generic {indexing_maps = [#rows, #out],
                       iterator_types = ["parallel", "parallel"]}
      ins(%idx : tensor<?xi32>) outs(%e : tensor<?x3xf32>) {
  ^bb0(%k: i32, %o: f32):
    %i = arith.index_cast %k : i32 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %table[%i, %j] : tensor<?x3xf32>
    linalg.yield %v : f32
  } -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

func.func @histogram(%idx: memref<?xi64>, %bins: memref<10xi64>) -> memref<10xi64>
    attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i64
  %n = memref.dim %idx, %c0 : memref<?xi64>
  %out = memref.alloc() : memref<10xi64>
  memref.copy %bins, %out : memref<10xi64> to memref<10xi64>
  scf.for %i = %c0 to %n step %c1 {
    %k = memref.load %idx[%i] : memref<?xi64>
    %b = arith.index_cast %k : i64 to index
    %old = memref.load %out[%b] : memref<10xi64>
    %new = arith.addi %old, %one : i64
    memref.store %new, %out[%b] : memref<10xi64>
  }
  return %out : memref<10xi64>
}
