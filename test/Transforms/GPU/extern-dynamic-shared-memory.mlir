// RUN: dl-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(gpu.module(convert-gpu-to-nvvm,dlbridge-gpu-extern-dynamic-shared-memory))' \
// RUN:   | FileCheck %s

// The zero-length shared array gpu.dynamic_shared_memory lowers to becomes
// external (PTX's `.extern .shared ... []`); static shared buffers, and
// globals elsewhere, keep their linkage.
// CHECK-LABEL: gpu.module @kernels
// CHECK-DAG: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-DAG: llvm.mlir.global internal @__wg_{{.*}} {addr_space = 3 : i32} : !llvm.array<8 x f32>
// CHECK-DAG: llvm.mlir.global private constant @table
gpu.module @kernels {
  memref.global "private" constant @table : memref<2xf32> = dense<[1.0, 2.0]>
  gpu.func @kernel(%n: index) workgroup(%partials : memref<8xf32, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    %shared = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %row = memref.view %shared[%c0][%n] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?xf32, #gpu.address_space<workgroup>>
    %t = memref.get_global @table : memref<2xf32>
    %v = memref.load %t[%c0] : memref<2xf32>
    memref.store %v, %row[%c0] : memref<?xf32, #gpu.address_space<workgroup>>
    memref.store %v, %partials[%c0] : memref<8xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}
