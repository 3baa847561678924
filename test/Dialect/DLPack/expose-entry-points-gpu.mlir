// RUN: dl-opt %s --dlbridge-expose-entry-points=device=cuda | FileCheck %s

// Access follows a memref into the kernels it is launched with: `x` is only
// read there and `y` written, so a caller may pass read-only tensors for
// `x`, and the same tensor for both.
// CHECK-LABEL: func.func @launches__dlpack(
// CHECK: dlpack.signature @launches__dlpack_signature
// CHECK-SAME: arguments [#dlpack.param<"x" : memref<?xf32>, read>, #dlpack.param<"y" : memref<?xf32>, write>]
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @copy(%src: memref<?xf32>, %dst: memref<?xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %src[%i] : memref<?xf32>
      memref.store %v, %dst[%i] : memref<?xf32>
      gpu.return
    }
  }
  func.func @launches(%x: memref<?xf32> {dlpack.name = "x"},
                      %y: memref<?xf32> {dlpack.name = "y"})
      attributes {dlpack.entry} {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %n = memref.dim %x, %c0 : memref<?xf32>
    gpu.launch_func @kernels::@copy blocks in (%c1, %c1, %c1)
        threads in (%n, %c1, %c1) args(%x : memref<?xf32>, %y : memref<?xf32>)
    return
  }
}
