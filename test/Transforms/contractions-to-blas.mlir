// RUN: dl-opt %s --dlbridge-contractions-to-blas | FileCheck %s
// RUN: dl-opt %s --dlbridge-contractions-to-blas="min-work=0" | FileCheck %s --check-prefix=ALL
// RUN: dl-opt %s --dlbridge-contractions-to-blas="target=cuda" | FileCheck %s --check-prefix=CUDA
// RUN: dl-opt %s --dlbridge-contractions-to-blas="target=cuda allow-tf32=true" | FileCheck %s --check-prefix=TF32
// RUN: not dl-opt %s --dlbridge-contractions-to-blas="target=tpu" 2>&1 | FileCheck %s --check-prefix=TARGET

// TARGET: error: dlbridge-contractions-to-blas: unknown target 'tpu'; expected cpu or cuda

// With target=cuda the same ops call dlrt_cuda_matmul on the stream of the
// call in progress, with the element types and flags of dlrt_cuda.h
// (f16 = 0, bf16 = 1, f32 = 2, f64 = 3; accumulate = 1, allow TF32 = 2),
// and run as before where it returns DLRT_CUDA_MATMUL_DECLINED (-1).
// CUDA: llvm.func @dlrt_cuda_matmul(!llvm.ptr, i32, i32, i32, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64) -> i32
// CUDA: llvm.func @dlrt_call_stream() -> !llvm.ptr

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
// CUDA-LABEL: func.func @matmul_f32
// CUDA: scf.if %{{.*}} {
// CUDA: %[[S:.*]] = llvm.call @dlrt_call_stream() : () -> !llvm.ptr
// CUDA-DAG: %[[IN:.*]] = arith.constant 2 : i32
// CUDA-DAG: %[[OUT:.*]] = arith.constant 2 : i32
// CUDA-DAG: %[[ACC:.*]] = arith.constant 1 : i32
// CUDA: %[[R:.*]] = llvm.call @dlrt_cuda_matmul(%[[S]], %[[IN]], %[[OUT]], %[[ACC]],
// CUDA: %[[DECLINED:.*]] = arith.constant -1 : i32
// CUDA-NEXT: %[[FALLBACK:.*]] = arith.cmpi eq, %[[R]], %[[DECLINED]] : i32
// CUDA-NEXT: scf.if %[[FALLBACK]] {
// CUDA-NEXT: linalg.matmul
// CUDA-NEXT: }
// CUDA-NEXT: } else {
// CUDA-NEXT: linalg.matmul
// TF32-LABEL: func.func @matmul_f32
// TF32: %[[FLAGS:.*]] = arith.constant 3 : i32
// TF32: llvm.call @dlrt_cuda_matmul(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %[[FLAGS]],
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
// CUDA-LABEL: func.func @fill_then_matmul_f64
// CUDA-NOT: linalg.fill
// CUDA-DAG: %[[IN:.*]] = arith.constant 3 : i32
// CUDA-DAG: %[[OUT:.*]] = arith.constant 3 : i32
// CUDA-DAG: %[[FLAGS:.*]] = arith.constant 0 : i32
// CUDA: llvm.call @dlrt_cuda_matmul(%{{[^,]*}}, %[[IN]], %[[OUT]], %[[FLAGS]],
// CUDA: scf.if
// CUDA-NEXT: linalg.fill
// CUDA-NEXT: linalg.matmul
// CUDA-NEXT: }
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
// CUDA-LABEL: func.func @small
// CUDA-NOT: llvm.call
// CUDA: linalg.matmul
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
// CUDA-LABEL: func.func @batch_matmul
// CUDA-DAG: %[[A:.*]], %{{.*}}, %[[AS:.*]]:3, %[[AT:.*]]:3 = memref.extract_strided_metadata %arg0
// CUDA-DAG: %[[ABATCH:.*]] = arith.index_cast %[[AT]]#0 : index to i64
// CUDA-DAG: %[[NB:.*]] = arith.index_cast %[[AS]]#0 : index to i64
// CUDA: llvm.call @dlrt_cuda_matmul(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NB]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ABATCH]],
// CUDA: linalg.batch_matmul
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

// CUDA-LABEL: func.func @matvec
// CUDA: llvm.call @dlrt_cuda_matmul
// CUDA-LABEL: func.func @vecmat
// CUDA: llvm.call @dlrt_cuda_matmul

// bf16 on CUDA; buffers CUDA code keeps in host memory (constants' globals)
// and products inside kernels stay linalg.

// CUDA-LABEL: func.func @batch_bf16
// CUDA-DAG: %[[BF16:.*]] = arith.constant 1 : i32
// CUDA-DAG: %[[BF16OUT:.*]] = arith.constant 1 : i32
// CUDA: llvm.call @dlrt_cuda_matmul(%{{[^,]*}}, %[[BF16]], %[[BF16OUT]],
// CUDA-LABEL: func.func @constant_operand
// CUDA-NOT: llvm.call
// CUDA: linalg.matmul
// CUDA-LABEL: func.func @in_kernel
// CUDA-NOT: llvm.call
// CUDA: gpu.launch
// CUDA-NEXT: linalg.matmul
func.func @batch_bf16(%a: memref<4x64x64xbf16>, %b: memref<4x64x64xbf16>, %c: memref<4x64x64xbf16>) {
  linalg.batch_matmul ins(%a, %b : memref<4x64x64xbf16>, memref<4x64x64xbf16>) outs(%c : memref<4x64x64xbf16>)
  return
}
memref.global "private" constant @weights : memref<64x64xf32> = dense<1.0>
func.func @constant_operand(%a: memref<64x64xf32>, %c: memref<64x64xf32>) {
  %w = memref.get_global @weights : memref<64x64xf32>
  %view = memref.subview %w[0, 0] [64, 32] [1, 1] : memref<64x64xf32> to memref<64x32xf32, strided<[64, 1]>>
  %out = memref.subview %c[0, 0] [64, 32] [1, 1] : memref<64x64xf32> to memref<64x32xf32, strided<[64, 1]>>
  linalg.matmul ins(%a, %view : memref<64x64xf32>, memref<64x32xf32, strided<[64, 1]>>) outs(%out : memref<64x32xf32, strided<[64, 1]>>)
  return
}
func.func @in_kernel(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  %one = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %one, %y = %one, %z = %one) threads(%tx, %ty, %tz) in (%u = %one, %v = %one, %w = %one) {
    linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
    gpu.terminator
  }
  return
}

// Left to the loops: other element types, mixed ones, tensors, matmuls
// with their own indexing maps. On CUDA, f16 inputs into f32 is a
// cuBLASLt product too.

// CHECK-LABEL: func.func @integers
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @mixed
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @on_tensors
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @transposed_maps
// CHECK: linalg.matmul
// CUDA-LABEL: func.func @integers
// CUDA-NOT: llvm.call
// CUDA: linalg.matmul
// CUDA-LABEL: func.func @mixed
// CUDA-DAG: %[[F16:.*]] = arith.constant 0 : i32
// CUDA-DAG: %[[F32:.*]] = arith.constant 2 : i32
// CUDA: llvm.call @dlrt_cuda_matmul(%{{[^,]*}}, %[[F16]], %[[F32]],
// CUDA-LABEL: func.func @on_tensors
// CUDA-NOT: llvm.call
// CUDA-LABEL: func.func @transposed_maps
// CUDA-NOT: llvm.call
// TF32-LABEL: func.func @mixed
// TF32: %[[FLAGS:.*]] = arith.constant 1 : i32
// TF32: llvm.call @dlrt_cuda_matmul(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %[[FLAGS]],
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
