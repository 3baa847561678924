// RUN: dl-opt %s --split-input-file --verify-diagnostics --dlbridge-bufferize | FileCheck %s
// RUN: dl-opt %s --split-input-file --verify-diagnostics \
// RUN:   --dlbridge-bufferize=function-boundary-type-conversion=identity-layout-map \
// RUN:   | FileCheck %s --check-prefix=IDENTITY

// A memref-level module is left as it is: its own dealloc stays, and the
// alias the helper returns is not cloned.

// CHECK-LABEL: func.func private @row
// CHECK-NEXT: memref.subview
// CHECK-NEXT: return
func.func private @row(%m: memref<4x4xf32>, %i: index) -> memref<4xf32, strided<[1], offset: ?>> {
  %r = memref.subview %m[%i, 0] [1, 4] [1, 1] : memref<4x4xf32> to memref<4xf32, strided<[1], offset: ?>>
  return %r : memref<4xf32, strided<[1], offset: ?>>
}

// CHECK-LABEL: func.func @memref_level
// CHECK: memref.alloc
// CHECK: %[[ROW:.*]] = call @row
// CHECK-NOT: bufferization.clone
// CHECK: memref.store %{{.*}}, %[[ROW]]
// CHECK: memref.dealloc
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @memref_level(%m: memref<4x4xf32>, %i: index) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %t = memref.alloc() : memref<4xf32>
  %row = call @row(%m, %i) : (memref<4x4xf32>, index) -> memref<4xf32, strided<[1], offset: ?>>
  %v = memref.load %row[%c0] : memref<4xf32, strided<[1], offset: ?>>
  memref.store %v, %t[%c0] : memref<4xf32>
  %w = memref.load %t[%c0] : memref<4xf32>
  %two = arith.addf %w, %w : f32
  memref.store %two, %row[%c0] : memref<4xf32, strided<[1], offset: ?>>
  memref.dealloc %t : memref<4xf32>
  return
}

// -----

// A module with tensors is bufferized at its boundaries with the layout
// asked for, and its temporaries deallocated.

// CHECK-LABEL: func.func @tensor_level
// CHECK-SAME: memref<?xf32, strided<[?], offset: ?>>
// CHECK: memref.alloc
// CHECK: memref.dealloc
// IDENTITY-LABEL: func.func @tensor_level
// IDENTITY-SAME: (%{{.*}}: memref<?xf32>) -> f32
func.func @tensor_level(%x: tensor<?xf32>) -> f32 attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %y = linalg.add ins(%x, %x : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %v = tensor.extract %y[%c0] : tensor<?xf32>
  return %v : f32
}

// -----

// Tensors and a dealloc of its own: deallocation would free twice.

func.func @mixed(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> attributes {dlpack.entry} {
  %t = memref.alloc(%n) : memref<?xf32>
  // expected-error @+1 {{'memref.dealloc' in a module with tensors: bufferization inserts the deallocations of such a module itself}}
  memref.dealloc %t : memref<?xf32>
  return %x : tensor<4xf32>
}
