// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=ptx" | FileCheck %s

// A tensor entry that returns its argument hands back a fresh device
// buffer: allocated on the call's stream and filled by a copy kernel, never
// the caller's array.

// CHECK-LABEL: llvm.func @identity(
// CHECK: %[[S:.*]] = llvm.call @dlrt_call_stream()
// CHECK: llvm.call @mgpuMemAlloc(%{{.*}}, %[[S]], %{{.*}})
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @identity_kernel::@identity_kernel
// CHECK: gpu.binary @identity_kernel
func.func @identity(%x: tensor<?xf32>) -> tensor<?xf32> attributes {dlpack.entry} {
  return %x : tensor<?xf32>
}
