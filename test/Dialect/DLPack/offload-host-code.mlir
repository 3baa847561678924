// RUN: dl-opt %s --split-input-file --verify-diagnostics \
// RUN:   --dlpack-offload-host-code | FileCheck %s

// What host code still does with tensor data runs in one-thread kernels, and
// host buffers are device buffers.

// CHECK-LABEL: func.func @total(
// CHECK-SAME: %[[A:[^:]*]]: memref<?xf32, strided<[?], offset: ?>>)
// CHECK: %[[OUT:.*]] = gpu.alloc () : memref<f32>
// The size, pure, moves before the run of data accesses it interrupted.
// CHECK: memref.dim %[[A]]
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %[[ONE]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]]) threads({{.*}}) in ({{.*}} = %[[ONE]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]])
// CHECK-NEXT: memref.store %{{.*}}, %[[OUT]][] : memref<f32>
// CHECK-NEXT: scf.for
// CHECK: memref.load %[[A]]
// CHECK: memref.store %{{.*}}, %[[OUT]][]
// CHECK: gpu.terminator
// CHECK: %[[TMP:.*]] = gpu.alloc () : memref<f32>
// CHECK: gpu.dealloc %[[TMP]] : memref<f32>
// CHECK-NOT: memref.alloc
// CHECK: return %[[OUT]]
func.func @total(%a: memref<?xf32, strided<[?], offset: ?>>) -> memref<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %out = memref.alloc() : memref<f32>
  memref.store %zero, %out[] : memref<f32>
  %n = memref.dim %a, %c0 : memref<?xf32, strided<[?], offset: ?>>
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %a[%i] : memref<?xf32, strided<[?], offset: ?>>
    %acc = memref.load %out[] : memref<f32>
    %s = arith.addf %x, %acc : f32
    memref.store %s, %out[] : memref<f32>
  }
  %tmp = memref.alloc() : memref<f32>
  memref.dealloc %tmp : memref<f32>
  return %out : memref<f32>
}

// Existing launches are left as they are.
// CHECK-LABEL: func.func @launched(
// CHECK: gpu.launch
// CHECK-NEXT: memref.store
// CHECK-NEXT: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @launched(%a: memref<f32>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
      threads(%tx, %ty, %tz) in (%x1 = %c1, %y1 = %c1, %z1 = %c1) {
    memref.store %zero, %a[] : memref<f32>
    gpu.terminator
  }
  return
}

// -----

// Pure operations on what a run read join it; the others move before it
// and stay on the host.
// CHECK-LABEL: func.func @compute_between(
// CHECK: %[[M:.*]] = arith.addi
// CHECK: gpu.launch
// CHECK-NEXT: vector.load
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: vector.store
// CHECK-NEXT: gpu.terminator
// CHECK: return %[[M]]
func.func @compute_between(%a: memref<4xf32>, %b: memref<4xf32>, %n: index) -> index {
  %c0 = arith.constant 0 : index
  %v = vector.load %a[%c0] : memref<4xf32>, vector<4xf32>
  %w = arith.mulf %v, %v : vector<4xf32>
  %m = arith.addi %n, %n : index
  vector.store %w, %b[%c0] : memref<4xf32>, vector<4xf32>
  return %m : index
}

// -----

func.func @scalar_to_host(%a: memref<f32>) -> f32 {
  // expected-error @below {{accesses tensor data in host code and its result is used there, but a CUDA entry's tensors live in device memory; compute this inside a gpu.launch (or with linalg ops, which become kernels), or compile the function for the CPU}}
  %x = memref.load %a[] : memref<f32>
  // expected-note @below {{the result is used here, by 'func.return'}}
  return %x : f32
}

// -----

func.func @stack(%a: memref<4xf32>) {
  // expected-error @below {{allocates on the host stack in host code}}
  %b = memref.alloca() : memref<4xf32>
  return
}

// -----

func.func @copy(%a: memref<4xf32>, %b: memref<4xf32>) {
  // expected-error @below {{copies buffers in host code}}
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  return
}
