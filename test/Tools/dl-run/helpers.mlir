// An entry that returns what a private helper computes, called in a loop
// with a loop-carried tensor: the result is the helper's buffer (or, for no
// iteration, a copy of the argument), and a mismatch found in the helper
// ends the call.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/a.npy', np.arange(5, dtype=np.float32)); np.save('%t/b.npy', np.full(5, 0.5, np.float32)); np.save('%t/short.npy', np.ones(2, np.float32))"
// RUN: dl-run %s -i %t/a.npy -i %t/b.npy -i 3 -o %t/r.npy
// RUN: %python %S/check.py %t/r.npy "a + 3 * b" a=%t/a.npy b=%t/b.npy | FileCheck %s
// RUN: dl-run %s -i %t/a.npy -i %t/b.npy -i 0 -o %t/r0.npy
// RUN: %python %S/check.py %t/r0.npy "a" a=%t/a.npy | FileCheck %s
// CHECK: ok: float32 (5,)

// RUN: not dl-run %s -i %t/a.npy -i %t/short.npy -i 3 2>&1 | FileCheck %s --check-prefix=MISMATCH
// MISMATCH: dl-run: 'linalg.add' at {{.*}}helpers.mlir:[[@LINE+3]]:8: dimension #0 of input/output operand #1 is incompatible with inferred dimension size; operand shapes: (5,) (2,) (5,)

func.func private @add(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.add ins(%x, %y : tensor<?xf32>, tensor<?xf32>) outs(%x : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @accumulate(%a: tensor<?xf32> {dlpack.name = "a"}, %b: tensor<?xf32> {dlpack.name = "b"},
                      %n: index {dlpack.name = "n"}) -> tensor<?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> tensor<?xf32> {
    %s = func.call @add(%acc, %b) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    scf.yield %s : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}
