// RUN: dl-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(gpu-kernel-outlining,dlbridge-gpu-legalize-kernel-names)' \
// RUN:   | FileCheck %s

// A function named as Python names a lambda: its kernel and the kernel's
// module get PTX identifiers, and the launch follows them.
// CHECK-LABEL: func.func @"<lambda>"(
// CHECK: gpu.launch_func @_lambda__kernel::@_lambda__kernel
// CHECK: gpu.module @_lambda__kernel
// CHECK: gpu.func @_lambda__kernel(
func.func @"<lambda>"(%x: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<8xf32>
    %d = arith.addf %v, %v : f32
    memref.store %d, %x[%tx] : memref<8xf32>
    gpu.terminator
  }
  return
}

// -----

// Names that collide once legal get numbered; a leading digit gets a `_`;
// legal names stay as they are.
// CHECK-LABEL: func.func @"my-op"(
// CHECK: gpu.launch_func @my_op_kernel_0::@my_op_kernel
// CHECK: gpu.module @my_op_kernel_0 {
// CHECK-LABEL: func.func @my_op(
// CHECK: gpu.launch_func @my_op_kernel::@my_op_kernel
// CHECK: gpu.module @my_op_kernel {
// CHECK-LABEL: func.func @"2d"(
// CHECK: gpu.launch_func @_2d_kernel::@_2d_kernel
// CHECK: gpu.module @_2d_kernel {
func.func @"my-op"(%x: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<8xf32>
    memref.store %v, %x[%tx] : memref<8xf32>
    gpu.terminator
  }
  return
}
func.func @my_op(%x: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<8xf32>
    memref.store %v, %x[%tx] : memref<8xf32>
    gpu.terminator
  }
  return
}
func.func @"2d"(%x: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<8xf32>
    memref.store %v, %x[%tx] : memref<8xf32>
    gpu.terminator
  }
  return
}
