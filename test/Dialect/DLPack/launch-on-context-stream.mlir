// RUN: dl-opt %s --dlbridge-launch-on-context-stream | FileCheck %s
// RUN: dl-opt %s --dlbridge-launch-on-context-stream --gpu-to-llvm \
// RUN:   --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM

// Every GPU operation of host code runs on the stream of the call in
// progress, read once per function; no gpu.wait is left to synchronise or
// destroy that stream, which the caller owns.

// The runtime function is declared once, at the start of the module.
// CHECK: llvm.func @dlrt_call_stream() -> !llvm.ptr
module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, "">]

  // CHECK-LABEL: func.func @host(
  // CHECK-SAME: %[[IN:[^:]*]]: memref<?xf32>, %[[N:[^:]*]]: index)
  // CHECK: %[[S:.*]] = llvm.call @dlrt_call_stream() : () -> !llvm.ptr
  // CHECK: %[[T:.*]] = builtin.unrealized_conversion_cast %[[S]] : !llvm.ptr to !gpu.async.token
  // CHECK: %[[BUF:.*]], %{{.*}} = gpu.alloc async [%[[T]]] (%[[N]]) : memref<?xf32>
  // CHECK: gpu.memcpy async [%[[T]]] %[[BUF]], %[[IN]]
  // CHECK: gpu.memset async [%[[T]]] %[[BUF]]
  // CHECK: gpu.launch_func async [%[[T]]] @kernels::@scale
  // CHECK: gpu.launch_func async [%[[T]]] @kernels::@scale
  // CHECK: gpu.dealloc async [%[[T]]] %[[BUF]]
  // CHECK-NOT: gpu.wait
  // CHECK: return
  func.func @host(%in: memref<?xf32>, %n: index) {
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %buf = gpu.alloc (%n) : memref<?xf32>
    gpu.memcpy %buf, %in : memref<?xf32>, memref<?xf32>
    gpu.memset %buf, %zero : memref<?xf32>, f32
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%buf : memref<?xf32>)
    // Already async, on a stream of its own: moved to the call's stream.
    %t0 = gpu.wait async
    %t1 = gpu.launch_func async [%t0] @kernels::@scale
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%buf : memref<?xf32>)
    gpu.wait [%t1]
    gpu.dealloc %buf : memref<?xf32>
    return
  }

  // Host functions without GPU operations are left alone.
  // CHECK-LABEL: func.func @no_gpu(
  // CHECK-NOT: dlrt_call_stream
  // CHECK: return
  func.func @no_gpu() {
    return
  }
}

// After gpu-to-llvm, the stream from the runtime is what every mgpu* call
// and the launches get, and nothing creates, synchronises or destroys one.
// LLVM-LABEL: llvm.func @host(
// LLVM: %[[S:.*]] = llvm.call @dlrt_call_stream() : () -> !llvm.ptr
// LLVM: llvm.call @mgpuMemAlloc(%{{.*}}, %[[S]], %{{.*}})
// LLVM: llvm.call @mgpuMemcpy(%{{.*}}, %{{.*}}, %{{.*}}, %[[S]])
// LLVM: llvm.call @mgpuMemset32(%{{.*}}, %{{.*}}, %{{.*}}, %[[S]])
// LLVM: gpu.launch_func <%[[S]] : !llvm.ptr> @kernels::@scale
// LLVM: gpu.launch_func <%[[S]] : !llvm.ptr> @kernels::@scale
// LLVM: llvm.call @mgpuMemFree(%{{.*}}, %[[S]])
// LLVM-NOT: mgpuStreamCreate
// LLVM-NOT: mgpuStreamSynchronize
// LLVM-NOT: mgpuStreamDestroy
// LLVM-NOT: mgpuEvent
