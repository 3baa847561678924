// arith and math ops applied to whole tensors (convert-elementwise-to-linalg):
// floats, integers of every width, bools and select. The CPU pipeline lowers
// and runs them (Fortran-order inputs where the signature admits strides),
// the CUDA pipeline compiles them through ptxas for sm_80 and sm_90.
// REQUIRES: numpy
// RUN: dl-opt %s --dlbridge-cpu-pipeline | FileCheck %s
// RUN: dl-opt %s --dlbridge-cuda-pipeline="chip=sm_80 format=cubin" -o /dev/null
// RUN: dl-opt %s --dlbridge-cuda-pipeline="chip=sm_90 format=cubin" -o /dev/null
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; rng = np.random.default_rng(3); a = rng.standard_normal((3, 4)).astype(np.float32); b = rng.standard_normal((3, 4)).astype(np.float32); np.save('%t/a.npy', a); np.save('%t/af.npy', np.asfortranarray(a)); np.save('%t/b.npy', b); np.save('%t/d.npy', rng.standard_normal(7)); np.save('%t/i8.npy', rng.integers(-128, 128, 9).astype(np.int8)); np.save('%t/i16.npy', rng.integers(-300, 300, 9).astype(np.int16)); np.save('%t/i64.npy', rng.integers(1, 50, 9).astype(np.int64) * rng.choice([-1, 1], 9)); np.save('%t/p.npy', rng.random(8) < 0.5); np.save('%t/q.npy', rng.random(8) < 0.5); np.save('%t/x.npy', rng.integers(-9, 9, 8).astype(np.int32))"
// RUN: dl-run %s --entry float_chain -i %t/af.npy -i %t/b.npy -o %t/chain.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/chain.npy "np.exp(a + b) * np.abs(a) - np.maximum(a, b)" a=%t/a.npy b=%t/b.npy --rtol 1e-5
// RUN: dl-run %s --entry f64_math -i %t/d.npy -o %t/f64.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/f64.npy "np.tanh(d) / (np.sqrt(d * d + 1.0) + np.floor(d))" d=%t/d.npy --rtol 1e-12
// RUN: dl-run %s --entry integers -i %t/i8.npy -i %t/i16.npy -i %t/i64.npy -o %t/q64.npy -o %t/s8.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/q64.npy "np.trunc((a.astype(np.int16) * b).astype(np.uint16).astype(np.int64) / c).astype(np.int64)" a=%t/i8.npy b=%t/i16.npy c=%t/i64.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/s8.npy "np.right_shift(np.trunc((a.astype(np.int16) * b).astype(np.uint16).astype(np.int64) / c).astype(np.int64).astype(np.int8), np.clip(a, 0, 7))" a=%t/i8.npy b=%t/i16.npy c=%t/i64.npy
// RUN: dl-run %s --entry bools -i %t/p.npy -i %t/q.npy -i %t/x.npy -o %t/logic.npy -o %t/picked.npy -o %t/less.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/logic.npy "(p | q) ^ p" p=%t/p.npy q=%t/q.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/picked.npy "np.where((p | q) ^ p, x, -x)" p=%t/p.npy q=%t/q.npy x=%t/x.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/less.npy "x < 0" x=%t/x.npy

// CHECK-LABEL: llvm.func @float_chain(
// CHECK: llvm.fadd
// CHECK-LABEL: llvm.func @float_chain__dlpack(
func.func @float_chain(%a: tensor<?x?xf32> {dlpack.name = "a"}, %b: tensor<?x?xf32> {dlpack.name = "b"}) -> tensor<?x?xf32> attributes {dlpack.entry} {
  %s = arith.addf %a, %b : tensor<?x?xf32>
  %e = math.exp %s : tensor<?x?xf32>
  %m = math.absf %a : tensor<?x?xf32>
  %p = arith.mulf %e, %m : tensor<?x?xf32>
  %x = arith.maximumf %a, %b : tensor<?x?xf32>
  %r = arith.subf %p, %x : tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// CHECK-LABEL: llvm.func @f64_math(
// CHECK: llvm.intr.tanh
func.func @f64_math(%d: tensor<?xf64>) -> tensor<?xf64> attributes {dlpack.entry} {
  %t = math.tanh %d : tensor<?xf64>
  %q = arith.mulf %d, %d : tensor<?xf64>
  %one = arith.constant dense<1.0> : tensor<7xf64>
  %ones = tensor.cast %one : tensor<7xf64> to tensor<?xf64>
  %q1 = arith.addf %q, %ones : tensor<?xf64>
  %s = math.sqrt %q1 : tensor<?xf64>
  %f = math.floor %d : tensor<?xf64>
  %den = arith.addf %s, %f : tensor<?xf64>
  %r = arith.divf %t, %den : tensor<?xf64>
  return %r : tensor<?xf64>
}

// i8 * i16 in i16, zero-extended to i64 and divided (signed) there, then
// truncated to i8 and shifted right (arithmetic) by the first operand
// clamped to [0, 7].
// CHECK-LABEL: llvm.func @integers(
// CHECK: llvm.sdiv
// CHECK: llvm.ashr
func.func @integers(%a: tensor<?xi8>, %b: tensor<?xi16>, %c: tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi8>) attributes {dlpack.entry} {
  %a16 = arith.extsi %a : tensor<?xi8> to tensor<?xi16>
  %s = arith.muli %a16, %b : tensor<?xi16>
  %s64 = arith.extui %s : tensor<?xi16> to tensor<?xi64>
  %r = arith.divsi %s64, %c : tensor<?xi64>
  %t = arith.trunci %r : tensor<?xi64> to tensor<?xi8>
  %zero = arith.constant dense<0> : tensor<9xi8>
  %seven = arith.constant dense<7> : tensor<9xi8>
  %z = tensor.cast %zero : tensor<9xi8> to tensor<?xi8>
  %sv = tensor.cast %seven : tensor<9xi8> to tensor<?xi8>
  %lo = arith.maxsi %a, %z : tensor<?xi8>
  %k = arith.minsi %lo, %sv : tensor<?xi8>
  %u = arith.shrsi %t, %k : tensor<?xi8>
  return %r, %u : tensor<?xi64>, tensor<?xi8>
}

// CHECK-LABEL: llvm.func @bools(
// CHECK: llvm.xor
func.func @bools(%p: tensor<?xi1>, %q: tensor<?xi1>, %x: tensor<?xi32>) -> (tensor<?xi1>, tensor<?xi32>, tensor<?xi1>) attributes {dlpack.entry} {
  %o = arith.ori %p, %q : tensor<?xi1>
  %n = arith.xori %o, %p : tensor<?xi1>
  %zero = arith.constant dense<0> : tensor<8xi32>
  %z = tensor.cast %zero : tensor<8xi32> to tensor<?xi32>
  %neg = arith.subi %z, %x : tensor<?xi32>
  %s = arith.select %n, %x, %neg : tensor<?xi1>, tensor<?xi32>
  %l = arith.cmpi slt, %x, %z : tensor<?xi32>
  return %n, %s, %l : tensor<?xi1>, tensor<?xi32>, tensor<?xi1>
}
