// REQUIRES: ptxas
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=ptx identity-layouts=true" | FileCheck %s
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=ptx" | FileCheck %s --check-prefix=GENERAL
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=cubin chip=sm_80 identity-layouts=true" -o /dev/null
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=cubin chip=sm_90 identity-layouts=true" -o /dev/null

// Elementwise kernels of the contiguous specialisation
// (dlbridge-gpu-vectorize-elementwise): 256-thread blocks whose threads load
// and store 16 bytes at a time (ld.global.v4, st.global.v4), with the
// element-wise path for tails and unaligned data beside it; ptxas accepts
// them for sm_80 and sm_90. The general specialisation indexes through its
// arguments' strides, one element per thread.

// CHECK-LABEL: gpu.binary @add3_kernel
// CHECK-SAME: .maxntid 256, 1, 1
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: st.global.v4.b32
// CHECK-SAME: ld.global.b32
// CHECK-SAME: st.global.b32
// GENERAL-NOT: .v4.b32
// GENERAL: ld.global.b32
// GENERAL-NOT: .v4.b32
func.func @add3(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> attributes {dlpack.entry} {
  %0 = arith.addf %a, %b : tensor<?x?xf32>
  %1 = arith.addf %0, %c : tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// Half precision moves eight elements per access.
// CHECK-LABEL: gpu.binary @scale_shift_f16_kernel
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: st.global.v4.b32
func.func @scale_shift_f16(%x: tensor<?xf16>) -> tensor<?xf16> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf16>
  %e = tensor.empty(%n) : tensor<?xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf16>) outs(%e : tensor<?xf16>) {
  ^bb0(%in: f16, %out: f16):
    %two = arith.constant 2.0 : f16
    %one = arith.constant 1.0 : f16
    %m = arith.mulf %in, %two : f16
    %s = arith.addf %m, %one : f16
    linalg.yield %s : f16
  } -> tensor<?xf16>
  return %r : tensor<?xf16>
}

// Row reductions of the contiguous specialisation load 16 bytes per thread
// too, before their shuffles: in the kernel of a warp per row (short rows)
// and in that of a block per row.
// CHECK-LABEL: gpu.binary @row_sum_kernel [
// CHECK-SAME: ld.global.v4.b32
// CHECK: gpu.binary @row_sum_kernel_{{[0-9]+}} [
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: shfl.sync.bfly.b32
func.func @row_sum(%x: tensor<?x?xf32>) -> tensor<?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.reduce ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) dimensions = [1]
    (%in: f32, %out: f32) {
      %s = arith.addf %out, %in fastmath<reassoc> : f32
      linalg.yield %s : f32
    }
  return %r : tensor<?xf32>
}
