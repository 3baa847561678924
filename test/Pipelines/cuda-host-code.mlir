// REQUIRES: ptxas
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=ptx" | FileCheck %s
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=cubin chip=sm_80" -o /dev/null
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=cubin chip=sm_90" -o /dev/null

// Sequential code a backend wrote for the host (here vector code over an
// entry's buffers) runs for CUDA as one kernel of one thread, in stream
// order: its data is in device memory.

// CHECK-LABEL: llvm.func @contract(
// CHECK: %[[S:.*]] = llvm.call @dlrt_call_stream() : () -> !llvm.ptr
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @contract_kernel::@contract_kernel blocks in (%[[ONE:.*]], %[[ONE]], %[[ONE]]) threads in (%[[ONE]], %[[ONE]], %[[ONE]])
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.return
// CHECK: gpu.binary @contract_kernel
// CHECK-SAME: mul.rn.f32
func.func @contract(%a: memref<8x16xf32>, %b: memref<16x8xf32>, %c: memref<8x8xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %va = vector.transfer_read %a[%c0, %c0], %z : memref<8x16xf32>, vector<8x16xf32>
  %vb = vector.transfer_read %b[%c0, %c0], %z {permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<16x8xf32>, vector<8x16xf32>
  %vc = vector.transfer_read %c[%c0, %c0], %z : memref<8x8xf32>, vector<8x8xf32>
  %r = vector.contract {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %va, %vb, %vc : vector<8x16xf32>, vector<8x16xf32> into vector<8x8xf32>
  vector.transfer_write %r, %c[%c0, %c0] : vector<8x8xf32>, memref<8x8xf32>
  return
}
