// Loops over tensors as a backend writes them: scf.for carrying a tensor it
// recomputes every iteration (iter_args), the same through scf.while, and a
// loop updating slices of its carried tensor in place. The CPU pipeline runs them against NumPy (the
// argument is left untouched, earlier iterations' buffers are freed), the
// CUDA pipeline compiles them through ptxas (the ownership flags that free
// the buffers a loop yields stay in host memory).
// REQUIRES: numpy
// RUN: dl-opt %s --dlbridge-cpu-pipeline | FileCheck %s
// RUN: dl-opt %s --dlbridge-cuda-pipeline="chip=sm_80 format=cubin" -o /dev/null
// RUN: dl-opt %s --dlbridge-cuda-pipeline="chip=sm_90 format=cubin" -o /dev/null
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; a = np.arange(12, dtype=np.float32).reshape(3, 4); np.save('%t/a.npy', a); np.save('%t/af.npy', np.asfortranarray(a))"
// RUN: dl-run %s --entry repeated_double -i %t/af.npy -i 3 -o %t/double.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/double.npy "a * 8 + 1" a=%t/a.npy
// RUN: dl-run %s --entry repeated_double -i %t/af.npy -i 0 -o %t/none.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/none.npy "a + 1" a=%t/a.npy
// RUN: dl-run %s --entry doubled_while -i %t/af.npy -i 3 -o %t/while.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/while.npy "a * 8" a=%t/a.npy
// RUN: dl-run %s --entry doubled_while -i %t/af.npy -i 0 -o %t/while0.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/while0.npy "a" a=%t/a.npy
// RUN: dl-run %s --entry prefix_rows -i %t/af.npy -o %t/prefix.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/prefix.npy "np.cumsum(a, axis=0)" a=%t/a.npy

// CHECK-LABEL: llvm.func @repeated_double(
func.func @repeated_double(%a: tensor<?x?xf32>, %n: index) -> tensor<?x?xf32>
    attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %d0 = tensor.dim %a, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %a, %c1 : tensor<?x?xf32>
  // a doubled n times, plus 1.
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> tensor<?x?xf32> {
    %s = arith.addf %acc, %acc : tensor<?x?xf32>
    scf.yield %s : tensor<?x?xf32>
  }
  %f = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %plus = linalg.map ins(%r : tensor<?x?xf32>) outs(%f : tensor<?x?xf32>)
    (%x: f32, %unused: f32) {
      %y = arith.addf %x, %one : f32
      linalg.yield %y : f32
    }
  return %plus : tensor<?x?xf32>
}

// A tensor carried through scf.while is an entry result as one carried
// through scf.for is; with no iteration it is a copy of the argument.
// CHECK-LABEL: llvm.func @doubled_while(
func.func @doubled_while(%a: tensor<?x?xf32>, %n: index) -> tensor<?x?xf32>
    attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.while (%i = %c0, %acc = %a)
      : (index, tensor<?x?xf32>) -> (index, tensor<?x?xf32>) {
    %more = arith.cmpi slt, %i, %n : index
    scf.condition(%more) %i, %acc : index, tensor<?x?xf32>
  } do {
  ^bb0(%j: index, %t: tensor<?x?xf32>):
    %s = arith.addf %t, %t : tensor<?x?xf32>
    %k = arith.addi %j, %c1 : index
    scf.yield %k, %s : index, tensor<?x?xf32>
  }
  return %r#1 : tensor<?x?xf32>
}

// CHECK-LABEL: llvm.func @prefix_rows(
func.func @prefix_rows(%a: tensor<?x4xf32>) -> tensor<?x4xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x4xf32>
  %r = scf.for %i = %c1 to %n step %c1 iter_args(%acc = %a) -> tensor<?x4xf32> {
    %prev_i = arith.subi %i, %c1 : index
    %prev = tensor.extract_slice %acc[%prev_i, 0] [1, 4] [1, 1] : tensor<?x4xf32> to tensor<4xf32>
    %row = tensor.extract_slice %acc[%i, 0] [1, 4] [1, 1] : tensor<?x4xf32> to tensor<4xf32>
    %e = tensor.empty() : tensor<4xf32>
    %sum = linalg.add ins(%prev, %row : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %next = tensor.insert_slice %sum into %acc[%i, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<?x4xf32>
    scf.yield %next : tensor<?x4xf32>
  }
  return %r : tensor<?x4xf32>
}
