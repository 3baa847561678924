// Dtypes through the tensor-level path (int32 with an i32 scalar, float64
// with 0-d and scalar results, bool, float16, complex64) and a memref-level
// entry for uint8 (dlpack.dtype marks the i8 memrefs unsigned) with an
// index scalar.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/i1.npy', np.array([1, -2, 2**30, 7], np.int32)); np.save('%t/i2.npy', np.array([10, 20, 1, -3], np.int32)); np.save('%t/d.npy', np.arange(6, dtype=np.float64).reshape(2, 3) / 3); np.save('%t/b1.npy', np.array([True, False, True, False])); np.save('%t/b2.npy', np.array([True, True, False, False])); np.save('%t/h.npy', np.array([1.5, -2, 3.25], np.float16)); np.save('%t/c.npy', np.array([1+2j, 3-1j], np.complex64)); np.save('%t/u8.npy', np.array([1, 100, 200, 255], np.uint8)); np.save('%t/u8out.npy', np.zeros(4, np.uint8))"

// int32, wrapping like NumPy's int32 arithmetic.
// RUN: dl-run %s --entry add_i32 -i %t/i1.npy -i %t/i2.npy -i -3 -o %t/ri.npy
// RUN: %python %S/check.py %t/ri.npy "a + b * np.int32(-3)" a=%t/i1.npy b=%t/i2.npy | FileCheck %s --check-prefix=I32
// I32: ok: int32 (4,)

// float64: a 0-d tensor result and a scalar result, both written as 0-d arrays.
// RUN: dl-run %s --entry sum_f64 -i %t/d.npy -o %t/s.npy -o %t/v.npy --print | FileCheck %s --check-prefix=F64
// RUN: %python %S/check.py %t/s.npy "d.sum()" d=%t/d.npy | FileCheck %s --check-prefix=F64-OK
// RUN: %python %S/check.py %t/v.npy "d.sum()" d=%t/d.npy | FileCheck %s --check-prefix=F64-OK
// F64:      result 0 'total': float64 ()
// F64-NEXT: 5.
// F64-NEXT: result 1 'result1': float64 ()
// F64-NEXT: 5.
// F64-OK: ok: float64 ()

// bool
// RUN: dl-run %s --entry xor_bool -i %t/b1.npy -i %t/b2.npy -o %t/rb.npy --print | FileCheck %s --check-prefix=BOOL
// RUN: %python %S/check.py %t/rb.npy "a ^ b" a=%t/b1.npy b=%t/b2.npy
// BOOL: [False  True  True False]

// float16 and complex64
// RUN: dl-run %s --entry twice_f16 -i %t/h.npy -o %t/rh.npy
// RUN: %python %S/check.py %t/rh.npy "h + h" h=%t/h.npy | FileCheck %s --check-prefix=F16
// F16: ok: float16 (3,)
// RUN: dl-run %s --entry square_c64 -i %t/c.npy -o %t/rc.npy
// RUN: %python %S/check.py %t/rc.npy "c * c" c=%t/c.npy | FileCheck %s --check-prefix=C64
// C64: ok: complex64 (2,)

// uint8, written in place: without --write-back the file is left alone.
// RUN: dl-run %s --entry scale_u8 -i %t/u8.npy -i %t/u8out.npy -i 3 --print | FileCheck %s --check-prefix=U8
// U8:      argument 1 'out' (written): uint8 (4,)
// U8-NEXT: [  3  44  88 253]
// RUN: %python %S/check.py %t/u8out.npy "np.zeros(4, np.uint8)"
// RUN: dl-run %s --entry scale_u8 -i %t/u8.npy -i %t/u8out.npy -i 3 --write-back
// RUN: %python %S/check.py %t/u8out.npy "x * np.uint8(3)" x=%t/u8.npy | FileCheck %s --check-prefix=U8-OK
// U8-OK: ok: uint8 (4,)

