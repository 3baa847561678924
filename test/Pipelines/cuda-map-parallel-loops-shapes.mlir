// REQUIRES: ptxas
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=ptx chip=sm_90" | FileCheck %s
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=ptx chip=sm_90" | FileCheck %s --check-prefix=FULL
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=cubin chip=sm_80" -o /dev/null
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=cubin chip=sm_90" -o /dev/null

// Parallel loops of every kind of shape on the loop path (strided layouts,
// so dlbridge-gpu-vectorize-elementwise leaves them alone) get full blocks
// (dlbridge-gpu-map-parallel-loops): static shapes whose tiles divide them,
// which canonicalisation merges into one loop, primes, size-1 dimensions,
// ranks 1 to 4, broadcasts, the parallel part of a reduction, memref-level
// linalg and scf.parallel written by hand. Never a block of one thread.
// FULL-NOT: .maxntid 1, 1, 1

// The shape of issue 24: 102400 elements, 400 blocks of 256 threads.
// CHECK-LABEL: llvm.func @add_1024x100(
// CHECK-DAG: %[[C256:.*]] = llvm.mlir.constant(256 : index) : i64
// CHECK-DAG: %[[C400:.*]] = llvm.mlir.constant(400 : index) : i64
// CHECK-DAG: %[[C1:.*]] = llvm.mlir.constant(1 : index) : i64
// CHECK: gpu.launch_func {{.*}} blocks in (%[[C400]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]])
// CHECK: gpu.binary @add_1024x100_kernel {{.*}}.maxntid 256, 1, 1
func.func @add_1024x100(%a: tensor<1024x100xf32>, %b: tensor<1024x100xf32>) -> tensor<1024x100xf32> attributes {dlpack.entry} {
  %e = tensor.empty() : tensor<1024x100xf32>
  %r = linalg.add ins(%a, %b : tensor<1024x100xf32>, tensor<1024x100xf32>) outs(%e : tensor<1024x100xf32>) -> tensor<1024x100xf32>
  return %r : tensor<1024x100xf32>
}

