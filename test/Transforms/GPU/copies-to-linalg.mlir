// RUN: dl-opt %s --dlbridge-gpu-copies-to-linalg | FileCheck %s

// Copies become linalg.copy of the same operands, strided ones included,
// so that the GPU pipeline maps them to kernels.

// CHECK-LABEL: func.func @copy(
// CHECK-SAME: %[[A:.*]]: memref<?x4xf32>, %[[B:.*]]: memref<?x4xf32, strided<[?, ?], offset: ?>>
// CHECK: linalg.copy ins(%[[A]] : memref<?x4xf32>) outs(%[[B]] : memref<?x4xf32, strided<[?, ?], offset: ?>>)
// CHECK-NOT: memref.copy
func.func @copy(%a: memref<?x4xf32>, %b: memref<?x4xf32, strided<[?, ?], offset: ?>>) {
  memref.copy %a, %b : memref<?x4xf32> to memref<?x4xf32, strided<[?, ?], offset: ?>>
  return
}

// CHECK-LABEL: func.func @nested(
// CHECK: scf.for
// CHECK: linalg.copy ins(%{{.*}} : memref<8xi8>) outs(%{{.*}} : memref<8xi8>)
func.func @nested(%a: memref<8xi8>, %b: memref<8xi8>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    memref.copy %a, %b : memref<8xi8> to memref<8xi8>
  }
  return
}
