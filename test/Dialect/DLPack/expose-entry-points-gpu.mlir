// RUN: dl-opt %s --split-input-file --dlbridge-expose-entry-points=device=cuda | FileCheck %s

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

// -----

// The sizes and strides of a view are numbers, not references to its memory:
// passing them to a runtime call (as a cuBLASLt product does, with the
// pointer) does not make `x` written.
// CHECK-LABEL: func.func @strides_to_a_call__dlpack(
// CHECK: dlpack.signature @strides_to_a_call__dlpack_signature
// CHECK-SAME: arguments [#dlpack.param<"x" : memref<?x?xf32, strided<[?, ?], offset: ?>>, read>, #dlpack.param<"y" : memref<f32>, write>]
module attributes {gpu.container_module} {
  llvm.func @takes_sizes(i64, i64) -> i32
  gpu.module @kernels {
    gpu.func @first(%src: memref<?x?xf32, strided<[?, ?], offset: ?>>,
                    %dst: memref<f32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %src[%c0, %c0] : memref<?x?xf32, strided<[?, ?], offset: ?>>
      memref.store %v, %dst[] : memref<f32>
      gpu.return
    }
  }
  func.func @strides_to_a_call(%x: memref<?x?xf32, strided<[?, ?], offset: ?>> {dlpack.name = "x"},
                               %y: memref<f32> {dlpack.name = "y"})
      attributes {dlpack.entry} {
    %c1 = arith.constant 1 : index
    %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %x
        : memref<?x?xf32, strided<[?, ?], offset: ?>> -> memref<f32>, index, index, index, index, index
    %rows = arith.index_cast %sizes#0 : index to i64
    %stride = arith.index_cast %strides#0 : index to i64
    %status = llvm.call @takes_sizes(%rows, %stride) : (i64, i64) -> i32
    gpu.launch_func @kernels::@first blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%x : memref<?x?xf32, strided<[?, ?], offset: ?>>, %y : memref<f32>)
    return
  }
}
