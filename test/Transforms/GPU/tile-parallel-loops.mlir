// RUN: dl-opt %s --dlbridge-gpu-tile-parallel-loops | FileCheck %s
// RUN: dl-opt %s --dlbridge-gpu-tile-parallel-loops="block-sizes-1d=128 block-sizes-2d=4,32 block-sizes-3d=2,4,8" \
// RUN:   | FileCheck %s --check-prefix=CUSTOM

// Innermost scf.parallel loops are tiled into blocks of threads by their
// rank: the tile loop (blocks) steps by the block sizes times the old steps
// and encloses the intra-tile loop (threads), bounded by affine.min.

// CHECK-LABEL: func.func @one_d
// CHECK: %[[C256:.*]] = arith.constant 256 : index
// CHECK: %[[S:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%[[S]])
// CHECK: affine.min
// CHECK: scf.parallel
// CHECK: memref.store
// CUSTOM-LABEL: func.func @one_d
// CUSTOM: %[[C128:.*]] = arith.constant 128 : index
// CUSTOM: %[[S:.*]] = arith.muli %{{.*}}, %[[C128]] : index
// CUSTOM: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%[[S]])
func.func @one_d(%x: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %f, %x[%i] : memref<?xf32>
  }
  return
}

// CHECK-LABEL: func.func @two_d
// CHECK: arith.constant 0 : index
// CHECK: arith.constant 0 : index
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[C256:.*]] = arith.constant 256 : index
// CHECK: %[[S0:.*]] = arith.muli %{{.*}}, %[[C1]] : index
// CHECK: %[[S1:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %{{.*}}) step (%[[S0]], %[[S1]])
// CUSTOM-LABEL: func.func @two_d
// CUSTOM: %[[C4:.*]] = arith.constant 4 : index
// CUSTOM: %[[C32:.*]] = arith.constant 32 : index
// CUSTOM: %[[S0:.*]] = arith.muli %{{.*}}, %[[C4]] : index
// CUSTOM: %[[S1:.*]] = arith.muli %{{.*}}, %[[C32]] : index
// CUSTOM: step (%[[S0]], %[[S1]])
func.func @two_d(%x: memref<?x?xf32>, %m: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    memref.store %f, %x[%i, %j] : memref<?x?xf32>
  }
  return
}

// Deeper loops: the 3-d sizes for the inner three dimensions, 1 for the
// rest.
// CHECK-LABEL: func.func @four_d
// CHECK: arith.constant 0 : index
// CHECK: arith.constant 0 : index
// CHECK-NEXT: %[[A:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[B:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[C:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[D:.*]] = arith.constant 256 : index
// CHECK: arith.muli %{{.*}}, %[[A]] : index
// CHECK: arith.muli %{{.*}}, %[[B]] : index
// CHECK: arith.muli %{{.*}}, %[[C]] : index
// CHECK: arith.muli %{{.*}}, %[[D]] : index
// CUSTOM-LABEL: func.func @four_d
// CUSTOM: arith.constant 0 : index
// CUSTOM: arith.constant 0 : index
// CUSTOM-NEXT: arith.constant 1 : index
// CUSTOM-NEXT: arith.constant 2 : index
// CUSTOM-NEXT: arith.constant 4 : index
// CUSTOM-NEXT: arith.constant 8 : index
func.func @four_d(%x: memref<?x?x?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j, %k, %l) = (%c0, %c0, %c0, %c0) to (%n, %n, %n, %n) step (%c1, %c1, %c1, %c1) {
    memref.store %f, %x[%i, %j, %k, %l] : memref<?x?x?x?xf32>
  }
  return
}

// Only the innermost loop of a nest is tiled: the outer one keeps its step.
// CHECK-LABEL: func.func @nest
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%[[ONE]]) {
// CHECK: %[[C256:.*]] = arith.constant 256 : index
// CHECK: %[[S:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%[[S]]) {
// CHECK: scf.parallel
func.func @nest(%x: memref<?x?xf32>, %m: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%m) step (%c1) {
    scf.parallel (%j) = (%c0) to (%n) step (%c1) {
      memref.store %f, %x[%i, %j] : memref<?x?xf32>
    }
  }
  return
}

// Static shapes keep blocks full: the threads a short dimension would
// leave idle go to the next dimension out (4 columns: 64 rows of 4 per
// block), and a loop smaller than a block gets one tile of its size,
// rounded up to a power of two.
// CHECK-LABEL: func.func @static_narrow
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[S0:.*]] = arith.muli %{{.*}}, %[[C64]] : index
// CHECK-NEXT: %[[S1:.*]] = arith.muli %{{.*}}, %[[C4]] : index
// CHECK: step (%[[S0]], %[[S1]])
// CHECK-LABEL: func.func @static_small
// CHECK: arith.constant 0 : index
// CHECK: arith.constant 0 : index
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[C4B:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[S0:.*]] = arith.muli %{{.*}}, %[[C4]] : index
// CHECK-NEXT: %[[S1:.*]] = arith.muli %{{.*}}, %[[C4B]] : index
// CHECK: step (%[[S0]], %[[S1]])
func.func @static_narrow(%x: memref<1000x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c1000 = arith.constant 1000 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c1000, %c4) step (%c1, %c1) {
    memref.store %f, %x[%i, %j] : memref<1000x4xf32>
  }
  return
}

func.func @static_small(%x: memref<3x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c3, %c4) step (%c1, %c1) {
    memref.store %f, %x[%i, %j] : memref<3x4xf32>
  }
  return
}
