// tensor.concat, and the relations between its inputs that bufferization
// trusts: checked at run time, so a mismatch is an error and never a write
// past the result's buffer.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/a.npy', np.arange(6, dtype=np.float32).reshape(2, 3)); np.save('%t/b.npy', -np.arange(9, dtype=np.float32).reshape(3, 3)); np.save('%t/wide.npy', np.ones((200, 300), np.float32))"
// RUN: dl-run %s -i %t/a.npy -i %t/b.npy -o %t/c.npy
// RUN: %python %S/check.py %t/c.npy "np.concatenate([a, b])" a=%t/a.npy b=%t/b.npy | FileCheck %s
// CHECK: ok: float32 (5, 3)

// RUN: not dl-run %s -i %t/a.npy -i %t/wide.npy -o %t/bad.npy 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: not test -e %t/bad.npy
// MISMATCH: dl-run: 'tensor.concat' at {{.*}}concat.mlir:[[@LINE+4]]:8: dimension #1 of input #1 differs from input #0's; operand shapes: (2, 3) (200, 300)

func.func @concat(%a: tensor<?x?xf32> {dlpack.name = "a"}, %b: tensor<?x?xf32> {dlpack.name = "b"})
    -> tensor<?x?xf32> attributes {dlpack.entry} {
  %c = tensor.concat dim(0) %a, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}