// A uint8 file for an int8 parameter is a dtype mismatch.
// RUN: not dl-run %s --entry scale_u8 -i %t/u8.npy -i %t/i1.npy -i 3 2>&1 | FileCheck %s --check-prefix=U8-BAD
// U8-BAD: dl-run: argument 1 'out': expected uint8, got int32

#id = affine_map<(i) -> (i)>
func.func @add_i32(%x: tensor<?xi32>, %y: tensor<?xi32>, %k: i32) -> tensor<?xi32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xi32>
  %init = tensor.empty(%n) : tensor<?xi32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<?xi32>, tensor<?xi32>) outs(%init : tensor<?xi32>) {
  ^bb0(%a: i32, %b: i32, %o: i32):
    %m = arith.muli %b, %k : i32
    %s = arith.addi %a, %m : i32
    linalg.yield %s : i32
  } -> tensor<?xi32>
  return %r : tensor<?xi32>
}
func.func @sum_f64(%x: tensor<?x?xf64>) -> (tensor<f64> {dlpack.name = "total"}, f64) attributes {dlpack.entry} {
  %zero = arith.constant 0.0 : f64
  %init = tensor.empty() : tensor<f64>
  %acc = linalg.fill ins(%zero : f64) outs(%init : tensor<f64>) -> tensor<f64>
  %r = linalg.reduce ins(%x : tensor<?x?xf64>) outs(%acc : tensor<f64>) dimensions = [0, 1]
    (%in: f64, %a: f64) {
      %s = arith.addf %in, %a : f64
      linalg.yield %s : f64
    }
  %v = tensor.extract %r[] : tensor<f64>
  return %r, %v : tensor<f64>, f64
}
func.func @xor_bool(%x: tensor<?xi1>, %y: tensor<?xi1>) -> tensor<?xi1> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xi1>
  %init = tensor.empty(%n) : tensor<?xi1>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<?xi1>, tensor<?xi1>) outs(%init : tensor<?xi1>) {
  ^bb0(%a: i1, %b: i1, %o: i1):
    %s = arith.xori %a, %b : i1
    linalg.yield %s : i1
  } -> tensor<?xi1>
  return %r : tensor<?xi1>
}
func.func @twice_f16(%x: tensor<?xf16>) -> tensor<?xf16> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf16>
  %init = tensor.empty(%n) : tensor<?xf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf16>) outs(%init : tensor<?xf16>) {
  ^bb0(%a: f16, %o: f16):
    %s = arith.addf %a, %a : f16
    linalg.yield %s : f16
  } -> tensor<?xf16>
  return %r : tensor<?xf16>
}
func.func @square_c64(%x: tensor<?xcomplex<f32>>) -> tensor<?xcomplex<f32>> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xcomplex<f32>>
  %init = tensor.empty(%n) : tensor<?xcomplex<f32>>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xcomplex<f32>>) outs(%init : tensor<?xcomplex<f32>>) {
  ^bb0(%a: complex<f32>, %o: complex<f32>):
    %s = complex.mul %a, %a : complex<f32>
    linalg.yield %s : complex<f32>
  } -> tensor<?xcomplex<f32>>
  return %r : tensor<?xcomplex<f32>>
}

func.func @scale_u8(%x: memref<?xi8, strided<[?], offset: ?>> {dlpack.dtype = #dlpack.dtype<uint, 8>},
                     %out: memref<?xi8, strided<[?], offset: ?>> {dlpack.name = "out", dlpack.dtype = #dlpack.dtype<uint, 8>},
                     %n: index) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %len = memref.dim %x, %c0 : memref<?xi8, strided<[?], offset: ?>>
  %k = arith.index_cast %n : index to i8
  scf.for %i = %c0 to %len step %c1 {
    %v = memref.load %x[%i] : memref<?xi8, strided<[?], offset: ?>>
    %d = arith.muli %v, %k : i8
    memref.store %d, %out[%i] : memref<?xi8, strided<[?], offset: ?>>
  }
  return
}
