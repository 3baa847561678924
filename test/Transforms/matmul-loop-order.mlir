// RUN: dl-opt %s --dlbridge-matmul-loop-order | FileCheck %s

// The reduction dimension moves outside the output's columns.

// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @matmul
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "reduction", "parallel"]}
func.func @matmul(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

// CHECK-LABEL: func.func @batch_matmul
// CHECK: iterator_types = ["parallel", "parallel", "reduction", "parallel"]
func.func @batch_matmul(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %c: tensor<2x3x5xf32>) -> tensor<2x3x5xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x3x4xf32>, tensor<2x4x5xf32>) outs(%c : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  return %r : tensor<2x3x5xf32>
}

// Other linalg ops are left alone.
// CHECK-LABEL: func.func @add
// CHECK: linalg.add
func.func @add(%a: memref<4xf32>, %b: memref<4xf32>) {
  linalg.add ins(%a, %a : memref<4xf32>, memref<4xf32>) outs(%b : memref<4xf32>)
  return
}
