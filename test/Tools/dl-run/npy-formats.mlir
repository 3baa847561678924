// .npy variants NumPy writes: format versions 1.0, 2.0 and 3.0, big-endian
// data, Fortran order, 0-d and empty arrays; in-place write-back keeps the
// file's order; results NumPy reads back.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; from numpy.lib import format as f; x = np.arange(6, dtype=np.float64).reshape(2, 3) - 2.5; [f.write_array(open('%t/v%%d.npy' %% v, 'wb'), x, version=(v, 0)) for v in (1, 2, 3)]; np.save('%t/big.npy', x.astype('>f8')); np.save('%t/fort.npy', np.asfortranarray(x)); np.save('%t/x.npy', x); np.save('%t/zero.npy', np.float64(1.75)); np.save('%t/empty.npy', np.zeros((0, 3)))"
// RUN: dl-run %s --entry scale -i %t/v1.npy -i 2 -o %t/o1.npy
// RUN: dl-run %s --entry scale -i %t/v2.npy -i 2 -o %t/o2.npy
// RUN: dl-run %s --entry scale -i %t/v3.npy -i 2 -o %t/o3.npy
// RUN: dl-run %s --entry scale -i %t/big.npy -i 2 -o %t/ob.npy
// RUN: dl-run %s --entry scale -i %t/fort.npy -i 2 -o %t/of.npy
// RUN: %python %S/check.py %t/o1.npy "2 * x" x=%t/x.npy | FileCheck %s
// RUN: %python %S/check.py %t/o2.npy "2 * x" x=%t/x.npy | FileCheck %s
// RUN: %python %S/check.py %t/o3.npy "2 * x" x=%t/x.npy | FileCheck %s
// RUN: %python %S/check.py %t/ob.npy "2 * x" x=%t/x.npy | FileCheck %s
// RUN: %python %S/check.py %t/of.npy "2 * x" x=%t/x.npy | FileCheck %s
// CHECK: ok: float64 (2, 3)

// Empty in, empty out.
// RUN: dl-run %s --entry scale -i %t/empty.npy -i 2 -o %t/oe.npy --print | FileCheck %s --check-prefix=EMPTY
// RUN: %python %S/check.py %t/oe.npy "np.zeros((0, 3))"
// EMPTY:      result 0 'y': float64 (0, 3)
// EMPTY-NEXT: []

// 0-d in, 0-d out.
// RUN: dl-run %s --entry scale0 -i %t/zero.npy -i -2 -o %t/oz.npy --print | FileCheck %s --check-prefix=ZERO
// RUN: %python %S/check.py %t/oz.npy "np.float64(-3.5)"
// ZERO:      result 0 'result0': float64 ()
// ZERO-NEXT: -3.5

// In place on a Fortran-order file: written back in Fortran order.
// RUN: cp %t/fort.npy %t/inplace.npy
// RUN: dl-run %s --entry negate -i %t/inplace.npy --write-back
// RUN: %python %S/check.py %t/inplace.npy "-x" x=%t/x.npy --order F | FileCheck %s

// --signature, '-o -' to skip a result, the kernel from stdin, --time.
// RUN: dl-run %s --entry scale --signature | FileCheck %s --check-prefix=SIG
// SIG: @scale(x: float64[?, ?], alpha: float64) -> (y: float64[?, ?])
// RUN: dl-run %s --entry negate --signature | FileCheck %s --check-prefix=SIG-INPLACE
// SIG-INPLACE: @negate(x: float64[?, ?] (written)) -> ()
// RUN: dl-run %s --entry scale -i %t/x.npy -i 1 -o - --print | FileCheck %s --check-prefix=SKIP
// SKIP: result 0 'y': float64 (2, 3)
// RUN: cat %s | dl-run - --entry scale -i %t/x.npy -i 3 -o %t/os.npy --time 3 | FileCheck %s --check-prefix=TIME
// RUN: %python %S/check.py %t/os.npy "3 * x" x=%t/x.npy | FileCheck %s
// TIME: time: 3 calls, min {{[0-9.]+}} us, median {{[0-9.]+}} us

#id = affine_map<(i, j) -> (i, j)>
func.func @scale(%x: tensor<?x?xf64> {dlpack.name = "x"}, %alpha: f64 {dlpack.name = "alpha"})
    -> (tensor<?x?xf64> {dlpack.name = "y"}) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf64>
  %n = tensor.dim %x, %c1 : tensor<?x?xf64>
  %init = tensor.empty(%m, %n) : tensor<?x?xf64>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x?xf64>) outs(%init : tensor<?x?xf64>) {
  ^bb0(%v: f64, %o: f64):
    %s = arith.mulf %v, %alpha : f64
    linalg.yield %s : f64
  } -> tensor<?x?xf64>
  return %y : tensor<?x?xf64>
}

func.func @scale0(%x: tensor<f64>, %alpha: f64) -> tensor<f64> attributes {dlpack.entry} {
  %v = tensor.extract %x[] : tensor<f64>
  %s = arith.mulf %v, %alpha : f64
  %r = tensor.from_elements %s : tensor<f64>
  return %r : tensor<f64>
}

// In place, at the memref level: any strides.
func.func @negate(%x: memref<?x?xf64, strided<[?, ?], offset: ?>> {dlpack.name = "x"})
    attributes {dlpack.entry} {
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%x : memref<?x?xf64, strided<[?, ?], offset: ?>>) {
  ^bb0(%v: f64):
    %n = arith.negf %v : f64
    linalg.yield %n : f64
  }
  return
}
