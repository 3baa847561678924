// RUN: dl-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-reductions-to-kernels))' \
// RUN:   | FileCheck %s

// Short rows of row groups (warp-row-length): a warp per row, the block's
// eight warps on eight rows.

// A static row of 64 floats: only the warp kernel. Blocks take groups of
// eight rows; each warp its row, if there is one; the max and the sum are
// warp shuffles alone, with no workgroup buffer or block barrier; lane 0
// stores the per-row values.
// CHECK-LABEL: func.func @narrow(
// CHECK-SAME: %[[X:[^ ,)]*]]: memref<4096x64xf32>, %[[Y:[^ ,)]*]]: memref<4096x64xf32>
// CHECK-NOT: scf.if
// CHECK: %[[GROUPS:[^ ,)]*]] = arith.ceildivui %c4096{{.*}}, %c8
// CHECK: gpu.launch blocks({{.*}}) threads(%[[TX:[^ ,)]*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256{{.*}}) {
// CHECK: %[[WARP:[^ ,)]*]] = arith.divui %[[TX]], %c32
// CHECK: %[[LANE:[^ ,)]*]] = arith.remui %[[TX]], %c32
// CHECK: scf.for %[[GROUP:[^ ,)]*]] = %{{.*}} to %[[GROUPS]] step
// CHECK: %[[FIRST:[^ ,)]*]] = arith.muli %[[GROUP]], %c8
// CHECK: %[[ROW:[^ ,)]*]] = arith.addi %[[FIRST]], %[[WARP]]
// CHECK: %[[INSIDE:[^ ,)]*]] = arith.cmpi ult, %[[ROW]], %c4096
// CHECK: scf.if %[[INSIDE]] {
// CHECK-NOT: gpu.barrier
// CHECK: gpu.subgroup_reduce maximumf
// CHECK-NOT: gpu.barrier
// CHECK: gpu.subgroup_reduce add
// CHECK-NOT: gpu.barrier
// CHECK: arith.divf
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bcast = affine_map<(d0, d1) -> (d0, 0)>
#row2 = affine_map<(d0, d1) -> (d0)>
func.func @narrow(%x: memref<4096x64xf32>, %y: memref<4096x64xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %max = memref.alloc() : memref<4096xf32>
  linalg.fill ins(%ninf : f32) outs(%max : memref<4096xf32>)
  linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4096x64xf32>) outs(%max : memref<4096xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.maximumf %out, %in : f32
    linalg.yield %v : f32
  }
  %sum = memref.alloc() : memref<4096xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<4096xf32>)
  %max1 = memref.expand_shape %max [[0, 1]] output_shape [4096, 1] : memref<4096xf32> into memref<4096x1xf32>
  linalg.generic {indexing_maps = [#id2, #bcast, #row2], iterator_types = ["parallel", "reduction"]}
      ins(%x, %max1 : memref<4096x64xf32>, memref<4096x1xf32>) outs(%sum : memref<4096xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %e = math.exp %d : f32
    %v = arith.addf %out, %e : f32
    linalg.yield %v : f32
  }
  %sum1 = memref.expand_shape %sum [[0, 1]] output_shape [4096, 1] : memref<4096xf32> into memref<4096x1xf32>
  linalg.generic {indexing_maps = [#id2, #bcast, #bcast, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max1, %sum1 : memref<4096x64xf32>, memref<4096x1xf32>, memref<4096x1xf32>)
      outs(%y : memref<4096x64xf32>) {
  ^bb0(%in: f32, %mx: f32, %s: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %e = math.exp %d : f32
    %v = arith.divf %e, %s : f32
    linalg.yield %v : f32
  }
  memref.dealloc %max : memref<4096xf32>
  memref.dealloc %sum : memref<4096xf32>
  return
}

// -----

// A dynamic row length: the host launches the warp kernel for rows of at
// most 512 elements, the block kernel (with its row cache) otherwise. A
// member that reads the row another wrote waits at a warp barrier in the
// first, a block barrier in the second.
// CHECK-LABEL: func.func @dynamic(
// CHECK: %[[SHORT:[^ ,)]*]] = arith.cmpi ule, %{{.*}}, %c512
// CHECK: scf.if %[[SHORT]] {
// CHECK: gpu.launch
// CHECK: arith.remui %{{.*}}, %c32
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.bar.warp.sync %{{.*}} : i32
// CHECK: } else {
// CHECK: gpu.launch
// CHECK: gpu.barrier
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d0)>
func.func @dynamic(%x: memref<?x?xf32>, %e: memref<?x?xf32>, %sum: memref<?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x?xf32>) outs(%e : memref<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  }
  linalg.fill ins(%zero : f32) outs(%sum : memref<?xf32>)
  linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]}
      ins(%e : memref<?x?xf32>) outs(%sum : memref<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.addf %out, %in : f32
    linalg.yield %v : f32
  }
  return
}
