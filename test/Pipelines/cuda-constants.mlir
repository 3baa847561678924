// REQUIRES: ptxas
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=ptx" | FileCheck %s
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=cubin chip=sm_90" -o /dev/null

// Constant tensors of a CUDA program are device memory: the kernel that
// reads one holds it in its binary, and host code passes it no host
// address.

// CHECK-LABEL: llvm.func @add_table(
// CHECK-NOT: llvm.mlir.addressof @__constant_4xf32
// CHECK: gpu.launch_func
// CHECK-LABEL: gpu.binary @add_table_kernel
// CHECK-SAME: .global .align 64 .b8 __constant_4xf32[16] = {0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64}
func.func @add_table(%a: tensor<4xf32>) -> tensor<4xf32> attributes {dlpack.entry} {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.add ins(%a, %c : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
