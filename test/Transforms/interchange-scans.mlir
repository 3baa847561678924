// RUN: dl-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-interchange-scans{tile-size=4}))' \
// RUN:   | FileCheck %s

// A cumsum down the columns (the tracer's form: each column's view, a walk
// carrying the running value): tiles of 4 columns, rows walked outside,
// the running values in a buffer of one per column, freed after the loop.
// CHECK-LABEL: func.func @columns(
//  CHECK-SAME:     %[[X:.*]]: memref<?x?xf32>
//       CHECK:   %[[INIT:.*]] = arith.constant -0.000000e+00 : f32
//       CHECK:   %[[M:.*]] = memref.dim %[[X]], %c0
//       CHECK:   %[[N:.*]] = memref.dim %[[X]], %c1
//       CHECK:   %[[OUT:.*]] = memref.alloc(%[[M]], %[[N]])
//       CHECK:   %[[RUNNING:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
//       CHECK:   scf.parallel (%[[FIRST:.*]]) = (%c0) to (%[[N]]) step (%[[FOUR:.*]]) {
//       CHECK:     %[[PAST:.*]] = arith.addi %[[FIRST]], %[[FOUR]]
//       CHECK:     %[[END:.*]] = arith.minsi %[[PAST]], %[[N]]
//       CHECK:     scf.for %[[J0:.*]] = %[[FIRST]] to %[[END]] step
//       CHECK:       memref.store %[[INIT]], %[[RUNNING]][
//       CHECK:     scf.for %[[K:.*]] = %c0 to %[[M]] step %c1 {
//       CHECK:       scf.for %[[J:.*]] = %[[FIRST]] to %[[END]] step
//       CHECK:         %[[COL:.*]] = memref.subview %[[OUT]][0, %[[J]]]
//       CHECK:         %[[SLOT:.*]] = arith.subi %[[J]], %c0
//       CHECK:         %[[ACC:.*]] = memref.load %[[RUNNING]][%[[SLOT]]]
//       CHECK:         %[[V:.*]] = memref.load %[[X]][%[[K]], %[[J]]]
//       CHECK:         %[[S:.*]] = arith.addf %[[ACC]], %[[V]] : f32
//       CHECK:         memref.store %[[S]], %[[COL]][%[[K]]]
//       CHECK:         memref.store %[[S]], %[[RUNNING]][%[[SLOT]]]
//       CHECK:   memref.dealloc %[[RUNNING]]
func.func @columns(%x: memref<?x?xf32>) -> memref<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant -0.0 : f32
  %m = memref.dim %x, %c0 : memref<?x?xf32>
  %n = memref.dim %x, %c1 : memref<?x?xf32>
  %out = memref.alloc(%m, %n) : memref<?x?xf32>
  scf.parallel (%j) = (%c0) to (%n) step (%c1) {
    %col = memref.subview %out[0, %j] [%m, 1] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[?], offset: ?>>
    %r = scf.for %k = %c0 to %m step %c1 iter_args(%acc = %init) -> (f32) {
      %v = memref.load %x[%k, %j] : memref<?x?xf32>
      %s = arith.addf %acc, %v : f32
      memref.store %s, %col[%k] : memref<?xf32, strided<[?], offset: ?>>
      scf.yield %s : f32
    }
    scf.reduce
  }
  return %out : memref<?x?xf32>
}

// -----

// A middle dimension, two carried values, stores indexing the column
// directly: a buffer over both parallel dimensions.
// CHECK-LABEL: func.func @middle(
//       CHECK:   %[[A:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?xi64>
//       CHECK:   %[[B:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?xf64>
//       CHECK:   scf.parallel (%[[I:.*]], %[[FIRST:.*]]) = (%c0, %c0) to (%c3, %c50) step (%c1, %c4) {
//       CHECK:     scf.for %[[K:.*]] = %c0 to %c7 step %c1 {
//       CHECK:       scf.for %[[J:.*]] = %[[FIRST]] to
//       CHECK:         memref.load %[[A]][
//       CHECK:         memref.load %[[B]][
//       CHECK:         memref.store %{{.*}}, %{{.*}}[%[[I]], %[[K]], %[[J]]]
//       CHECK:   memref.dealloc %[[A]]
//       CHECK:   memref.dealloc %[[B]]
func.func @middle(%x: memref<3x7x50xi64>, %out: memref<3x7x50xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %c50 = arith.constant 50 : index
  %zero = arith.constant 0 : i64
  %fzero = arith.constant 0.0 : f64
  scf.parallel (%i, %j) = (%c0, %c0) to (%c3, %c50) step (%c1, %c1) {
    %r:2 = scf.for %k = %c0 to %c7 step %c1 iter_args(%a = %zero, %b = %fzero) -> (i64, f64) {
      %v = memref.load %x[%i, %k, %j] : memref<3x7x50xi64>
      %a2 = arith.addi %a, %v : i64
      %f = arith.sitofp %a2 : i64 to f64
      %b2 = arith.addf %b, %f : f64
      memref.store %b2, %out[%i, %k, %j] : memref<3x7x50xf64>
      scf.yield %a2, %b2 : i64, f64
    }
    scf.reduce
  }
  return
}

// -----

// Along rows (already contiguous), a loop with other effects, and a walk
// whose results are used: left alone.
// CHECK-LABEL: func.func @left_alone(
//   CHECK-NOT:   memref.alloc(
// CHECK-COUNT-2:   scf.parallel (%{{[^,]*}}) = (%c0) to (%c8) step (%c1)
func.func @left_alone(%x: memref<8x?xf32>, %out: memref<8x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %init = arith.constant 0.0 : f32
  %n = memref.dim %x, %c1 : memref<8x?xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (f32) {
      %v = memref.load %x[%i, %k] : memref<8x?xf32>
      %s = arith.addf %acc, %v : f32
      memref.store %s, %out[%i, %k] : memref<8x?xf32>
      scf.yield %s : f32
    }
    scf.reduce
  }
  scf.parallel (%j) = (%c0) to (%c8) step (%c1) {
    %r = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %init) -> (f32) {
      %v = memref.load %x[%k, %j] : memref<8x?xf32>
      %s = arith.addf %acc, %v : f32
      memref.store %s, %out[%k, %j] : memref<8x?xf32>
      scf.yield %s : f32
    }
    memref.store %r, %out[%c0, %j] : memref<8x?xf32>
    scf.reduce
  }
  return
}