// CHECK-LABEL: llvm.func @square_1024x1024(
// CHECK-DAG: %[[C256:.*]] = llvm.mlir.constant(256 : index) : i64
// CHECK-DAG: %[[C4096:.*]] = llvm.mlir.constant(4096 : index) : i64
// CHECK: gpu.launch_func {{.*}} blocks in (%[[C4096]], %{{.*}}, %{{.*}}) threads in (%[[C256]], %{{.*}}, %{{.*}})
// CHECK: gpu.binary @square_1024x1024_kernel {{.*}}.maxntid 256, 1, 1
func.func @square_1024x1024(%a: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> attributes {dlpack.entry} {
  %r = arith.mulf %a, %a : tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}

// Primes: rows of 13 along x, 16 rows a block.
// CHECK-LABEL: llvm.func @primes_997x13(
// CHECK: gpu.binary @primes_997x13_kernel {{.*}}.maxntid 13, 16, 1
func.func @primes_997x13(%a: tensor<997x13xf32>) -> tensor<997x13xf32> attributes {dlpack.entry} {
  %r = arith.negf %a : tensor<997x13xf32>
  return %r : tensor<997x13xf32>
}

// CHECK-LABEL: llvm.func @prime_997(
// CHECK: gpu.binary @prime_997_kernel {{.*}}.maxntid 256, 1, 1
func.func @prime_997(%a: tensor<997xf32>) -> tensor<997xf32> attributes {dlpack.entry} {
  %r = arith.negf %a : tensor<997xf32>
  return %r : tensor<997xf32>
}

// Fewer elements than a block: one block of a thread each.
// CHECK-LABEL: llvm.func @prime_13(
// CHECK: gpu.binary @prime_13_kernel {{.*}}.maxntid 13, 1, 1
func.func @prime_13(%a: tensor<13xf32>) -> tensor<13xf32> attributes {dlpack.entry} {
  %r = arith.negf %a : tensor<13xf32>
  return %r : tensor<13xf32>
}

// CHECK-LABEL: llvm.func @unit_dims_1x1x1000(
// CHECK: gpu.binary @unit_dims_1x1x1000_kernel {{.*}}.maxntid 256, 1, 1
func.func @unit_dims_1x1x1000(%a: tensor<1x1x1000xf32>) -> tensor<1x1x1000xf32> attributes {dlpack.entry} {
  %r = arith.negf %a : tensor<1x1x1000xf32>
  return %r : tensor<1x1x1000xf32>
}

// CHECK-LABEL: llvm.func @unit_inner_1000x1(
// CHECK: gpu.binary @unit_inner_1000x1_kernel {{.*}}.maxntid 256, 1, 1
func.func @unit_inner_1000x1(%a: tensor<1000x1xf32>) -> tensor<1000x1xf32> attributes {dlpack.entry} {
  %r = arith.negf %a : tensor<1000x1xf32>
  return %r : tensor<1000x1xf32>
}

// CHECK-LABEL: llvm.func @cube_64x64x64(
// CHECK-DAG: %[[C1024:.*]] = llvm.mlir.constant(1024 : index) : i64
// CHECK-DAG: %[[C256:.*]] = llvm.mlir.constant(256 : index) : i64
// CHECK: gpu.launch_func {{.*}} blocks in (%[[C1024]], %{{.*}}, %{{.*}}) threads in (%[[C256]], %{{.*}}, %{{.*}})
// CHECK: gpu.binary @cube_64x64x64_kernel {{.*}}.maxntid 256, 1, 1
func.func @cube_64x64x64(%a: tensor<64x64x64xf32>) -> tensor<64x64x64xf32> attributes {dlpack.entry} {
  %r = arith.negf %a : tensor<64x64x64xf32>
  return %r : tensor<64x64x64xf32>
}

// 120 elements: one block of four warps.
// CHECK-LABEL: llvm.func @rank4_2x3x4x5(
// CHECK: gpu.binary @rank4_2x3x4x5_kernel {{.*}}.maxntid 128, 1, 1
func.func @rank4_2x3x4x5(%a: tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32> attributes {dlpack.entry} {
  %r = arith.negf %a : tensor<2x3x4x5xf32>
  return %r : tensor<2x3x4x5xf32>
}

// Inner dimensions too small to fill a block, an outer one too long for a
// block.
// CHECK-LABEL: llvm.func @rank4_1000x2x2x2(
// CHECK: gpu.binary @rank4_1000x2x2x2_kernel {{.*}}.maxntid 256, 1, 1
func.func @rank4_1000x2x2x2(%a: tensor<1000x2x2x2xf32>) -> tensor<1000x2x2x2xf32> attributes {dlpack.entry} {
  %r = arith.negf %a : tensor<1000x2x2x2xf32>
  return %r : tensor<1000x2x2x2xf32>
}

// A row broadcast across 512 rows.
// CHECK-LABEL: llvm.func @broadcast_row(
// CHECK: gpu.binary @broadcast_row_kernel {{.*}}.maxntid 256, 1, 1
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
func.func @broadcast_row(%a: tensor<512x256xf32>, %b: tensor<256xf32>) -> tensor<512x256xf32> attributes {dlpack.entry} {
  %e = tensor.empty() : tensor<512x256xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<512x256xf32>, tensor<256xf32>) outs(%e : tensor<512x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<512x256xf32>
  return %r : tensor<512x256xf32>
}

// A reduction that dlbridge-gpu-reductions-to-kernels leaves to the loop
// path (two results): a thread per row, 4096 rows; and the two fills.
// CHECK-LABEL: llvm.func @two_sums(
// CHECK-COUNT-4: gpu.binary @two_sums_kernel{{.*}}.maxntid 256, 1, 1
#in = affine_map<(i, j) -> (i, j)>
#out = affine_map<(i, j) -> (i)>
func.func @two_sums(%a: tensor<4096x8xf32>) -> (tensor<4096xf32>, tensor<4096xf32>) attributes {dlpack.entry} {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4096xf32>) -> tensor<4096xf32>
  %r:2 = linalg.generic {indexing_maps = [#in, #out, #out], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<4096x8xf32>) outs(%f, %f : tensor<4096xf32>, tensor<4096xf32>) {
  ^bb0(%x: f32, %s: f32, %q: f32):
    %s1 = arith.addf %s, %x : f32
    %x2 = arith.mulf %x, %x : f32
    %q1 = arith.addf %q, %x2 : f32
    linalg.yield %s1, %q1 : f32, f32
  } -> (tensor<4096xf32>, tensor<4096xf32>)
  return %r#0, %r#1 : tensor<4096xf32>, tensor<4096xf32>
}

// Memref-level linalg, as a backend hands it over.
// CHECK-LABEL: llvm.func @memref_add(
// CHECK: gpu.binary @memref_add_kernel {{.*}}.maxntid 256, 1, 1
func.func @memref_add(%a: memref<300x300xf32, strided<[?, ?], offset: ?>>, %b: memref<300x300xf32, strided<[?, ?], offset: ?>>) attributes {dlpack.entry} {
  linalg.add ins(%a, %a : memref<300x300xf32, strided<[?, ?], offset: ?>>, memref<300x300xf32, strided<[?, ?], offset: ?>>)
             outs(%b : memref<300x300xf32, strided<[?, ?], offset: ?>>)
  return
}

// An scf.parallel written by hand.
// CHECK-LABEL: llvm.func @hand_written(
// CHECK: gpu.binary @hand_written_kernel {{.*}}.maxntid 256, 1, 1
func.func @hand_written(%a: memref<640x48xf32, strided<[?, ?], offset: ?>>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c48 = arith.constant 48 : index
  %c640 = arith.constant 640 : index
  %two = arith.constant 2.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c640, %c48) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<640x48xf32, strided<[?, ?], offset: ?>>
    %y = arith.mulf %x, %two : f32
    memref.store %y, %a[%i, %j] : memref<640x48xf32, strided<[?, ?], offset: ?>>
  }
  return
}

// Dynamic shapes keep their tiles: 256 threads along the innermost.
// CHECK-LABEL: llvm.func @dynamic_2d(
// CHECK: gpu.binary @dynamic_2d_kernel {{.*}}.maxntid 256, 1, 1
func.func @dynamic_2d(%a: tensor<?x?xf32>) -> tensor<?x?xf32> attributes {dlpack.entry} {
  %r = arith.negf %a : tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
