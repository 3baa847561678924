// Elementwise with broadcasting: y = alpha * x + b, b a row broadcast over
// the rows of x, alpha a scalar argument.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.arange(12, dtype=np.float32).reshape(3, 4) - 5); np.save('%t/b.npy', np.array([[0.5, -1, 2, 10]], dtype=np.float32))"
// RUN: dl-run %s --entry axpb -i %t/x.npy -i 2.5 -i %t/b.npy -o %t/y.npy
// RUN: %python %S/check.py %t/y.npy "2.5 * x + b" x=%t/x.npy b=%t/b.npy | FileCheck %s --check-prefix=CHECK-Y
// CHECK-Y: ok: float32 (3, 4)

// The scalar: prefix, and the only entry found without --entry.
// RUN: dl-run %s -i %t/x.npy -i scalar:-1 -i %t/b.npy -o %t/y2.npy --print | FileCheck %s --check-prefix=PRINT
// RUN: %python %S/check.py %t/y2.npy "-x + b" x=%t/x.npy b=%t/b.npy
// PRINT:      result 0 'y': float32 (3, 4)
// PRINT-NEXT: {{\[\[}} 5.5  3.   5.  12. ]
// PRINT-NEXT: [ 1.5 -1.   1.   8. ]
// PRINT-NEXT: [-2.5 -5.  -3.   4. ]]

// A Fortran-order x is passed with column-major strides (no copy) and runs
// through the strided specialisation.
// RUN: %python -c "import numpy as np; np.save('%t/xf.npy', np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4)))"
// RUN: dl-run %s -i %t/xf.npy -i 0.5 -i %t/b.npy -o %t/y3.npy
// RUN: %python %S/check.py %t/y3.npy "0.5 * x + b" x=%t/xf.npy b=%t/b.npy

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (0, j)>
func.func @axpb(%x: tensor<?x?xf32> {dlpack.name = "x"}, %alpha: f32 {dlpack.name = "alpha"},
                %b: tensor<1x?xf32> {dlpack.name = "b"})
    -> (tensor<?x?xf32> {dlpack.name = "y"}) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %init = tensor.empty(%m, %n) : tensor<?x?xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<?x?xf32>, tensor<1x?xf32>) outs(%init : tensor<?x?xf32>) {
  ^bb0(%xv: f32, %bv: f32, %out: f32):
    %s = arith.mulf %xv, %alpha : f32
    %r = arith.addf %s, %bv : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
