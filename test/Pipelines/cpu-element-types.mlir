// Element types beyond f32: every f8 type with a sign and a zero (each
// code extended, values rounded to nearest even, arithmetic in f8), f16,
// bf16, complex<f32>/complex<f64> ops in linalg bodies, index arithmetic.
// NumPy has no f8 or bf16 dtype: those entries take and return their bits
// as int8/int16, and ml_dtypes (which JAX, a test requirement, brings)
// gives the reference. The CPU pipeline lowers and runs them (Fortran-order
// inputs where the signature admits strides), the CUDA pipeline compiles
// them through ptxas for sm_80 and sm_90.
// REQUIRES: numpy
// RUN: dl-opt %s --dlbridge-cpu-pipeline | FileCheck %s
// RUN: dl-opt %s --dlbridge-cuda-pipeline="chip=sm_80 format=cubin" -o /dev/null
// RUN: dl-opt %s --dlbridge-cuda-pipeline="chip=sm_90 format=cubin" -o /dev/null
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np, ml_dtypes as md; types = [md.float8_e4m3fn, md.float8_e5m2, md.float8_e4m3fnuz, md.float8_e5m2fnuz, md.float8_e4m3b11fnuz, md.float8_e4m3, md.float8_e3m4]; codes = np.arange(256).astype(np.uint8); np.save('%t/codes.npy', codes.view(np.int8)); grid = [np.sort(np.unique(v[np.isfinite(v)])) for v in (codes.view(t).astype(np.float64) for t in types)]; mids = np.concatenate([(g[:-1] + g[1:]) / 2 for g in grid]); rng = np.random.default_rng(5); x = np.concatenate(grid + [mids, np.nextafter(mids, np.inf), np.nextafter(mids, -np.inf), 1.5 * np.concatenate(grid), np.array([np.inf, -np.inf, np.nan, -0.0, 1e30, -1e30, 1e-30, 1e-45, 3.4e38]), rng.standard_normal(3000) * np.exp(rng.uniform(-25, 25, 3000))]); np.save('%t/x32.npy', x.astype(np.float32)); np.save('%t/x64.npy', x); np.save('%t/fa.npy', rng.standard_normal(64).astype(md.float8_e4m3fn).view(np.int8)); np.save('%t/fb.npy', rng.standard_normal(64).astype(md.float8_e4m3fn).view(np.int8)); np.save('%t/h.npy', rng.standard_normal(10).astype(np.float16)); np.save('%t/bf.npy', rng.standard_normal(10).astype(md.bfloat16).view(np.int16)); c = lambda *s: (rng.standard_normal(s) + 1j * rng.standard_normal(s)); np.save('%t/ca.npy', c(6).astype(np.complex64)); np.save('%t/cb.npy', c(6).astype(np.complex64)); cm = c(3, 4); np.save('%t/cm.npy', cm); np.save('%t/cmf.npy', np.asfortranarray(cm)); np.save('%t/cn.npy', c(4, 2)); np.save('%t/ix.npy', rng.integers(-100, 100, (3, 5)))"
// RUN: dl-run %s --entry f8_extend -i %t/codes.npy -o %t/e1.npy -o %t/e2.npy -o %t/e3.npy -o %t/e4.npy -o %t/e5.npy -o %t/e6.npy -o %t/e7.npy
// RUN: %python %S/check_small_floats.py extend %t/codes.npy float8_e4m3fn=%t/e1.npy float8_e5m2=%t/e2.npy float8_e4m3fnuz=%t/e3.npy float8_e5m2fnuz=%t/e4.npy float8_e4m3b11fnuz=%t/e5.npy float8_e4m3=%t/e6.npy float8_e3m4=%t/e7.npy
// RUN: dl-run %s --entry f8_truncate -i %t/x32.npy -i %t/x64.npy -o %t/t1.npy -o %t/t2.npy -o %t/t3.npy -o %t/t4.npy -o %t/t5.npy -o %t/t6.npy -o %t/t7.npy
// RUN: %python %S/check_small_floats.py truncate %t/x32.npy float8_e4m3fn=%t/t1.npy float8_e5m2=%t/t2.npy float8_e4m3fnuz=%t/t3.npy float8_e5m2fnuz=%t/t4.npy float8_e4m3b11fnuz=%t/t5.npy
// RUN: %python %S/check_small_floats.py truncate %t/x64.npy float8_e4m3=%t/t6.npy float8_e3m4=%t/t7.npy
// f8 arithmetic and math: each step rounded to f8.
// RUN: dl-run %s --entry f8_arith -i %t/fa.npy -i %t/fb.npy -o %t/fsum.npy
// RUN: %python %S/check_small_floats.py expmuladd %t/fa.npy %t/fb.npy float8_e4m3fn=%t/fsum.npy
// RUN: dl-run %s --entry halves -i %t/h.npy -i %t/bf.npy -o %t/h2.npy -o %t/bf2.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/h2.npy "np.exp(h * h)" h=%t/h.npy --rtol 2e-3
// RUN: %python %S/../Tools/dl-run/check.py %t/bf2.npy "np.tanh(2 * (b.view(np.uint16).astype(np.uint32) << 16).view(np.float32))" b=%t/bf.npy --rtol 1e-2
// RUN: dl-run %s --entry complex_map -i %t/ca.npy -i %t/cb.npy -o %t/cmap.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/cmap.npy "np.abs(np.log(np.sqrt(np.exp(a) * b) / b)) + np.tanh(a)" a=%t/ca.npy b=%t/cb.npy --rtol 1e-4
// RUN: dl-run %s --entry complex_matmul -i %t/cmf.npy -i %t/cn.npy -o %t/cmm.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/cmm.npy "m @ n" m=%t/cm.npy n=%t/cn.npy --rtol 1e-12
// RUN: dl-run %s --entry index_math -i %t/ix.npy -i 7 -o %t/ixr.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/ixr.npy "x + (np.arange(3)[:, None] * 5 + np.arange(5)) %% 7" x=%t/ix.npy

