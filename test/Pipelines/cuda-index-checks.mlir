// REQUIRES: ptxas
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=ptx" | FileCheck %s
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=cubin chip=sm_80" -o /dev/null
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=cubin chip=sm_90" -o /dev/null

// A gather in a kernel: each thread compares its index read from data with
// the dimension (one unsigned compare and a branch); only a failing thread
// touches the check words (atomic exchange claims the first failure), and
// the host reads them back after the launch, on the call's stream, and
// fails the call with the extract's message. The gather stays a kernel of
// full blocks.

// CHECK-LABEL: llvm.func @take(
// CHECK: %[[S:.*]] = llvm.call @dlrt_call_stream() : () -> !llvm.ptr
// CHECK: %[[WORDS:.*]] = llvm.call @mgpuMemAlloc(%{{.*}}, %[[S]], %{{.*}})
// CHECK: llvm.call @mgpuMemcpy(%[[WORDS]], %{{.*}}, %{{.*}}, %[[S]])
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @take_kernel::@take_kernel blocks in ({{.*}}) threads in (%[[THREADS:.*]], %{{.*}}, %{{.*}}) : i64 args({{.*}}%[[WORDS]] : !llvm.ptr
// CHECK: llvm.call @mgpuMemcpy(%{{.*}}, %[[WORDS]], %{{.*}}, %[[S]])
// CHECK-NEXT: llvm.call @dlrt_call_synchronize() : () -> ()
// CHECK-NEXT: llvm.call @mgpuMemFree(%[[WORDS]], %[[S]])
// CHECK: llvm.call @dlrt_check_failed(
// CHECK: gpu.binary @take_kernel
// CHECK-SAME: .maxntid 256, 1, 1
// CHECK-SAME: setp.ge.u64 \09[[P:%p[0-9]+]], [[I:%rd[0-9]+]], [[N:%rd[0-9]+]];\0A\09@[[P]] bra \09[[FAIL:\$L__BB0_[0-9]+]];
// CHECK-SAME: [[FAIL]]:\0A\09atom.global.exch.b64
// CHECK-SAME: st.global.b32 \09[%rd{{[0-9]+}}+16], [[I]];
#id = affine_map<(d0) -> (d0)>
func.func @take(%x: tensor<?xf32>, %idx: tensor<?xi64>) -> tensor<?xf32>
    attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %idx, %c0 : tensor<?xi64>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%idx : tensor<?xi64>) outs(%e : tensor<?xf32>) {
  ^bb0(%k: i64, %o: f32):
    %i = arith.index_cast %k : i64 to index
    %v = tensor.extract %x[%i] : tensor<?xf32>
    linalg.yield %v : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
