// RUN: dl-opt %s --split-input-file --dlbridge-reuse-dead-operands | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// The epilogue of a product writes into the product, which dies with it;
// asking for its sizes does not keep it alive.

// CHECK-LABEL: func.func @epilogue
// CHECK: %[[M:.*]] = linalg.matmul
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[M]], %{{.*}} : tensor<?x?xf32>, tensor<?xf32>) outs(%[[M]] : tensor<?x?xf32>)
func.func @epilogue(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %bias: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m0 = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n0 = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m0, %n0) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %p = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  %m = tensor.dim %p, %c0 : tensor<?x?xf32>
  %n = tensor.dim %p, %c1 : tensor<?x?xf32>
  %o = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %bias : tensor<?x?xf32>, tensor<?xf32>) outs(%o : tensor<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.maximumf %s, %zero : f32
    linalg.yield %t : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#transposed = affine_map<(d0, d1) -> (d1, d0)>

// Left alone: an argument (the caller's memory), a product read again
// later, a product read transposed (writing would clobber elements still to
// be read), and a payload that reads its init.

// CHECK-LABEL: func.func @argument
// CHECK: outs(%{{.*}} : tensor<4x4xf32>)
// CHECK-NOT: outs(%arg0
func.func @argument(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %o = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x4xf32>) outs(%o : tensor<4x4xf32>) {
  ^bb0(%x: f32, %out: f32):
    %s = arith.negf %x : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// CHECK-LABEL: func.func @read_again
// CHECK: %[[P:.*]] = linalg.matmul
// CHECK: %[[O:.*]] = tensor.empty
// CHECK: outs(%[[O]] : tensor<4x4xf32>)
func.func @read_again(%a: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %p = linalg.matmul ins(%a, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %o = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<4x4xf32>) outs(%o : tensor<4x4xf32>) {
  ^bb0(%x: f32, %out: f32):
    %s = arith.negf %x : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %r, %p : tensor<4x4xf32>, tensor<4x4xf32>
}

// CHECK-LABEL: func.func @transposed_read
// CHECK: %[[O:.*]] = tensor.empty
// CHECK: outs(%[[O]] : tensor<4x4xf32>)
func.func @transposed_read(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %p = linalg.matmul ins(%a, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %o = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [#transposed, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<4x4xf32>) outs(%o : tensor<4x4xf32>) {
  ^bb0(%x: f32, %out: f32):
    linalg.yield %x : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// CHECK-LABEL: func.func @reads_its_init
// CHECK: %[[O:.*]] = tensor.empty
// CHECK: outs(%[[O]] : tensor<4x4xf32>)
func.func @reads_its_init(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %p = linalg.matmul ins(%a, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %o = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<4x4xf32>) outs(%o : tensor<4x4xf32>) {
  ^bb0(%x: f32, %out: f32):
    %s = arith.addf %x, %out : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
