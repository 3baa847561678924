// RUN: dl-opt %s -split-input-file --dlbridge-lower-assertions | FileCheck %s
// RUN: dl-opt %s -split-input-file --dlbridge-lower-assertions \
// RUN:   --convert-to-llvm --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM

// A failed dlpack.assert records its status and message, then returns
// poison; the values are passed as i64.

// CHECK: llvm.func @dlrt_check_failed(i32, !llvm.ptr, i32, !llvm.ptr)
// CHECK-LABEL: func.func @assert_in_body
// CHECK-SAME: (%[[OK:.*]]: i1, %[[N:.*]]: index, %[[M:.*]]: i32) -> memref<?xf32>
// CHECK: cf.cond_br %[[OK]], ^[[CONT:.*]], ^[[FAIL:[a-z0-9]+]]
// CHECK: ^[[CONT]]:
// CHECK: %[[BUF:.*]] = memref.alloc
// CHECK: return %[[BUF]]
// CHECK: ^[[FAIL]]:
// CHECK-DAG: %[[N64:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK-DAG: %[[M64:.*]] = arith.extsi %[[M]] : i32 to i64
// CHECK: %[[ARRAY:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x i64>
// CHECK: llvm.store %[[N64]]
// CHECK: llvm.store %[[M64]]
// CHECK-DAG: %[[STATUS:.*]] = llvm.mlir.constant(16 : i32)
// CHECK-DAG: %[[COUNT:.*]] = llvm.mlir.constant(2 : i32)
// CHECK-DAG: %[[MSG:.*]] = llvm.mlir.addressof @__dlpack_assert_message_
// CHECK: llvm.call @dlrt_check_failed(%[[STATUS]], %[[MSG]], %[[COUNT]], %[[ARRAY]])
// CHECK: cf.br ^[[EXIT:[a-z0-9]+]]
// CHECK: ^[[EXIT]]:
// CHECK: %[[POISON:.*]] = ub.poison : memref<?xf32>
// CHECK: return %[[POISON]]

// LLVM-LABEL: llvm.func @assert_in_body
// LLVM: llvm.mlir.poison
// LLVM: llvm.call @dlrt_check_failed
func.func @assert_in_body(%ok: i1, %n: index, %m: i32) -> memref<?xf32> {
  dlpack.assert %ok, shape_mismatch, "sizes {0} and {1} differ" (%n, %m : index, i32)
  %buf = memref.alloc(%n) : memref<?xf32>
  return %buf : memref<?xf32>
}

// -----

// Upstream cf.assert (runtime verification's) takes the same path with
// shape_mismatch: it never becomes abort(). Braces in its message are
// literal.

// CHECK: llvm.mlir.global private constant @__dlpack_assert_message_{{.*}}("a {{[{][{]}}b{{[}][}]}} c\00")
// CHECK-LABEL: func.func @upstream_assert
// CHECK: cf.cond_br
// CHECK-NOT: cf.assert
// CHECK: llvm.call @dlrt_check_failed
// CHECK: return
// LLVM-LABEL: llvm.func @upstream_assert
// LLVM-NOT: abort
func.func @upstream_assert(%ok: i1) {
  cf.assert %ok, "a {b} c"
  return
}

// -----

// An assertion inside a loop returns from the function; the loop is a CFG.

// CHECK-LABEL: func.func @assert_in_loop
// CHECK: ^[[LOOP:.*]](%{{.*}}: index):
// CHECK: cf.cond_br %{{.*}}, ^[[BODY:.*]], ^[[DONE:[a-z0-9]+]]
// CHECK: ^[[BODY]]:
// CHECK: cf.cond_br %{{.*}}, ^[[NEXT:.*]], ^[[FAIL:[a-z0-9]+]]
// CHECK: ^[[NEXT]]:
// CHECK: cf.br ^[[LOOP]]
// CHECK: ^[[FAIL]]:
// CHECK: llvm.call @dlrt_check_failed
func.func @assert_in_loop(%n: index, %limit: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  cf.br ^loop(%c0 : index)
^loop(%i: index):
  %more = arith.cmpi slt, %i, %n : index
  cf.cond_br %more, ^body, ^done
^body:
  %ok = arith.cmpi slt, %i, %limit : index
  dlpack.assert %ok, shape_mismatch, "index {0} out of range" (%i : index)
  %next = arith.addi %i, %c1 : index
  cf.br ^loop(%next : index)
^done:
  return %zero : f32
}

// -----

// A call of a function that may fail is followed by a check of the call's
// status, transitively; calls of functions that cannot fail are not.

// CHECK-LABEL: func.func private @leaf
// CHECK-LABEL: func.func private @middle
// CHECK: %[[R:.*]] = call @leaf
// CHECK: %[[S:.*]] = llvm.call @dlrt_call_status() : () -> i32
// CHECK: %[[OK:.*]] = arith.cmpi eq, %[[S]], %{{.*}} : i32
// CHECK: cf.cond_br %[[OK]], ^[[CONT:.*]], ^[[EXIT:[a-z0-9]+]]
// CHECK: ^[[CONT]]:
// CHECK: return %[[R]]
// CHECK: ^[[EXIT]]:
// CHECK: ub.poison : i32
// CHECK-LABEL: func.func @top
// CHECK: call @middle
// CHECK: llvm.call @dlrt_call_status
// CHECK: call @pure
// CHECK-NOT: llvm.call @dlrt_call_status
// CHECK: return
func.func private @leaf(%ok: i1) -> i32 {
  %c = arith.constant 7 : i32
  dlpack.assert %ok, shape_mismatch, "leaf"
  return %c : i32
}
func.func private @middle(%ok: i1) -> i32 {
  %r = call @leaf(%ok) : (i1) -> i32
  return %r : i32
}
func.func private @pure(%x: i32) -> i32 {
  return %x : i32
}
func.func @top(%ok: i1) -> i32 {
  %r = call @middle(%ok) : (i1) -> i32
  %s = call @pure(%r) : (i32) -> i32
  return %s : i32
}

// -----

// Entry wrappers read the status themselves: their calls are left alone.

// CHECK-LABEL: func.func @wrapper
// CHECK: call @checked
// CHECK-NOT: dlrt_call_status
// CHECK: dlpack.status
func.func private @checked(%ok: i1) {
  dlpack.assert %ok, shape_mismatch, "checked"
  return
}
func.func @wrapper(%ok: i1, %ctx: !dlpack.context) -> i32 {
  call @checked(%ok) : (i1) -> ()
  %s = dlpack.status %ctx
  return %s : i32
}

// -----

// A check named by its source line (@jit names each check by the user's
// Python line) appends it to its message, braces escaped from the
// placeholders; the name is debug information, not part of the program.

// CHECK: llvm.mlir.global private constant @__dlpack_assert_message_{{.*}}("n is {0} at f.py:3: y = {{[{][{]}}1: x{{[}][}]}}\00")
// CHECK-LABEL: func.func @named_check
func.func @named_check(%ok: i1, %n: index) {
  dlpack.assert %ok, shape_mismatch, "n is {0}" (%n : index) loc("f.py:3: y = {1: x}"("/src/f.py":3:5))
  return
}
