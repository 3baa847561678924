// A dot product written as a loop over the first argument's size: a second
// argument of another size is refused before the loop runs (checked once,
// not per element), instead of being read out of bounds.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/a.npy', np.arange(1000, dtype=np.float32)); np.save('%t/b.npy', np.full(1000, 0.5, np.float32)); np.save('%t/short.npy', np.ones(3, np.float32))"
// RUN: dl-run %s -i %t/a.npy -i %t/b.npy --print | FileCheck %s
// CHECK: result 0 'dot': float32 ()
// CHECK-NEXT: 249750.{{$}}

// RUN: not dl-run %s -i %t/a.npy -i %t/short.npy 2>&1 | FileCheck %s --check-prefix=MISMATCH
// MISMATCH: dl-run: 'tensor.extract' at {{.*}}loop-accesses.mlir:[[@LINE+10]]:10: index #0 takes values from 0 to 999 in the loops around it, out of bounds of dimension #0; operand shapes: (3,)

func.func @dot(%a: tensor<?xf32> {dlpack.name = "a"}, %b: tensor<?xf32> {dlpack.name = "b"})
    -> (f32 {dlpack.name = "dot"}) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
    %x = tensor.extract %a[%i] : tensor<?xf32>
    %y = tensor.extract %b[%i] : tensor<?xf32>
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    scf.yield %s : f32
  }
  return %r : f32
}
