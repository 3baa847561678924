// RUN: dl-opt %s --dlbridge-expose-entry-points | FileCheck %s
// RUN: dl-opt %s --dlbridge-expose-entry-points=device=cuda | FileCheck %s --check-prefix=CUDA

// Every tensor argument is checked before any is unpacked; scalars are
// loaded; memref results are packed and stored only when all packed.

// CHECK-LABEL: func.func @axpy(
// CHECK-SAME: %{{[^:]*}}: memref<?xf32, strided<[?], offset: ?>>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: f32) -> (memref<?xf32>, f32) {
// CHECK-LABEL: func.func @axpy__dlpack(
// CHECK-SAME: %[[ARGS:[^:]*]]: !llvm.ptr, %[[RESULTS:[^:]*]]: !llvm.ptr, %[[CTX:[^:]*]]: !dlpack.context) -> i32
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: %[[X:.*]] = dlpack.load_arg %[[ARGS]][0] : !dlpack.tensor
// CHECK: %[[XS:.*]] = dlpack.check %[[X]], %[[CTX]] for argument 0 as <"x" : memref<?xf32, strided<[?], offset: ?>>, read>
// CHECK: %[[XOK:.*]] = arith.cmpi eq, %[[XS]], %[[ZERO]]
// CHECK: cf.cond_br %[[XOK]], ^[[YBB:.*]], ^[[FAIL:[^(]*]](%[[XS]] : i32)
// CHECK: ^[[YBB]]:
// CHECK: %[[Y:.*]] = dlpack.load_arg %[[ARGS]][1] : !dlpack.tensor
// CHECK: %[[YS:.*]] = dlpack.check %[[Y]], %[[CTX]] for argument 1 as <"y" : memref<?xf32>, read_write>
// CHECK: cf.cond_br %{{.*}}, ^[[CALL:.*]], ^[[FAIL]](%[[YS]] : i32)
// CHECK: ^[[CALL]]:
// CHECK: %[[XM:.*]] = dlpack.unpack %[[X]] : !dlpack.tensor to memref<?xf32, strided<[?], offset: ?>>
// CHECK: %[[YM:.*]] = dlpack.unpack %[[Y]] : !dlpack.tensor to memref<?xf32>
// CHECK: %[[ALPHA:.*]] = dlpack.load_arg %[[ARGS]][2] : f32
// CHECK: dlpack.call_begin %[[CTX]]
// CHECK-NEXT: %[[R:.*]]:2 = call @axpy(%[[XM]], %[[YM]], %[[ALPHA]])
// CHECK: %[[OUT:.*]] = dlpack.pack %[[R]]#0, %[[CTX]] {name = "out"} : memref<?xf32> to !dlpack.managed
// CHECK: %[[STATUS:.*]] = dlpack.status %[[CTX]]
// CHECK-NEXT: dlpack.call_end %[[CTX]]
// CHECK: %[[OK:.*]] = arith.cmpi eq, %[[STATUS]], %[[ZERO]]
// CHECK: cf.cond_br %[[OK]], ^[[STORE:.*]], ^[[RELEASE:[^(]*]](%[[STATUS]] : i32)
// CHECK: ^[[RELEASE]](%[[RS:.*]]: i32):
// CHECK: dlpack.release %[[OUT]]
// CHECK: cf.br ^[[FAIL]](%[[RS]] : i32)
// CHECK: ^[[STORE]]:
// CHECK: dlpack.store_result %[[OUT]], %[[RESULTS]][0] : !dlpack.managed
// CHECK: dlpack.store_result %[[R]]#1, %[[RESULTS]][1] : f32
// CHECK: return %[[ZERO]] : i32
// CHECK: ^[[FAIL]](%[[FS:.*]]: i32):
// CHECK: return %[[FS]] : i32

// CHECK: dlpack.signature @axpy__dlpack_signature for @axpy on <cpu>
// CHECK-SAME: arguments [#dlpack.param<"x" : memref<?xf32, strided<[?], offset: ?>>, read>, #dlpack.param<"y" : memref<?xf32>, read_write>, #dlpack.param<"arg2" : f32, none>]
// CHECK-SAME: results [#dlpack.param<"out" : memref<?xf32>, read_write>, #dlpack.param<"result1" : f32, none>]
// CUDA: dlpack.signature @axpy__dlpack_signature for @axpy on <cuda>
func.func @axpy(%x: memref<?xf32, strided<[?], offset: ?>> {dlpack.name = "x"},
                %y: memref<?xf32> {dlpack.name = "y"}, %alpha: f32)
    -> (memref<?xf32> {dlpack.name = "out"}, f32) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32, strided<[?], offset: ?>>
  %out = memref.alloc(%n) : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf32, strided<[?], offset: ?>>
    %b = memref.load %y[%i] : memref<?xf32>
    %p = arith.mulf %a, %alpha : f32
    %s = arith.addf %p, %b : f32
    memref.store %s, %out[%i] : memref<?xf32>
    memref.store %s, %y[%i] : memref<?xf32>
  }
  return %out, %alpha : memref<?xf32>, f32
}

