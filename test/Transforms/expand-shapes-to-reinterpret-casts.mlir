// RUN: dl-opt %s --dlbridge-expand-shapes-to-reinterpret-casts | FileCheck %s
// RUN: dl-opt %s --dlbridge-expand-shapes-to-reinterpret-casts --expand-strided-metadata | FileCheck %s --check-prefix=EXPANDED

// Two dynamic sizes from one contiguous dimension: the inner size is the
// outer stride.

// CHECK-LABEL: func.func @two_dynamic_sizes
// CHECK-SAME: (%[[A:.*]]: memref<?xf64>, %[[M:.*]]: index, %[[N:.*]]: index)
// CHECK: %[[BASE:.*]], %{{.*}}, %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[A]]
// CHECK-NOT: memref.expand_shape
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [0], sizes: [%[[M]], %[[N]]], strides: [%[[N]], 1] : memref<f64> to memref<?x?xf64>
// EXPANDED-LABEL: func.func @two_dynamic_sizes
// EXPANDED: memref.reinterpret_cast
func.func @two_dynamic_sizes(%a: memref<?xf64>, %m: index, %n: index) -> memref<?x?xf64> {
  %e = memref.expand_shape %a [[0, 1]] output_shape [%m, %n] : memref<?xf64> into memref<?x?xf64>
  return %e : memref<?x?xf64>
}

// A strided source with a static size inside the group: strides multiply
// outwards from the source dimension's, and the offset is the source's.

// CHECK-LABEL: func.func @strided_source
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf32, strided<[?, ?], offset: ?>>, %[[M:.*]]: index, %[[N:.*]]: index)
// CHECK: %[[BASE:.*]], %[[OFF:.*]], %{{.*}}:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[A]]
// CHECK: %[[S1:.*]] = arith.muli %[[STRIDES]]#0, %[[N]] : index
// CHECK: %[[S0:.*]] = arith.muli %[[S1]], %{{.*}} : index
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [%[[OFF]]], sizes: [%[[M]], 2, %[[N]], %[[N]]], strides: [%[[S0]], %[[S1]], %[[STRIDES]]#0, %[[STRIDES]]#1]
func.func @strided_source(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>, %m: index, %n: index)
    -> memref<?x2x?x?xf32, strided<[?, ?, ?, ?], offset: ?>> {
  %e = memref.expand_shape %a [[0, 1, 2], [3]] output_shape [%m, 2, %n, %n]
      : memref<?x?xf32, strided<[?, ?], offset: ?>> into memref<?x2x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
  return %e : memref<?x2x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
}

// One dynamic size per group: upstream's expansion handles it.

// CHECK-LABEL: func.func @one_dynamic_size
// CHECK: memref.expand_shape
// CHECK-NOT: memref.reinterpret_cast
func.func @one_dynamic_size(%a: memref<?xf64>, %m: index) -> memref<?x4xf64> {
  %e = memref.expand_shape %a [[0, 1]] output_shape [%m, 4] : memref<?xf64> into memref<?x4xf64>
  return %e : memref<?x4xf64>
}
