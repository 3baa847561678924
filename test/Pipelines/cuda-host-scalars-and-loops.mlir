// REQUIRES: ptxas
// RUN: dl-opt %s --split-input-file --verify-diagnostics \
// RUN:   --dlbridge-cuda-pipeline="format=ptx" | FileCheck %s
// RUN: dl-opt %s --split-input-file --verify-diagnostics \
// RUN:   --dlbridge-cuda-pipeline="format=cubin chip=sm_80" -o /dev/null
// RUN: dl-opt %s --split-input-file --verify-diagnostics \
// RUN:   --dlbridge-cuda-pipeline="format=cubin chip=sm_90" -o /dev/null

// Programs that compile for the CPU compile for CUDA: scalars host code
// reads from device tensors but only kernels use are read by the kernels;
// memref-level loops over device data become kernels, of full blocks where
// the loops are parallel and of one thread where they are sequential.

// A 0-d tensor extracted in host code and used in a kernel body: one
// kernel, which loads the scalar itself; host code reads no data.

#id = affine_map<(d0) -> (d0)>

// CHECK-LABEL: llvm.func @extract_0d(
// CHECK-NOT: llvm.load
// CHECK: gpu.launch_func {{.*}} @extract_0d_kernel::@extract_0d_kernel
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.return
// CHECK: gpu.binary @extract_0d_kernel
// CHECK-SAME: ld.global.b32 {{.*}}ld.global.b32 {{.*}}mul.rn.f32
func.func @extract_0d(%t: tensor<f32>, %x: tensor<?xf32>) -> tensor<?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %s = tensor.extract %t[] : tensor<f32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %s : f32
    linalg.yield %m : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// The same scalar, and one computed from it on the host, in two kernels of
// different shapes: each kernel loads and computes it.

#id = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: llvm.func @extract_0d_two_kernels(
// CHECK-NOT: llvm.load
// CHECK: gpu.launch_func
// CHECK: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.return
// CHECK: gpu.binary @extract_0d_two_kernels_kernel
// CHECK-SAME: mul.rn.f32
// CHECK: gpu.binary @extract_0d_two_kernels_kernel_0
// CHECK-SAME: add.rn.f32
func.func @extract_0d_two_kernels(%t: tensor<f32>, %x: tensor<?xf32>, %y: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?x?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = tensor.extract %t[] : tensor<f32>
  %two = arith.constant 2.0 : f32
  %s2 = arith.mulf %s, %two : f32
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %s : f32
    linalg.yield %m : f32
  } -> tensor<?xf32>
  %rows = tensor.dim %y, %c0 : tensor<?x?xf32>
  %cols = tensor.dim %y, %c1 : tensor<?x?xf32>
  %e2 = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %r2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<?x?xf32>) outs(%e2 : tensor<?x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.addf %a, %s2 : f32
    linalg.yield %m : f32
  } -> tensor<?x?xf32>
  return %r, %r2 : tensor<?xf32>, tensor<?x?xf32>
}

// -----

// The 0-d result of a reduction, extracted (x / sum(x)): the kernels that
// reduce write it, the last kernel reads it; host code reads nothing.

#id = affine_map<(d0) -> (d0)>

// CHECK-LABEL: llvm.func @divide_by_sum(
// CHECK-NOT: llvm.load
// CHECK: llvm.return
// CHECK: gpu.binary @divide_by_sum_kernel_2
// CHECK-SAME: div.rn.f32
func.func @divide_by_sum(%x: tensor<?xf32>) -> tensor<?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%x : tensor<?xf32>) outs(%z : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  %s = tensor.extract %sum[] : tensor<f32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.divf %a, %s : f32
    linalg.yield %m : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A scalar read from the buffer the kernel writes (x /= x[0]): every thread
// must divide by the value from before the kernel, so a kernel of one
// thread copies it to a 0-d device buffer first, freed after.

#id = affine_map<(d0) -> (d0)>

// CHECK-LABEL: llvm.func @normalize_in_place(
// CHECK-NOT: llvm.load
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : index) : i64
// CHECK: llvm.call @mgpuMemAlloc
// CHECK: gpu.launch_func {{.*}} blocks in (%[[ONE]], %[[ONE]], %[[ONE]]) threads in (%[[ONE]], %[[ONE]], %[[ONE]])
// CHECK: gpu.launch_func
// CHECK: llvm.call @mgpuMemFree
// CHECK: llvm.return
func.func @normalize_in_place(%x: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %s = memref.load %x[%c0] : memref<?xf32>
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%x : memref<?xf32>) {
  ^bb0(%o: f32):
    %m = arith.divf %o, %s : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// A memref-level affine loop over device data that carries a value through
// memory (a running sum): one kernel of one thread runs it in order.

// CHECK-LABEL: llvm.func @affine_recurrence(
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : index) : i64
// CHECK-NOT: llvm.load
// CHECK: gpu.launch_func {{.*}} blocks in (%[[ONE]], %[[ONE]], %[[ONE]]) threads in (%[[ONE]], %[[ONE]], %[[ONE]])
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.return
// CHECK: gpu.binary @affine_recurrence_kernel
// CHECK-SAME: add.rn.f32
func.func @affine_recurrence(%x: memref<?xf32>, %y: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  affine.for %i = 1 to %n {
    %a = affine.load %y[%i - 1] : memref<?xf32>
    %b = affine.load %x[%i] : memref<?xf32>
    %c = arith.addf %a, %b : f32
    affine.store %c, %y[%i] : memref<?xf32>
  }
  return
}

