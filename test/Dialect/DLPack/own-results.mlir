// RUN: dl-opt %s --split-input-file --dlbridge-own-results | FileCheck %s
// RUN: dl-opt %s --split-input-file --dlbridge-own-results \
// RUN:   --dlbridge-expose-entry-points | FileCheck %s --check-prefix=ENTRY

// A returned argument is copied into a fresh buffer of its shape.
// CHECK-LABEL: func.func @returns_argument(
// CHECK-SAME: %[[X:[^:]*]]: memref<?x4xf32>)
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[N:.*]] = memref.dim %[[X]], %[[C0]]
// CHECK: %[[BUF:.*]] = memref.alloc(%[[N]]) : memref<?x4xf32>
// CHECK: memref.copy %[[X]], %[[BUF]]
// CHECK: return %[[BUF]]
// ENTRY-LABEL: dlpack.signature @returns_argument__dlpack_signature
// ENTRY-SAME: arguments [#dlpack.param<"arg0" : memref<?x4xf32>, read>]
func.func @returns_argument(%x: memref<?x4xf32>) -> memref<?x4xf32>
    attributes {dlpack.entry} {
  return %x : memref<?x4xf32>
}

// -----

// A view of an argument with a fully dynamic layout: copied into an
// identity-layout buffer cast to the result type.
// CHECK-LABEL: func.func @returns_view(
// CHECK: %[[V:.*]] = memref.subview
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<2xf32>
// CHECK: memref.copy %[[V]], %[[BUF]]
// CHECK: %[[CAST:.*]] = memref.cast %[[BUF]] : memref<2xf32> to memref<2xf32, strided<[?], offset: ?>>
// CHECK: return %[[CAST]]
func.func @returns_view(%x: memref<?xf32, strided<[?], offset: ?>>)
    -> memref<2xf32, strided<[?], offset: ?>> attributes {dlpack.entry} {
  %v = memref.subview %x[1] [2] [1] : memref<?xf32, strided<[?], offset: ?>> to memref<2xf32, strided<[?], offset: ?>>
  return %v : memref<2xf32, strided<[?], offset: ?>>
}

// -----

// Constants, globals and stack buffers are copied; a buffer returned twice
// is copied the second time; a fresh allocation is returned as it is.
// CHECK-LABEL: func.func @borrowed_stack_shared(
// CHECK: %[[G:.*]] = memref.get_global @table
// CHECK: %[[S:.*]] = memref.alloca()
// CHECK: %[[A:.*]] = memref.alloc()
// CHECK: %[[GC:.*]] = memref.alloc() : memref<4xf32>
// CHECK: memref.copy %[[G]], %[[GC]]
// CHECK: %[[SC:.*]] = memref.alloc() : memref<4xf32>
// CHECK: memref.copy %[[S]], %[[SC]]
// CHECK: %[[AC:.*]] = memref.alloc() : memref<4xf32>
// CHECK: memref.copy %[[A]], %[[AC]]
// CHECK: return %[[GC]], %[[SC]], %[[A]], %[[AC]]
// ENTRY-LABEL: func.func @borrowed_stack_shared__dlpack(
// ENTRY-COUNT-4: dlpack.pack
memref.global "private" constant @table : memref<4xf32> = dense<1.0>
func.func @borrowed_stack_shared()
    -> (memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>)
    attributes {dlpack.entry} {
  %g = memref.get_global @table : memref<4xf32>
  %s = memref.alloca() : memref<4xf32>
  %a = memref.alloc() : memref<4xf32>
  return %g, %s, %a, %a : memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>
}

// -----

// Functions that are not entries are left alone.
// CHECK-LABEL: func.func @helper(
// CHECK-NEXT: return %{{.*}} : memref<4xf32>
func.func @helper(%x: memref<4xf32>) -> memref<4xf32> {
  return %x : memref<4xf32>
}

// -----

