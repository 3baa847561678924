// RUN: dl-opt %s --split-input-file --dlbridge-fuse-elementwise-ops | FileCheck %s

// Chains of elementwise ops fuse, as with linalg-fuse-elementwise-ops.

// CHECK-LABEL: func.func @chain
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
#id = affine_map<(d0) -> (d0)>
func.func @chain(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %p = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%s, %b : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.mulf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  return %p : tensor<?xf32>
}

// -----

// An N-D @ 2-D product traced as collapse, matmul, reshape keeps its named
// matmul: the collapse is not folded into it by expanding its loops.

// CHECK-LABEL: func.func @rows_times_matrix
// CHECK: tensor.collapse_shape
// CHECK: linalg.matmul
// CHECK: tensor.expand_shape
func.func @rows_times_matrix(%a: tensor<4x8x16xf32>, %b: tensor<16x32xf32>) -> tensor<4x8x32xf32> {
  %rows = tensor.collapse_shape %a [[0, 1], [2]] : tensor<4x8x16xf32> into tensor<32x16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %m = linalg.matmul ins(%rows, %b : tensor<32x16xf32>, tensor<16x32xf32>) outs(%f : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = tensor.expand_shape %m [[0, 1], [2]] output_shape [4, 8, 32] : tensor<32x32xf32> into tensor<4x8x32xf32>
  return %r : tensor<4x8x32xf32>
}

// -----

// Reshapes still fold into elementwise ops.

// CHECK-LABEL: func.func @reshape_into_elementwise
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK: tensor.collapse_shape
#id = affine_map<(d0) -> (d0)>
func.func @reshape_into_elementwise(%a: tensor<4x8xf32>) -> tensor<32xf32> {
  %flat = tensor.collapse_shape %a [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  %e = tensor.empty() : tensor<32xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%flat : tensor<32xf32>) outs(%e : tensor<32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  return %r : tensor<32xf32>
}
