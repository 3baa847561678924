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

// -----

// An updated argument written back in place: the elementwise update writes
// the argument's buffer directly, with no temporary and no copy back.

#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @update_in_place
// CHECK-SAME: (%[[W:.*]]: memref<?xf32, strided<[?], offset: ?>>, %[[V:.*]]: memref
// CHECK-NOT: memref.alloc
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[W]], %[[V]] :
// CHECK-SAME: outs(%[[W]] :
// CHECK-NOT: memref.copy
// CHECK: return
func.func @update_in_place(%w_buf: memref<?xf32, strided<[?], offset: ?>>, %v: tensor<?xf32>) {
  %w = bufferization.to_tensor %w_buf restrict writable : memref<?xf32, strided<[?], offset: ?>> to tensor<?xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %w, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%w, %v : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  bufferization.materialize_in_destination %sum in restrict writable %w_buf : (tensor<?xf32>, memref<?xf32, strided<[?], offset: ?>>) -> ()
  return
}

// -----

// `c += c.T` reads the argument in another order than it writes it: the sum
// goes to a temporary, copied into the argument afterwards.

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @update_reading_the_transpose
// CHECK-SAME: (%[[C:.*]]: memref<?x?xf32, strided<[?, ?], offset: ?>>)
// CHECK: %[[TMP:.*]] = memref.alloc
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[C]], %[[C]] :
// CHECK-SAME: outs(%[[TMP]] :
// CHECK: memref.copy %[[TMP]], %[[C]]
func.func @update_reading_the_transpose(%c_buf: memref<?x?xf32, strided<[?, ?], offset: ?>>) {
  %c = bufferization.to_tensor %c_buf restrict writable : memref<?x?xf32, strided<[?, ?], offset: ?>> to tensor<?x?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %c, %c0 : tensor<?x?xf32>
  %m = tensor.dim %c, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%n, %m) : tensor<?x?xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #tr, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c, %c : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  bufferization.materialize_in_destination %sum in restrict writable %c_buf : (tensor<?x?xf32>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  return
}

// -----

// Under identity layouts (the contiguous specialisation) an entry's updated
// argument gets an identity layout too, cast back for its uses, so that the
// loop writing it sees unit strides; with dynamic layouts it keeps its type.

#id3 = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @entry_updates
// CHECK-SAME: (%{{.*}}: memref<?xf32, strided<[?], offset: ?>>, %{{.*}}: memref<?xf32, strided<[?], offset: ?>>)
// CHECK-NOT: memref.cast
// IDENTITY-LABEL: func.func @entry_updates
// IDENTITY-SAME: (%[[X:.*]]: memref<?xf32>, %[[OUT:.*]]: memref<?xf32>)
// IDENTITY: linalg.generic
// IDENTITY-SAME: ins(%[[X]] :
// IDENTITY-SAME: outs(%[[OUT]] :
func.func @entry_updates(%x: tensor<?xf32>, %out_buf: memref<?xf32, strided<[?], offset: ?>>) attributes {dlpack.entry} {
  %out = bufferization.to_tensor %out_buf restrict writable : memref<?xf32, strided<[?], offset: ?>> to tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%out : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.addf %a, %a : f32
    linalg.yield %d : f32
  } -> tensor<?xf32>
  bufferization.materialize_in_destination %r in restrict writable %out_buf : (tensor<?xf32>, memref<?xf32, strided<[?], offset: ?>>) -> ()
  return
}
