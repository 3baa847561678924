// A row reduction (sum over the last axis) and a row maximum.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; rng = np.random.default_rng(0); np.save('%t/x.npy', rng.standard_normal((5, 7)).astype(np.float32))"
// RUN: dl-run %s --entry row_sum -i %t/x.npy -o %t/sum.npy
// RUN: %python %S/check.py %t/sum.npy "x.sum(axis=1)" x=%t/x.npy --rtol 1e-5 | FileCheck %s
// RUN: dl-run %s --entry row_max -i %t/x.npy -o %t/max.npy
// RUN: %python %S/check.py %t/max.npy "x.max(axis=1)" x=%t/x.npy | FileCheck %s
// CHECK: ok: float32 (5,)

// Empty rows reduce to the identity.
// RUN: %python -c "import numpy as np; np.save('%t/e.npy', np.zeros((3, 0), np.float32))"
// RUN: dl-run %s --entry row_sum -i %t/e.npy -o %t/esum.npy
// RUN: %python %S/check.py %t/esum.npy "np.zeros(3, np.float32)" | FileCheck %s --check-prefix=EMPTY
// EMPTY: ok: float32 (3,)

func.func @row_sum(%x: tensor<?x?xf32>) -> tensor<?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty(%m) : tensor<?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.reduce ins(%x : tensor<?x?xf32>) outs(%acc : tensor<?xf32>) dimensions = [1]
    (%in: f32, %a: f32) {
      %s = arith.addf %in, %a : f32
      linalg.yield %s : f32
    }
  return %r : tensor<?xf32>
}

func.func @row_max(%x: tensor<?x?xf32>) -> tensor<?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %init = tensor.empty(%m) : tensor<?xf32>
  %acc = linalg.fill ins(%ninf : f32) outs(%init : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.reduce ins(%x : tensor<?x?xf32>) outs(%acc : tensor<?xf32>) dimensions = [1]
    (%in: f32, %a: f32) {
      %s = arith.maximumf %in, %a : f32
      linalg.yield %s : f32
    }
  return %r : tensor<?xf32>
}