// Functions without the attribute are left alone.
// CHECK-LABEL: func.func @helper(
// CHECK-NOT: @helper__dlpack
func.func @helper(%x: memref<4xf32>) {
  return
}

// Access is derived through views and from linalg's effects; an unused
// argument is neither read nor written. Unsigned dtypes come from
// `dlpack.dtype`; 0-d memrefs are tensors too. No memref result: no pack,
// but the status of the call (a failed check in the function) is returned.
// CHECK-LABEL: func.func @scale_rows__dlpack(
// CHECK: call @scale_rows
// CHECK-NEXT: %[[STATUS:.*]] = dlpack.status
// CHECK-NEXT: %[[OK:.*]] = arith.cmpi eq, %[[STATUS]]
// CHECK-NEXT: cf.cond_br %[[OK]], ^[[CONT:.*]], ^[[FAILED:.*]](%[[STATUS]] : i32)
// CHECK-NOT: dlpack.pack
// CHECK: ^[[FAILED]](%[[CODE:.*]]: i32):
// CHECK-NEXT: dlpack.call_end
// CHECK-NEXT: cf.br ^{{.*}}(%[[CODE]] : i32)
// CHECK: ^[[CONT]]:
// CHECK-NEXT: dlpack.call_end
// CHECK: return
// CHECK: dlpack.signature @scale_rows__dlpack_signature for @scale_rows on <cpu>
// CHECK-SAME: arguments [#dlpack.param<"src" : memref<4x?xf32>, read>, #dlpack.param<"dst" : memref<4x?xf32>, write>, #dlpack.param<"unused" : memref<?xi8>, none, dtype = <uint, 8>>, #dlpack.param<"scale" : memref<f32>, read>, #dlpack.param<"n" : index, none>]
// CHECK-SAME: results []
func.func @scale_rows(%src: memref<4x?xf32> {dlpack.name = "src"},
                      %dst: memref<4x?xf32> {dlpack.name = "dst"},
                      %unused: memref<?xi8> {dlpack.name = "unused", dlpack.dtype = #dlpack.dtype<uint, 8>},
                      %scale: memref<f32> {dlpack.name = "scale"},
                      %n: index {dlpack.name = "n"}) attributes {dlpack.entry} {
  %view = memref.subview %src[0, 0] [4, %n] [1, 1] : memref<4x?xf32> to memref<4x?xf32, strided<[?, 1]>>
  %s = memref.load %scale[] : memref<f32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%view : memref<4x?xf32, strided<[?, 1]>>) outs(%dst : memref<4x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %s : f32
    linalg.yield %m : f32
  }
  return
}

// A result that views a fresh allocation is handed out; its buffer is the
// allocation's.
// CHECK-LABEL: func.func @first_row__dlpack(
// CHECK: dlpack.pack %{{.*}}, %{{.*}} {name = "result0"} : memref<8xf64, strided<[1]>> to !dlpack.managed
func.func @first_row() -> memref<8xf64, strided<[1]>> attributes {dlpack.entry} {
  %buf = memref.alloc() : memref<2x8xf64>
  %row = memref.subview %buf[0, 0] [1, 8] [1, 1] : memref<2x8xf64> to memref<8xf64, strided<[1]>>
  return %row : memref<8xf64, strided<[1]>>
}

// Access follows a memref into the functions it is passed to and through
// the loops that carry it: `x` is only read there, `y` is written by the
// callee.
// CHECK-LABEL: func.func @through_calls_and_loops__dlpack(
// CHECK: dlpack.signature @through_calls_and_loops__dlpack_signature
// CHECK-SAME: arguments [#dlpack.param<"x" : memref<?xf32>, read>, #dlpack.param<"y" : memref<?xf32>, write>]
func.func private @read_first(%m: memref<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %v = memref.load %m[%c0] : memref<?xf32>
  return %v : f32
}
func.func private @write_first(%m: memref<?xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  memref.store %v, %m[%c0] : memref<?xf32>
  return
}
func.func @through_calls_and_loops(%x: memref<?xf32> {dlpack.name = "x"},
                                   %y: memref<?xf32> {dlpack.name = "y"})
    attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %last = scf.for %i = %c0 to %c4 step %c1 iter_args(%m = %x) -> memref<?xf32> {
    %v = func.call @read_first(%m) : (memref<?xf32>) -> f32
    func.call @write_first(%y, %v) : (memref<?xf32>, f32) -> ()
    scf.yield %m : memref<?xf32>
  }
  %w = memref.load %last[%c0] : memref<?xf32>
  return
}
