// Tensor ops (pad, slices, reshapes, concat, generate, from_elements) and a
// linalg op whose outs is a read-only argument: the CPU pipeline lowers and
// runs them (Fortran-order inputs where the signature admits strides), the
// CUDA pipeline compiles them through ptxas for sm_80 and sm_90.
// REQUIRES: numpy
// RUN: dl-opt %s --dlbridge-cpu-pipeline | FileCheck %s
// RUN: dl-opt %s --dlbridge-cuda-pipeline="chip=sm_80 format=cubin" -o /dev/null
// RUN: dl-opt %s --dlbridge-cuda-pipeline="chip=sm_90 format=cubin" -o /dev/null
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; a = np.arange(20, dtype=np.float32).reshape(4, 5); np.save('%t/a.npy', a); np.save('%t/af.npy', np.asfortranarray(a)); np.save('%t/b.npy', np.full((2, 3), 100, np.float32)); np.save('%t/c.npy', np.arange(12, dtype=np.float32).reshape(3, 4)); np.save('%t/d.npy', -np.arange(9, dtype=np.float32).reshape(3, 3)); np.save('%t/e.npy', np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3))); np.save('%t/v.npy', np.arange(5, dtype=np.float32)); np.save('%t/w.npy', np.full(5, 10, np.float32))"
// RUN: dl-run %s --entry pad -i %t/af.npy -o %t/pad.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/pad.npy "np.pad(a, ((1, 3), (2, 0)), constant_values=7)" a=%t/a.npy
// RUN: dl-run %s --entry slices -i %t/af.npy -i %t/b.npy -o %t/slices.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/slices.npy "(lambda r: (r.__setitem__((slice(0, 4, 2), slice(1, 4)), a[1:3, 0:6:2] + b), r)[1])(a.copy())" a=%t/a.npy b=%t/b.npy
// RUN: dl-run %s --entry reshape -i %t/c.npy -o %t/flat.npy -o %t/split.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/flat.npy "c.reshape(-1)" c=%t/c.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/split.npy "c.reshape(3, 2, 2)" c=%t/c.npy
// RUN: dl-run %s --entry concat -i %t/e.npy -i %t/d.npy -o %t/concat.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/concat.npy "np.concatenate([e, d])" e=%t/e.npy d=%t/d.npy
// RUN: dl-run %s --entry generate -i 6 -o %t/generate.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/generate.npy "np.arange(6, dtype=np.int64) ** 2"
// RUN: dl-run %s --entry from_elements -i 1.5 -i -2 -o %t/from_elements.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/from_elements.npy "np.array([[1.5, -2], [-2, 1.5]], np.float32)"
// The sum is computed into a copy of the read-only `a`: the difference
// with `a` afterwards is `b` again.
// RUN: dl-run %s --entry outs_argument -i %t/v.npy -i %t/w.npy -o %t/sum.npy -o %t/diff.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/sum.npy "v + w" v=%t/v.npy w=%t/w.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/diff.npy "w" w=%t/w.npy

// CHECK-LABEL: llvm.func @pad(
// CHECK-LABEL: llvm.func @pad__dlpack(
func.func @pad(%a: tensor<?x?xf32> {dlpack.name = "a"}) -> tensor<?x?xf32> attributes {dlpack.entry} {
  %z = arith.constant 7.0 : f32
  %r = tensor.pad %a low[1, 2] high[3, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f32
  } : tensor<?x?xf32> to tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// CHECK-LABEL: llvm.func @slices(
// CHECK: llvm.fadd
func.func @slices(%a: tensor<?x?xf32>, %b: tensor<2x3xf32>) -> tensor<?x?xf32> attributes {dlpack.entry} {
  %s = tensor.extract_slice %a[1, 0][2, 3][1, 2] : tensor<?x?xf32> to tensor<2x3xf32>
  %t = arith.addf %s, %b : tensor<2x3xf32>
  %r = tensor.insert_slice %t into %a[0, 1][2, 3][2, 1] : tensor<2x3xf32> into tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// CHECK-LABEL: llvm.func @reshape(
func.func @reshape(%a: tensor<?x4xf32>) -> (tensor<?xf32>, tensor<?x2x2xf32>) attributes {dlpack.entry} {
  %c = tensor.collapse_shape %a [[0, 1]] : tensor<?x4xf32> into tensor<?xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x4xf32>
  %e = tensor.expand_shape %a [[0], [1, 2]] output_shape [%n, 2, 2] : tensor<?x4xf32> into tensor<?x2x2xf32>
  return %c, %e : tensor<?xf32>, tensor<?x2x2xf32>
}

// CHECK-LABEL: llvm.func @concat(
func.func @concat(%a: tensor<?x3xf32>, %b: tensor<?x3xf32>) -> tensor<?x3xf32> attributes {dlpack.entry} {
  %r = tensor.concat dim(0) %a, %b : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

// CHECK-LABEL: llvm.func @generate(
// CHECK: llvm.mul
func.func @generate(%n: index) -> tensor<?xi64> attributes {dlpack.entry} {
  %r = tensor.generate %n {
  ^bb0(%i: index):
    %v = arith.index_cast %i : index to i64
    %w = arith.muli %v, %v : i64
    tensor.yield %w : i64
  } : tensor<?xi64>
  return %r : tensor<?xi64>
}

// CHECK-LABEL: llvm.func @from_elements(
func.func @from_elements(%x: f32, %y: f32) -> tensor<2x2xf32> attributes {dlpack.entry} {
  %r = tensor.from_elements %x, %y, %y, %x : tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// CHECK-LABEL: llvm.func @outs_argument(
func.func @outs_argument(%a: tensor<?xf32>, %b: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) attributes {dlpack.entry} {
  %r = linalg.add ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%a : tensor<?xf32>) -> tensor<?xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %s = linalg.sub ins(%r, %a : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %r, %s : tensor<?xf32>, tensor<?xf32>
}
