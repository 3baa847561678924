// REQUIRES: ptxas
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=ptx chip=sm_90" | FileCheck %s
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=cubin chip=sm_80" -o /dev/null
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=cubin chip=sm_90" -o /dev/null

// Elementwise kernels on static and dynamic shapes
// (dlbridge-gpu-tile-parallel-loops, dlbridge-gpu-map-parallel-loops): blocks
// are full whatever the static shape (never one thread per block), the
// innermost dimension runs along threadIdx.x, and each kernel declares its
// block size (.maxntid). ptxas accepts them for sm_80 and sm_90.

// CHECK-LABEL: llvm.func @wide(
// CHECK-DAG: %[[C256:.*]] = llvm.mlir.constant(256 : index) : i64
// CHECK-DAG: %[[C4:.*]] = llvm.mlir.constant(4 : index) : i64
// CHECK-DAG: %[[C1:.*]] = llvm.mlir.constant(1 : index) : i64
// CHECK: gpu.launch_func {{.*}} blocks in (%[[C4]], %[[C4]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]])
// CHECK: gpu.binary @wide_kernel {{.*}}.maxntid 256, 1, 1
func.func @wide(%a: tensor<4x1000xf32>, %b: tensor<4x1000xf32>) -> tensor<4x1000xf32> attributes {dlpack.entry} {
  %r = arith.addf %a, %b : tensor<4x1000xf32>
  return %r : tensor<4x1000xf32>
}

// CHECK-LABEL: llvm.func @long(
// CHECK-DAG: %[[C256:.*]] = llvm.mlir.constant(256 : index) : i64
// CHECK-DAG: %[[BLOCKS:.*]] = llvm.mlir.constant(3907 : index) : i64
// CHECK-DAG: %[[C1:.*]] = llvm.mlir.constant(1 : index) : i64
// CHECK: gpu.launch_func {{.*}} blocks in (%[[BLOCKS]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]])
// CHECK: gpu.binary @long_kernel {{.*}}.maxntid 256, 1, 1
func.func @long(%a: tensor<1000000xf32>) -> tensor<1000000xf32> attributes {dlpack.entry} {
  %r = arith.mulf %a, %a : tensor<1000000xf32>
  return %r : tensor<1000000xf32>
}

// Four columns: 64 rows of them per block, the columns along x.
// CHECK-LABEL: llvm.func @narrow(
// CHECK-DAG: %[[C4:.*]] = llvm.mlir.constant(4 : index) : i64
// CHECK-DAG: %[[C64:.*]] = llvm.mlir.constant(64 : index) : i64
// CHECK-DAG: %[[C16:.*]] = llvm.mlir.constant(16 : index) : i64
// CHECK-DAG: %[[C1:.*]] = llvm.mlir.constant(1 : index) : i64
// CHECK: gpu.launch_func {{.*}} blocks in (%[[C16]], %[[C1]], %[[C1]]) threads in (%[[C4]], %[[C64]], %[[C1]])
// CHECK: gpu.binary @narrow_kernel {{.*}}.maxntid 4, 64, 1
func.func @narrow(%a: tensor<1000x4xf32>) -> tensor<1000x4xf32> attributes {dlpack.entry} {
  %r = arith.negf %a : tensor<1000x4xf32>
  return %r : tensor<1000x4xf32>
}

// Smaller than a block: one block of every element.
// CHECK-LABEL: llvm.func @small(
// CHECK-DAG: %[[C4:.*]] = llvm.mlir.constant(4 : index) : i64
// CHECK-DAG: %[[C3:.*]] = llvm.mlir.constant(3 : index) : i64
// CHECK-DAG: %[[C1:.*]] = llvm.mlir.constant(1 : index) : i64
// CHECK: gpu.launch_func {{.*}} blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C4]], %[[C3]], %[[C1]])
// CHECK: gpu.binary @small_kernel {{.*}}.maxntid 4, 3, 1
func.func @small(%a: tensor<3x4xf32>) -> tensor<3x4xf32> attributes {dlpack.entry} {
  %r = arith.negf %a : tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// Four dynamic dimensions: 256 threads along the innermost.
// CHECK-LABEL: llvm.func @deep(
// CHECK: gpu.binary @deep_kernel {{.*}}.maxntid 256, 1, 1
func.func @deep(%a: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> attributes {dlpack.entry} {
  %r = arith.negf %a : tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}
