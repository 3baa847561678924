// RUN: dl-opt %s --split-input-file --dlbridge-hoist-loop-allocas | FileCheck %s

// Out of nested loops, through an scf.if, up to where its size is defined.

// CHECK-LABEL: func.func @nested
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1
// CHECK-NEXT: memref.alloca(%{{.*}}) : memref<?xf32>
// CHECK-NEXT: scf.for
// CHECK-NEXT: scf.for
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.store
func.func @nested(%n: index, %c: i1, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      scf.if %c {
        %buf = memref.alloca(%n) : memref<?xf32>
        memref.store %v, %buf[%j] : memref<?xf32>
      }
    }
  }
  return
}

// -----

// Sized by the outer induction variable: out of the inner loop only.

// CHECK-LABEL: func.func @sized_inside
// CHECK: scf.for %[[I:.*]] =
// CHECK-NEXT: memref.alloca(%[[I]])
// CHECK-NEXT: scf.for
func.func @sized_inside(%n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c1 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %buf = memref.alloca(%i) : memref<?xf32>
      memref.store %v, %buf[%c0] : memref<?xf32>
    }
  }
  return
}

// -----

// Both regions of an scf.while and an affine.for, through a view and a call.

// CHECK-LABEL: func.func @while_and_affine
// CHECK-NEXT: arith.constant 0
// CHECK-NEXT: memref.alloca() : memref<4xf32>
// CHECK-NEXT: memref.alloca() : memref<8xf32>
// CHECK-NEXT: memref.alloca() : memref<2xf32>
// CHECK-NEXT: scf.while
func.func private @use(memref<4xf32, strided<[1], offset: 2>>) -> memref<4xf32, strided<[1], offset: 2>>

func.func @while_and_affine(%n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %r = scf.while (%i = %c0) : (index) -> index {
    %before = memref.alloca() : memref<4xf32>
    memref.store %v, %before[%c0] : memref<4xf32>
    %go = arith.cmpi slt, %i, %n : index
    scf.condition(%go) %i : index
  } do {
  ^bb0(%i: index):
    %after = memref.alloca() : memref<8xf32>
    %view = memref.subview %after[2] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
    %same = func.call @use(%view) : (memref<4xf32, strided<[1], offset: 2>>) -> memref<4xf32, strided<[1], offset: 2>>
    memref.store %v, %same[%c0] : memref<4xf32, strided<[1], offset: 2>>
    affine.for %k = 0 to 4 {
      %inner = memref.alloca() : memref<2xf32>
      affine.store %v, %inner[0] : memref<2xf32>
    }
    %c1 = arith.constant 1 : index
    %next = arith.addi %i, %c1 : index
    scf.yield %next : index
  }
  return
}

// -----

// Stay: a buffer carried to the next iteration, and iterations that may run
// at the same time.

// CHECK-LABEL: func.func @stay
// CHECK: scf.for
// CHECK-NEXT: memref.alloca
// CHECK: scf.parallel
// CHECK-NEXT: memref.alloca
func.func @stay(%n: index, %init: memref<4xf32>, %v: f32) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%prev = %init) -> memref<4xf32> {
    %buf = memref.alloca() : memref<4xf32>
    memref.copy %prev, %buf : memref<4xf32> to memref<4xf32>
    scf.yield %buf : memref<4xf32>
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %buf = memref.alloca() : memref<4xf32>
    memref.store %v, %buf[%c0] : memref<4xf32>
    scf.reduce
  }
  return %init : memref<4xf32>
}