// CHECK-LABEL: llvm.func @f8_extend(
// CHECK-NOT: llvm.fpext {{.*}} : i8
// CHECK: llvm.zext %{{.*}} : i8 to i32
// CHECK-LABEL: llvm.func @f8_extend__dlpack(
func.func @f8_extend(%b: tensor<?xi8>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf64>) attributes {dlpack.entry} {
  %1 = arith.bitcast %b : tensor<?xi8> to tensor<?xf8E4M3FN>
  %2 = arith.bitcast %b : tensor<?xi8> to tensor<?xf8E5M2>
  %3 = arith.bitcast %b : tensor<?xi8> to tensor<?xf8E4M3FNUZ>
  %4 = arith.bitcast %b : tensor<?xi8> to tensor<?xf8E5M2FNUZ>
  %5 = arith.bitcast %b : tensor<?xi8> to tensor<?xf8E4M3B11FNUZ>
  %6 = arith.bitcast %b : tensor<?xi8> to tensor<?xf8E4M3>
  %7 = arith.bitcast %b : tensor<?xi8> to tensor<?xf8E3M4>
  %r1 = arith.extf %1 : tensor<?xf8E4M3FN> to tensor<?xf32>
  %r2 = arith.extf %2 : tensor<?xf8E5M2> to tensor<?xf32>
  %r3 = arith.extf %3 : tensor<?xf8E4M3FNUZ> to tensor<?xf32>
  %r4 = arith.extf %4 : tensor<?xf8E5M2FNUZ> to tensor<?xf32>
  %r5 = arith.extf %5 : tensor<?xf8E4M3B11FNUZ> to tensor<?xf32>
  %r6 = arith.extf %6 : tensor<?xf8E4M3> to tensor<?xf32>
  %r7 = arith.extf %7 : tensor<?xf8E3M4> to tensor<?xf64>
  return %r1, %r2, %r3, %r4, %r5, %r6, %r7 : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf64>
}

// CHECK-LABEL: llvm.func @f8_truncate(
// CHECK: llvm.trunc %{{.*}} : i32 to i8
// CHECK: llvm.trunc %{{.*}} : i64 to i8
func.func @f8_truncate(%x: tensor<?xf32>, %d: tensor<?xf64>) -> (tensor<?xi8>, tensor<?xi8>, tensor<?xi8>, tensor<?xi8>, tensor<?xi8>, tensor<?xi8>, tensor<?xi8>) attributes {dlpack.entry} {
  %1 = arith.truncf %x : tensor<?xf32> to tensor<?xf8E4M3FN>
  %2 = arith.truncf %x : tensor<?xf32> to tensor<?xf8E5M2>
  %3 = arith.truncf %x : tensor<?xf32> to tensor<?xf8E4M3FNUZ>
  %4 = arith.truncf %x : tensor<?xf32> to tensor<?xf8E5M2FNUZ>
  %5 = arith.truncf %x : tensor<?xf32> to tensor<?xf8E4M3B11FNUZ>
  %6 = arith.truncf %d : tensor<?xf64> to tensor<?xf8E4M3>
  %7 = arith.truncf %d : tensor<?xf64> to tensor<?xf8E3M4>
  %b1 = arith.bitcast %1 : tensor<?xf8E4M3FN> to tensor<?xi8>
  %b2 = arith.bitcast %2 : tensor<?xf8E5M2> to tensor<?xi8>
  %b3 = arith.bitcast %3 : tensor<?xf8E4M3FNUZ> to tensor<?xi8>
  %b4 = arith.bitcast %4 : tensor<?xf8E5M2FNUZ> to tensor<?xi8>
  %b5 = arith.bitcast %5 : tensor<?xf8E4M3B11FNUZ> to tensor<?xi8>
  %b6 = arith.bitcast %6 : tensor<?xf8E4M3> to tensor<?xi8>
  %b7 = arith.bitcast %7 : tensor<?xf8E3M4> to tensor<?xi8>
  return %b1, %b2, %b3, %b4, %b5, %b6, %b7 : tensor<?xi8>, tensor<?xi8>, tensor<?xi8>, tensor<?xi8>, tensor<?xi8>, tensor<?xi8>, tensor<?xi8>
}