// -----

// An scf.for over a device buffer with a loop-carried scalar (a sum) stored
// to a 0-d output: one kernel of one thread.

// CHECK-LABEL: llvm.func @scf_for_carried(
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : index) : i64
// CHECK-NOT: llvm.load
// CHECK: gpu.launch_func {{.*}} blocks in (%[[ONE]], %[[ONE]], %[[ONE]]) threads in (%[[ONE]], %[[ONE]], %[[ONE]])
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.return
func.func @scf_for_carried(%x: memref<?xf32>, %out: memref<f32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?xf32>
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %x[%i] : memref<?xf32>
    %a = arith.addf %acc, %v : f32
    scf.yield %a : f32
  }
  memref.store %sum, %out[] : memref<f32>
  return
}

// -----

// Nested parallel affine loops: one kernel whose blocks have 256 threads
// along the inner (contiguous) dimension, as linalg's loops get.

// CHECK-LABEL: llvm.func @affine_nest(
// CHECK-DAG: %[[THREADS:.*]] = llvm.mlir.constant(256 : index) : i64
// CHECK-DAG: %[[ONE:.*]] = llvm.mlir.constant(1 : index) : i64
// CHECK-NOT: llvm.load
// CHECK: gpu.launch_func {{.*}} threads in (%[[THREADS]], %[[ONE]], %[[ONE]])
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.return
func.func @affine_nest(%x: memref<?x?xf32>, %y: memref<?x?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %cols = memref.dim %x, %c1 : memref<?x?xf32>
  affine.for %i = 0 to %rows {
    affine.for %j = 0 to %cols {
      %a = affine.load %x[%i, %j] : memref<?x?xf32>
      %b = arith.mulf %a, %a : f32
      affine.store %b, %y[%i, %j] : memref<?x?xf32>
    }
  }
  return
}

// -----

// A scalar host code itself needs (to choose what to compute) is read back:
// a kernel of one thread stores it, host code copies it on the call's
// stream, waits, and branches on it to the kernel of the branch taken.

// CHECK-LABEL: llvm.func @branch_on_data(
// CHECK: gpu.launch_func <%[[STREAM:.*]] : !llvm.ptr> @branch_on_data_kernel::@branch_on_data_kernel blocks in (%[[ONE:.*]], %[[ONE]], %[[ONE]]) threads in (%[[ONE]], %[[ONE]], %[[ONE]])
// CHECK: llvm.call @mgpuMemcpy(%[[HOST:.*]], %{{.*}}, %{{.*}}, %[[STREAM]])
// CHECK-NEXT: llvm.call @dlrt_call_synchronize()
// CHECK: %[[WORD:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK: %[[FLAG:.*]] = llvm.trunc %[[WORD]] : i64 to i1
// CHECK: llvm.cond_br %[[FLAG]]
// CHECK: gpu.launch_func <%[[STREAM]] : !llvm.ptr> @branch_on_data_kernel_0::@branch_on_data_kernel
func.func @branch_on_data(%flag: tensor<i1>, %x: tensor<?xf32>) -> tensor<?xf32> attributes {dlpack.entry} {
  %c = tensor.extract %flag[] : tensor<i1>
  %r = scf.if %c -> tensor<?xf32> {
    %y = arith.addf %x, %x : tensor<?xf32>
    scf.yield %y : tensor<?xf32>
  } else {
    scf.yield %x : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}
