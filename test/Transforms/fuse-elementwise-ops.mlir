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

// -----

// An elementwise producer read by two linalg ops (softmax's exponentials,
// read by the sum and the division) is recomputed in each, and its
// full-size result is gone; its sizes are read from its init.

// CHECK-LABEL: func.func @recomputed_producer
// CHECK-NOT: tensor.dim %{{[0-9]+}},
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK: math.exp
// CHECK: arith.divf
// CHECK-NOT: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @recomputed_producer(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e0 = tensor.empty(%m, %n) : tensor<?x?xf32>
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x?xf32>) outs(%e0 : tensor<?x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  %rows = tensor.dim %e, %c0 : tensor<?x?xf32>
  %s0 = tensor.empty(%rows) : tensor<?xf32>
  %s1 = linalg.fill ins(%zero : f32) outs(%s0 : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<?x?xf32>) outs(%s1 : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %d0 = tensor.empty(%m, %n) : tensor<?x?xf32>
  %d = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e, %s : tensor<?x?xf32>, tensor<?xf32>) outs(%d0 : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  return %d : tensor<?x?xf32>
}

// -----

// 8-bit floats are rounded after every op only where they are stored, so
// their chains stay unfused.

// CHECK-LABEL: func.func @eight_bit_floats
// CHECK: arith.mulf
// CHECK: linalg.yield
// CHECK: linalg.generic
// CHECK: arith.addf
#id = affine_map<(d0) -> (d0)>
func.func @eight_bit_floats(%a: tensor<16xf8E4M3FN>, %b: tensor<16xf8E4M3FN>) -> tensor<16xf8E4M3FN> {
  %e = tensor.empty() : tensor<16xf8E4M3FN>
  %p = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<16xf8E4M3FN>, tensor<16xf8E4M3FN>) outs(%e : tensor<16xf8E4M3FN>) {
  ^bb0(%x: f8E4M3FN, %y: f8E4M3FN, %o: f8E4M3FN):
    %r = arith.mulf %x, %y : f8E4M3FN
    linalg.yield %r : f8E4M3FN
  } -> tensor<16xf8E4M3FN>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%p, %a : tensor<16xf8E4M3FN>, tensor<16xf8E4M3FN>) outs(%e : tensor<16xf8E4M3FN>) {
  ^bb0(%x: f8E4M3FN, %y: f8E4M3FN, %o: f8E4M3FN):
    %r = arith.addf %x, %y : f8E4M3FN
    linalg.yield %r : f8E4M3FN
  } -> tensor<16xf8E4M3FN>
  return %s : tensor<16xf8E4M3FN>
}
