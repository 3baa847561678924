// Private helpers and func.call, memref- and tensor-level: a helper that
// returns a view of its argument (not a copy: the entry writes through it),
// calls three deep, recursion, and helpers returning their tensor argument.
// The entry's parameters stay read-only unless it writes them.
// REQUIRES: numpy
// RUN: dl-opt %s --split-input-file --dlbridge-cpu-pipeline | FileCheck %s

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(5); np.save('%t/m.npy', r.standard_normal((3, 5)).astype(np.float32)); np.save('%t/d.npy', r.standard_normal(100)); np.save('%t/x.npy', r.standard_normal(7).astype(np.float32)); np.save('%t/y.npy', r.standard_normal(7).astype(np.float32))"
// RUN: cp %t/m.npy %t/negated.npy
// RUN: dl-run %s --entry negate_last_row -i %t/negated.npy --write-back
// RUN: %python %S/../Tools/dl-run/check.py %t/negated.npy "np.concatenate([m[:-1], -m[-1:]])" m=%t/m.npy | FileCheck %s --check-prefix=OK
// RUN: dl-run %s --entry recursive_sum -i %t/d.npy -o %t/sum.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/sum.npy "d.sum()" d=%t/d.npy --rtol 1e-12 | FileCheck %s --check-prefix=OK
// RUN: dl-run %s --entry tensor_calls -i %t/x.npy -i %t/y.npy -o %t/r.npy -o %t/same.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/r.npy "x * x + y" x=%t/x.npy y=%t/y.npy | FileCheck %s --check-prefix=OK
// RUN: %python %S/../Tools/dl-run/check.py %t/same.npy "x" x=%t/x.npy | FileCheck %s --check-prefix=OK
// OK: ok:
// RUN: dl-run %s --entry negate_last_row --signature | FileCheck %s --check-prefix=WRITTEN
// RUN: dl-run %s --entry tensor_calls --signature | FileCheck %s --check-prefix=READ
// WRITTEN: @negate_last_row(arg0: float32[?, ?] (written)) -> ()
// READ: @tensor_calls(arg0: float32[?], arg1: float32[?]) -> (result0: float32[?], result1: float32[?])

// Memref level: a helper returning a view of its argument, called through
// another helper; the entry writes through the view, which no pass may
// replace with a copy.

// CHECK-LABEL: llvm.func @row(
// CHECK-NOT: llvm.call @_mlir_memref_to_llvm_alloc
// CHECK: llvm.return
func.func private @row(%m: memref<?x?xf32>, %i: index) -> memref<?xf32, strided<[1], offset: ?>> {
  %c1 = arith.constant 1 : index
  %n = memref.dim %m, %c1 : memref<?x?xf32>
  %r = memref.subview %m[%i, 0] [1, %n] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
  return %r : memref<?xf32, strided<[1], offset: ?>>
}

func.func private @last_row(%m: memref<?x?xf32>) -> memref<?xf32, strided<[1], offset: ?>> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %m, %c0 : memref<?x?xf32>
  %l = arith.subi %n, %c1 : index
  %r = func.call @row(%m, %l) : (memref<?x?xf32>, index) -> memref<?xf32, strided<[1], offset: ?>>
  return %r : memref<?xf32, strided<[1], offset: ?>>
}

// CHECK-LABEL: llvm.func @negate_last_row(
// CHECK: llvm.call @last_row
// CHECK-NOT: llvm.call @_mlir_memref_to_llvm_alloc
// CHECK: llvm.store
// CHECK-LABEL: llvm.func @negate_last_row__dlpack(
func.func @negate_last_row(%m: memref<?x?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = func.call @last_row(%m) : (memref<?x?xf32>) -> memref<?xf32, strided<[1], offset: ?>>
  %n = memref.dim %r, %c0 : memref<?xf32, strided<[1], offset: ?>>
  scf.for %j = %c0 to %n step %c1 {
    %v = memref.load %r[%j] : memref<?xf32, strided<[1], offset: ?>>
    %w = arith.negf %v : f32
    memref.store %w, %r[%j] : memref<?xf32, strided<[1], offset: ?>>
  }
  return
}

// -----

// Recursion: the sum of a[i:] as a[i] + sum(a[i+1:]).

// CHECK-LABEL: llvm.func @suffix_sum(
// CHECK: llvm.call @suffix_sum
func.func private @suffix_sum(%a: memref<?xf64>, %i: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf64>
  %done = arith.cmpi sge, %i, %n : index
  %r = scf.if %done -> f64 {
    %zero = arith.constant 0.0 : f64
    scf.yield %zero : f64
  } else {
    %v = memref.load %a[%i] : memref<?xf64>
    %next = arith.addi %i, %c1 : index
    %rest = func.call @suffix_sum(%a, %next) : (memref<?xf64>, index) -> f64
    %s = arith.addf %v, %rest : f64
    scf.yield %s : f64
  }
  return %r : f64
}

// CHECK-LABEL: llvm.func @recursive_sum__dlpack(
func.func @recursive_sum(%a: memref<?xf64>) -> f64 attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %s = func.call @suffix_sum(%a, %c0) : (memref<?xf64>, index) -> f64
  return %s : f64
}

// -----

// Tensor level, three deep, with a helper that returns its argument;
// x stays read-only although it is passed on.

func.func private @identity(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}

func.func private @square(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %y = linalg.mul ins(%x, %x : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %z = func.call @identity(%y) : (tensor<?xf32>) -> tensor<?xf32>
  return %z : tensor<?xf32>
}

func.func private @square_plus(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %s = func.call @square(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.add ins(%s, %y : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// CHECK-LABEL: llvm.func @tensor_calls(
// CHECK: llvm.call @square_plus
// CHECK: llvm.call @identity
// CHECK-LABEL: llvm.func @tensor_calls__dlpack(
func.func @tensor_calls(%x: tensor<?xf32>, %y: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) attributes {dlpack.entry} {
  %r = func.call @square_plus(%x, %y) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %same = func.call @identity(%x) : (tensor<?xf32>) -> tensor<?xf32>
  return %r, %same : tensor<?xf32>, tensor<?xf32>
}
