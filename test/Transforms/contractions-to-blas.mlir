// RUN: dl-opt %s --dlbridge-contractions-to-blas | FileCheck %s
// RUN: dl-opt %s --dlbridge-contractions-to-blas="min-work=0" | FileCheck %s --check-prefix=ALL

// A dynamic f32 matmul calls BLAS when its work reaches min-work, and
// keeps its loops (in the else branch) below it. Strides are passed as they
// are: any layout.

// The callee is declared once, with the runtime table's type.
// CHECK: llvm.func @dlrt_matmul(i32, i32, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64)

// CHECK-LABEL: func.func @matmul_f32
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf32, strided<[?, ?], offset: ?>>, %[[B:.*]]: memref<?x?xf32>, %[[C:.*]]: memref<?x?xf32>)
// CHECK-DAG: %[[ABASE:.*]], %[[AOFF:.*]], %[[ASIZES:.*]]:2, %[[ASTRIDES:.*]]:2 = memref.extract_strided_metadata %[[A]]
// CHECK-DAG: %[[APTR:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: arith.muli %[[AOFF]], %[[C4]]
// CHECK: %[[WORK:.*]] = arith.muli %{{.*}}, %[[ASIZES]]#1 : index
// CHECK-NEXT: %[[MIN:.*]] = arith.constant 4096 : index
// CHECK-NEXT: %[[LARGE:.*]] = arith.cmpi uge, %[[WORK]], %[[MIN]] : index
// CHECK: scf.if %[[LARGE]] {
// CHECK-DAG: %[[BITS:.*]] = arith.constant 32 : i32
// CHECK-DAG: %[[ACC:.*]] = arith.constant 1 : i32
// CHECK: llvm.call @dlrt_matmul(%[[BITS]], %[[ACC]],
// CHECK: } else {
// CHECK: linalg.matmul
// CHECK: }
// CHECK-NOT: linalg.matmul
// ALL-LABEL: func.func @matmul_f32
// ALL-NOT: scf.if
// ALL: llvm.call @dlrt_matmul
// ALL-NOT: linalg.matmul
func.func @matmul_f32(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

// A fill of zero right before the product is folded into the call: it does
// not accumulate. Static sizes over min-work need no test.

// CHECK-LABEL: func.func @fill_then_matmul_f64
// CHECK-NOT: linalg.fill
// CHECK-NOT: scf.if
// CHECK-DAG: %[[BITS:.*]] = arith.constant 64 : i32
// CHECK-DAG: %[[ACC:.*]] = arith.constant 0 : i32
// CHECK: llvm.call @dlrt_matmul(%[[BITS]], %[[ACC]],
// CHECK-NOT: linalg.matmul
func.func @fill_then_matmul_f64(%a: memref<32x32xf64>, %b: memref<32x32xf64>, %c: memref<32x32xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%c : memref<32x32xf64>)
  linalg.matmul ins(%a, %b : memref<32x32xf64>, memref<32x32xf64>) outs(%c : memref<32x32xf64>)
  return
}

// A fill of another value, or into another buffer, stays and the product
// accumulates.

// CHECK-LABEL: func.func @fill_of_one
// CHECK: linalg.fill
// CHECK: %[[ACC:.*]] = arith.constant 1 : i32
// CHECK: llvm.call @dlrt_matmul(%{{.*}}, %[[ACC]],
func.func @fill_of_one(%a: memref<32x32xf32>, %b: memref<32x32xf32>, %c: memref<32x32xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%c : memref<32x32xf32>)
  linalg.matmul ins(%a, %b : memref<32x32xf32>, memref<32x32xf32>) outs(%c : memref<32x32xf32>)
  return
}

// Static products below min-work keep their op.

// CHECK-LABEL: func.func @small
// CHECK-NOT: dlrt_matmul
// CHECK: linalg.matmul
// ALL-LABEL: func.func @small
// ALL: llvm.call @dlrt_matmul
func.func @small(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// batch_matmul passes its batch count and batch strides.

// CHECK-LABEL: func.func @batch_matmul
// CHECK-DAG: %[[A:.*]], %{{.*}}, %[[AS:.*]]:3, %[[AT:.*]]:3 = memref.extract_strided_metadata %arg0
// CHECK-DAG: %[[ABATCH:.*]] = arith.index_cast %[[AT]]#0 : index to i64
// CHECK-DAG: %[[NB:.*]] = arith.index_cast %[[AS]]#0 : index to i64
// CHECK: llvm.call @dlrt_matmul(%{{.*}}, %{{.*}}, %[[NB]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ABATCH]],
func.func @batch_matmul(%a: memref<?x64x64xf32>, %b: memref<?x64x64xf32>, %c: memref<?x64x64xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<?x64x64xf32>, memref<?x64x64xf32>) outs(%c : memref<?x64x64xf32>)
  return
}

// matvec and vecmat are products with one column or one row.

// CHECK-LABEL: func.func @matvec
// CHECK: llvm.call @dlrt_matmul
// CHECK-NOT: linalg.matvec
func.func @matvec(%a: memref<128x128xf64>, %x: memref<128xf64>, %y: memref<128xf64>) {
  linalg.matvec ins(%a, %x : memref<128x128xf64>, memref<128xf64>) outs(%y : memref<128xf64>)
  return
}

// CHECK-LABEL: func.func @vecmat
// CHECK: llvm.call @dlrt_matmul
// CHECK-NOT: linalg.vecmat
func.func @vecmat(%x: memref<128xf32>, %b: memref<128x128xf32>, %y: memref<128xf32>) {
  linalg.vecmat ins(%x, %b : memref<128xf32>, memref<128x128xf32>) outs(%y : memref<128xf32>)
  return
}

// Left to the loops: other element types, mixed ones, tensors, matmuls
// with their own indexing maps.

// CHECK-LABEL: func.func @integers
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @mixed
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @on_tensors
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @transposed_maps
// CHECK: linalg.matmul
// ALL-LABEL: func.func @integers
// ALL-NOT: dlrt_matmul
// ALL-LABEL: func.func @transposed_maps
// ALL-NOT: llvm.call
func.func @integers(%a: memref<64x64xi32>, %b: memref<64x64xi32>, %c: memref<64x64xi32>) {
  linalg.matmul ins(%a, %b : memref<64x64xi32>, memref<64x64xi32>) outs(%c : memref<64x64xi32>)
  return
}
func.func @mixed(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  return
}
func.func @on_tensors(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
func.func @transposed_maps(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}
