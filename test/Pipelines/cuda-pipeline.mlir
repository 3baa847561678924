// RUN: rm -rf %t && split-file %s %t && mkdir -p %t/empty-toolkit
// RUN: dl-opt %t/main.mlir --dlbridge-cuda-pipeline="format=ptx" | FileCheck %s
// RUN: dl-opt %t/main.mlir --dlbridge-cuda-pipeline="chip=sm_90a format=ptx" \
// RUN:   | FileCheck %s --check-prefix=SM90A
// RUN: not dl-opt %t/math.mlir \
// RUN:   --dlbridge-cuda-pipeline="format=ptx toolkit=%t/empty-toolkit" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOLIBDEVICE -DTOOLKIT=%t/empty-toolkit

// (Math that links libdevice when a toolkit has it is checked by
// unittests/Pipelines, which skips without a toolkit; nothing here needs
// one: PTX is not assembled and main.mlir calls no libdevice function.)

//--- main.mlir
// A tensor program: broadcasting elementwise arithmetic, then a full
// reduction.
// Host code allocates on the device and launches on the stream of the call
// (dlrt_call_stream); nothing creates, synchronises or destroys a stream.

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?xf32>)
    -> (tensor<?x?xf32>, tensor<f32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %a, %c1 : tensor<?x?xf32>
  %init = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<?x?xf32>, tensor<?xf32>)
      outs(%init : tensor<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %e = arith.mulf %s, %s : f32
    linalg.yield %e : f32
  } -> tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %t0 = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%t0 : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%b : tensor<?xf32>) outs(%acc : tensor<f32>)
      dimensions = [0]
    (%x: f32, %o: f32) {
      %v = arith.addf %x, %o : f32
      linalg.yield %v : f32
    }
  return %r, %sum : tensor<?x?xf32>, tensor<f32>
}

// CHECK-LABEL: llvm.func @f(
// CHECK-DAG: %[[ONE:.*]] = llvm.mlir.constant(1 : index) : i64
// CHECK-DAG: %[[BLOCK:.*]] = llvm.mlir.constant(256 : index) : i64
// CHECK: %[[S:.*]] = llvm.call @dlrt_call_stream() : () -> !llvm.ptr
// CHECK: llvm.call @mgpuMemAlloc(%{{.*}}, %[[S]], %{{.*}})
// The elementwise kernel: blocks of 256 threads along x.
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @f_kernel::@f_kernel
// CHECK-SAME: threads in (%[[BLOCK]], %[[ONE]], %[[ONE]])
// CHECK: llvm.call @mgpuMemAlloc(%{{.*}}, %[[S]], %{{.*}})
// The full reduction: the fill of its 0-d initial value (one thread), then
// blocks of 256 threads writing partial values to a temporary buffer, then
// one block of 256 threads reducing those.
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @f_kernel_0::@f_kernel blocks in (%[[ONE]], %[[ONE]], %[[ONE]]) threads in (%[[ONE]], %[[ONE]], %[[ONE]])
// CHECK: %[[PARTS:.*]] = llvm.call @mgpuMemAlloc(%{{.*}}, %[[S]], %{{.*}})
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @f_kernel_1::@f_kernel blocks in (%{{.*}}, %[[ONE]], %[[ONE]]) threads in (%[[BLOCK]], %[[ONE]], %[[ONE]])
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @f_kernel_2::@f_kernel blocks in (%[[ONE]], %[[ONE]], %[[ONE]]) threads in (%[[BLOCK]], %[[ONE]], %[[ONE]])
// CHECK: llvm.call @mgpuMemFree(%[[PARTS]], %[[S]])
// CHECK: llvm.return

// The entry point: results are CUDA buffers packed for the caller once the
// status, read after dlrt_call_end (which reports failed launches), is 0.
// CHECK-LABEL: llvm.func @f__dlpack(
// CHECK: llvm.call @dlrt_call_begin(
// CHECK: llvm.call @f(
// CHECK: llvm.call @dlrt_call_end(
// CHECK-NEXT: llvm.call @dlrt_status(
// CHECK: llvm.call @dlrt_pack_result(
// CHECK: llvm.call @dlrt_pack_result(
// CHECK-NEXT: llvm.call @dlrt_status(
// CHECK: llvm.mlir.global{{.*}}@f__dlpack_signature
// The device type (kDLCUDA = 2) is in the signature record.
// CHECK: llvm.mlir.constant(2 : i32)

// CHECK: gpu.binary @f_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">
// CHECK-SAME: .version 7.0
// CHECK-SAME: .target sm_80
// CHECK-NOT: .extern .func
// CHECK-NOT: mgpuStreamCreate
// CHECK-NOT: mgpuStreamSynchronize
// CHECK-NOT: mgpuStreamDestroy
// CHECK-NOT: llvm.call @malloc

// SM90A: #nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">
// SM90A-SAME: .version 8.0
// SM90A-SAME: .target sm_90a

// NOLIBDEVICE: error: kernels call libdevice (__nv_tanhf) but libdevice is not at [[TOOLKIT]]/nvvm/libdevice/libdevice.10.bc (toolkit option); point the toolkit option (CompileOptions::toolkit) or CUDA_HOME at a CUDA toolkit

//--- math.mlir
func.func @g(%a: tensor<4xf32>) -> tensor<4xf32> attributes {dlpack.entry} {
  %init = tensor.empty() : tensor<4xf32>
  %r = linalg.map { math.tanh } ins(%a : tensor<4xf32>) outs(%init : tensor<4xf32>)
  return %r : tensor<4xf32>
}