// CHECK-LABEL: llvm.func @f8_arith(
// CHECK: llvm.fmul %{{.*}} : f32
func.func @f8_arith(%a: tensor<?xi8>, %b: tensor<?xi8>) -> tensor<?xi8> attributes {dlpack.entry} {
  %x = arith.bitcast %a : tensor<?xi8> to tensor<?xf8E4M3FN>
  %y = arith.bitcast %b : tensor<?xi8> to tensor<?xf8E4M3FN>
  %p = arith.mulf %x, %y : tensor<?xf8E4M3FN>
  %s = arith.addf %p, %x : tensor<?xf8E4M3FN>
  %e = math.exp %s : tensor<?xf8E4M3FN>
  %r = arith.bitcast %e : tensor<?xf8E4M3FN> to tensor<?xi8>
  return %r : tensor<?xi8>
}

// CHECK-LABEL: llvm.func @halves(
// CHECK: llvm.fmul %{{.*}} : f16
func.func @halves(%h: tensor<?xf16>, %b: tensor<?xi16>) -> (tensor<?xf16>, tensor<?xf32>) attributes {dlpack.entry} {
  %hh = arith.mulf %h, %h : tensor<?xf16>
  %e = math.exp %hh : tensor<?xf16>
  %bf = arith.bitcast %b : tensor<?xi16> to tensor<?xbf16>
  %twice = arith.addf %bf, %bf : tensor<?xbf16>
  %t = math.tanh %twice : tensor<?xbf16>
  %w = arith.extf %t : tensor<?xbf16> to tensor<?xf32>
  return %e, %w : tensor<?xf16>, tensor<?xf32>
}

// CHECK-LABEL: llvm.func @complex_map(
func.func @complex_map(%a: tensor<?xcomplex<f32>>, %b: tensor<?xcomplex<f32>>) -> tensor<?xcomplex<f32>> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xcomplex<f32>>
  %e = tensor.empty(%n) : tensor<?xcomplex<f32>>
  %r = linalg.map ins(%a, %b : tensor<?xcomplex<f32>>, tensor<?xcomplex<f32>>) outs(%e : tensor<?xcomplex<f32>>)
    (%x: complex<f32>, %y: complex<f32>, %o: complex<f32>) {
      %p = complex.exp %x : complex<f32>
      %q = complex.mul %p, %y : complex<f32>
      %s = complex.sqrt %q : complex<f32>
      %d = complex.div %s, %y : complex<f32>
      %l = complex.log %d : complex<f32>
      %ab = complex.abs %l : complex<f32>
      %z = arith.constant 0.0 : f32
      %c = complex.create %ab, %z : complex<f32>
      %t = complex.tanh %x : complex<f32>
      %u = complex.add %c, %t : complex<f32>
      linalg.yield %u : complex<f32>
    }
  return %r : tensor<?xcomplex<f32>>
}

// CHECK-LABEL: llvm.func @complex_matmul(
func.func @complex_matmul(%a: tensor<?x?xcomplex<f64>>, %b: tensor<?x?xcomplex<f64>>) -> tensor<?x?xcomplex<f64>> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xcomplex<f64>>
  %n = tensor.dim %b, %c1 : tensor<?x?xcomplex<f64>>
  %zero = complex.constant [0.0, 0.0] : complex<f64>
  %e = tensor.empty(%m, %n) : tensor<?x?xcomplex<f64>>
  %z = linalg.fill ins(%zero : complex<f64>) outs(%e : tensor<?x?xcomplex<f64>>) -> tensor<?x?xcomplex<f64>>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xcomplex<f64>>, tensor<?x?xcomplex<f64>>) outs(%z : tensor<?x?xcomplex<f64>>) -> tensor<?x?xcomplex<f64>>
  return %r : tensor<?x?xcomplex<f64>>
}

// Row-major linear index modulo an index-typed scalar, added to each element.
// CHECK-LABEL: llvm.func @index_math(
// CHECK: llvm.urem
func.func @index_math(%a: tensor<?x?xi64>, %k: index) -> tensor<?x?xi64> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xi64>
  %n = tensor.dim %a, %c1 : tensor<?x?xi64>
  %e = tensor.empty(%m, %n) : tensor<?x?xi64>
  %r = linalg.map ins(%a : tensor<?x?xi64>) outs(%e : tensor<?x?xi64>) (%x: i64, %o: i64) {
      %i = linalg.index 0 : index
      %j = linalg.index 1 : index
      %row = arith.muli %i, %n : index
      %l = arith.addi %row, %j : index
      %q = arith.remui %l, %k : index
      %w = arith.index_cast %q : index to i64
      %v = arith.addi %x, %w : i64
      linalg.yield %v : i64
  }
  return %r : tensor<?x?xi64>
}
