// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=ptx" | FileCheck %s

// Named contractions on device buffers call cuBLASLt from host code
// (dlrt_cuda_matmul on the call's stream); the kernel the product would
// have been runs only where the runtime declines the operands' layout.
// Products cuBLASLt has no type for stay kernels.

// CHECK-LABEL: llvm.func @matmul_f16(
// CHECK: %[[S:.*]] = llvm.call @dlrt_call_stream()
// CHECK: %[[R:.*]] = llvm.call @dlrt_cuda_matmul(
// CHECK: llvm.icmp "eq" %[[R]]
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @matmul_f16_kernel
// CHECK: llvm.return
func.func @matmul_f16(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>) -> tensor<?x?xf16> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf16>
  %n = tensor.dim %b, %c1 : tensor<?x?xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty(%m, %n) : tensor<?x?xf16>
  %init = linalg.fill ins(%zero : f16) outs(%e : tensor<?x?xf16>) -> tensor<?x?xf16>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>) outs(%init : tensor<?x?xf16>) -> tensor<?x?xf16>
  return %r : tensor<?x?xf16>
}

// CHECK-LABEL: llvm.func @batch_matmul_bf16(
// CHECK: llvm.call @dlrt_cuda_matmul(
// CHECK: llvm.return
func.func @batch_matmul_bf16(%a: tensor<8x64x32xbf16>, %b: tensor<8x32x48xbf16>) -> tensor<8x64x48xbf16> attributes {dlpack.entry} {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<8x64x48xbf16>
  %init = linalg.fill ins(%zero : bf16) outs(%e : tensor<8x64x48xbf16>) -> tensor<8x64x48xbf16>
  %r = linalg.batch_matmul ins(%a, %b : tensor<8x64x32xbf16>, tensor<8x32x48xbf16>) outs(%init : tensor<8x64x48xbf16>) -> tensor<8x64x48xbf16>
  return %r : tensor<8x64x48xbf16>
}

// f32, and f16 inputs into an f32 output.

// CHECK-LABEL: llvm.func @matmul_f32(
// CHECK: llvm.call @dlrt_cuda_matmul(
// CHECK-LABEL: llvm.func @matmul_f16_into_f32(
// CHECK: llvm.call @dlrt_cuda_matmul(
func.func @matmul_f32(%a: tensor<128x64xf32>, %b: tensor<64x32xf32>) -> tensor<128x32xf32> attributes {dlpack.entry} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<128x32xf32>) -> tensor<128x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x64xf32>, tensor<64x32xf32>) outs(%init : tensor<128x32xf32>) -> tensor<128x32xf32>
  return %r : tensor<128x32xf32>
}
func.func @matmul_f16_into_f32(%a: tensor<128x64xf16>, %b: tensor<64x32xf16>) -> tensor<128x32xf32> attributes {dlpack.entry} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<128x32xf32>) -> tensor<128x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x64xf16>, tensor<64x32xf16>) outs(%init : tensor<128x32xf32>) -> tensor<128x32xf32>
  return %r : tensor<128x32xf32>
}

// Integers and f32 inputs into f64 have no cuBLASLt product: kernels only.

// CHECK-LABEL: llvm.func @matmul_i32(
// CHECK-NOT: dlrt_cuda_matmul
// CHECK: gpu.launch_func
// CHECK: llvm.return
// CHECK-LABEL: llvm.func @matmul_f32_into_f64(
// CHECK-NOT: dlrt_cuda_matmul
// CHECK: gpu.launch_func
// CHECK: llvm.return
func.func @matmul_i32(%a: tensor<128x64xi32>, %b: tensor<64x32xi32>) -> tensor<128x32xi32> attributes {dlpack.entry} {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<128x32xi32>
  %init = linalg.fill ins(%zero : i32) outs(%e : tensor<128x32xi32>) -> tensor<128x32xi32>
  %r = linalg.matmul ins(%a, %b : tensor<128x64xi32>, tensor<64x32xi32>) outs(%init : tensor<128x32xi32>) -> tensor<128x32xi32>
  return %r : tensor<128x32xi32>
}
func.func @matmul_f32_into_f64(%a: tensor<128x64xf32>, %b: tensor<64x32xf32>) -> tensor<128x32xf64> attributes {dlpack.entry} {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<128x32xf64>
  %init = linalg.fill ins(%zero : f64) outs(%e : tensor<128x32xf64>) -> tensor<128x32xf64>
  %r = linalg.matmul ins(%a, %b : tensor<128x64xf32>, tensor<64x32xf32>) outs(%init : tensor<128x32xf64>) -> tensor<128x32xf64>
  return %r : tensor<128x32xf64>
}