// Through calls, ifs and loops: a call's result is what its callee returns
// (an argument of the caller here, copied; a fresh allocation, returned as
// it is), and a value that control flow merges is owned when every buffer
// it may be is (as the buffer deallocation pipeline's choice between a
// buffer and its clone is).
// CHECK-LABEL: func.func @through_calls(
// CHECK-SAME: %[[X:[^:]*]]: memref<4xf32>, %[[C:.*]]: i1, %[[N:.*]]: index)
// CHECK: %[[ID:.*]] = call @identity(%[[X]])
// CHECK: %[[NEW:.*]] = call @fresh()
// CHECK: %[[IF:.*]] = scf.if
// CHECK: %[[LOOP:.*]] = scf.for
// CHECK: %[[IDC:.*]] = memref.alloc() : memref<4xf32>
// CHECK: memref.copy %[[ID]], %[[IDC]]
// CHECK: return %[[IDC]], %[[NEW]], %[[IF]], %[[LOOP]]
// ENTRY-LABEL: func.func @through_calls__dlpack(
// ENTRY-COUNT-4: dlpack.pack
func.func private @identity(%x: memref<4xf32>) -> memref<4xf32> {
  return %x : memref<4xf32>
}
func.func private @fresh() -> memref<4xf32> {
  %a = memref.alloc() : memref<4xf32>
  return %a : memref<4xf32>
}
func.func @through_calls(%x: memref<4xf32>, %c: i1, %n: index)
    -> (memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>)
    attributes {dlpack.entry} {
  %id = func.call @identity(%x) : (memref<4xf32>) -> memref<4xf32>
  %new = func.call @fresh() : () -> memref<4xf32>
  %if = scf.if %c -> memref<4xf32> {
    %a = memref.alloc() : memref<4xf32>
    scf.yield %a : memref<4xf32>
  } else {
    %b = func.call @fresh() : () -> memref<4xf32>
    scf.yield %b : memref<4xf32>
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = memref.alloc() : memref<4xf32>
  %loop = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> memref<4xf32> {
    %next = func.call @fresh() : () -> memref<4xf32>
    memref.dealloc %acc : memref<4xf32>
    scf.yield %next : memref<4xf32>
  }
  return %id, %new, %if, %loop : memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>
}

// -----

// Through scf.while (and any op with regions that says where its values
// flow): a buffer carried through its condition and body regions is owned
// when every buffer it may be is, so it is returned as it is; an argument
// it may carry (a loop that runs no iteration) is copied.
// CHECK-LABEL: func.func @through_while(
// CHECK-SAME: %[[X:[^:]*]]: memref<4xf32>, %[[N:.*]]: index)
// CHECK: %[[OWNED:.*]]:2 = scf.while
// CHECK: %[[MAYBE_X:.*]]:2 = scf.while
// CHECK: %[[COPY:.*]] = memref.alloc() : memref<4xf32>
// CHECK: memref.copy %[[MAYBE_X]]#1, %[[COPY]]
// CHECK: return %[[OWNED]]#1, %[[COPY]]
// ENTRY-LABEL: func.func @through_while__dlpack(
// ENTRY-COUNT-2: dlpack.pack
func.func private @fresh() -> memref<4xf32> {
  %a = memref.alloc() : memref<4xf32>
  return %a : memref<4xf32>
}
func.func @through_while(%x: memref<4xf32>, %n: index)
    -> (memref<4xf32>, memref<4xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = memref.alloc() : memref<4xf32>
  %owned:2 = scf.while (%i = %c0, %acc = %init)
      : (index, memref<4xf32>) -> (index, memref<4xf32>) {
    %more = arith.cmpi slt, %i, %n : index
    scf.condition(%more) %i, %acc : index, memref<4xf32>
  } do {
  ^bb0(%j: index, %b: memref<4xf32>):
    %next = func.call @fresh() : () -> memref<4xf32>
    %k = arith.addi %j, %c1 : index
    scf.yield %k, %next : index, memref<4xf32>
  }
  %maybe_x:2 = scf.while (%i = %c0, %acc = %x)
      : (index, memref<4xf32>) -> (index, memref<4xf32>) {
    %more = arith.cmpi slt, %i, %n : index
    scf.condition(%more) %i, %acc : index, memref<4xf32>
  } do {
  ^bb0(%j: index, %b: memref<4xf32>):
    %k = arith.addi %j, %c1 : index
    scf.yield %k, %b : index, memref<4xf32>
  }
  return %owned#1, %maybe_x#1 : memref<4xf32>, memref<4xf32>
}
