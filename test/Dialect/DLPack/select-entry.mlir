// RUN: dl-opt %s --split-input-file --verify-diagnostics \
// RUN:   --dlbridge-select-entry=entry=scale | FileCheck %s
// RUN: dl-opt %s --split-input-file --dlbridge-select-entry | FileCheck %s --check-prefix=ALL

// The entry, the helpers it calls (transitively), the global one of them
// reads and what a global constructor names stay; the other entry, the
// helper only it calls and the unused declaration go.

// CHECK-NOT: @other
// CHECK-NOT: @unused
// CHECK-NOT: @gpu_helper
// CHECK-LABEL: llvm.func @init
// CHECK-LABEL: llvm.mlir.global_ctors
// CHECK-LABEL: memref.global "private" constant @factor
// CHECK-LABEL: func.func private @times_factor
// CHECK-LABEL: func.func private @twice
// CHECK-LABEL: func.func @scale
// CHECK-NOT: func.func
// ALL-COUNT-6: func.func
llvm.func @init() {
  llvm.return
}

llvm.mlir.global_ctors ctors = [@init], priorities = [0 : i32], data = [#llvm.zero]

memref.global "private" constant @factor : memref<f32> = dense<3.0>

func.func private @times_factor(%x: f32) -> f32 {
  %g = memref.get_global @factor : memref<f32>
  %f = memref.load %g[] : memref<f32>
  %y = arith.mulf %x, %f : f32
  return %y : f32
}

func.func private @twice(%x: f32) -> f32 {
  %y = arith.addf %x, %x : f32
  %z = func.call @times_factor(%y) : (f32) -> f32
  return %z : f32
}

func.func private @unused(f32) -> f32

func.func private @gpu_helper(%x: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

func.func @other(%x: memref<?xf32>) attributes {dlpack.entry} {
  func.call @gpu_helper(%x) : (memref<?xf32>) -> ()
  return
}

func.func @scale(%x: f32) -> f32 attributes {dlpack.entry} {
  %y = func.call @twice(%x) : (f32) -> f32
  return %y : f32
}

// -----

// expected-error @below {{dlbridge-select-entry: no 'dlpack.entry' function named @scale; entries: @first, @second}}
module {
  func.func @first() attributes {dlpack.entry} {
    return
  }
  func.func @second() attributes {dlpack.entry} {
    return
  }
  func.func @scale() {
    return
  }
}
