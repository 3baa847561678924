// RUN: dl-opt %s --dlbridge-decompose-aggregated-ops | FileCheck %s

// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32>
// CHECK-NOT: linalg.softmax
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2x8xf32>)
// CHECK: arith.maxnumf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: arith.divf
func.func @softmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %init = tensor.empty() : tensor<2x8xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<2x8xf32>) outs(%init : tensor<2x8xf32>) -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}

// Plain linalg ops are left alone.
// CHECK-LABEL: func.func @add
// CHECK: linalg.add
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %init = tensor.empty() : tensor<4xf32>
  %r = linalg.add ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%init : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
