// A small linalg.matmul, with C- and Fortran-order operands.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; rng = np.random.default_rng(2); a = rng.standard_normal((4, 5)); b = rng.standard_normal((5, 3)); np.save('%t/a.npy', a.astype(np.float32)); np.save('%t/b.npy', b.astype(np.float32)); np.save('%t/af.npy', np.asfortranarray(a.astype(np.float32))); np.save('%t/bf.npy', np.asfortranarray(b.astype(np.float32)))"
// RUN: dl-run %s --entry matmul -i %t/a.npy -i %t/b.npy -o %t/c.npy
// RUN: %python %S/check.py %t/c.npy "a @ b" a=%t/a.npy b=%t/b.npy --rtol 1e-5 | FileCheck %s
// RUN: dl-run %s --entry matmul -i %t/af.npy -i %t/bf.npy -o %t/cf.npy
// RUN: %python %S/check.py %t/cf.npy "a @ b" a=%t/a.npy b=%t/b.npy --rtol 1e-5 | FileCheck %s
// RUN: dl-run %s --entry matmul -i %t/a.npy -i %t/bf.npy -o %t/cm.npy
// RUN: %python %S/check.py %t/cm.npy "a @ b" a=%t/a.npy b=%t/b.npy --rtol 1e-5 | FileCheck %s
// CHECK: ok: float32 (4, 3)

// Also when one is 0 (the iteration space is empty): NumPy refuses
// (4, 0) @ (5, 3), and so does the entry.
// RUN: %python -c "import numpy as np; np.save('%t/empty.npy', np.ones((4, 0), np.float32))"
// RUN: not dl-run %s --entry matmul -i %t/empty.npy -i %t/b.npy 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: dl-run: 'linalg.matmul' at {{.*}}matmul.mlir:[[@LINE+18]]:8: dimension #0 of input/output operand #1 is incompatible with inferred dimension size; operand shapes: (4, 0) (5, 3) (4, 3)

// The inner dimensions must agree: the generated code checks them at run
// time, and dl-run reports the mismatch with the actual shapes, writing
// nothing.
// RUN: not dl-run %s --entry matmul -i %t/a.npy -i %t/a.npy -o %t/bad.npy 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: not test -e %t/bad.npy
// MISMATCH: dl-run: 'linalg.matmul' at {{.*}}matmul.mlir:[[@LINE+11]]:8: dimension #0 of input/output operand #1 is incompatible with inferred dimension size; operand shapes: (4, 5) (4, 5) (4, 5)

func.func @matmul(%a: tensor<?x?xf32> {dlpack.name = "a"}, %b: tensor<?x?xf32> {dlpack.name = "b"})
    -> tensor<?x?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %c = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}
