// RUN: dl-opt %s --split-input-file --verify-diagnostics \
// RUN:   --dlbridge-offload-host-code | FileCheck %s

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

// -----

// The ownership flags and addresses lower-deallocations keeps for its
// dealloc_helper are host memory: allocated, written and read on the host;
// the buffer they decide to free is a device buffer.

func.func private @dealloc_helper(memref<?xindex>, memref<?xi1>)

// CHECK-LABEL: func.func @bookkeeping(
// CHECK: %[[BUF:.*]] = gpu.alloc
// CHECK: %[[FLAGS:.*]] = memref.alloc() : memref<1xi1>
// CHECK-NOT: gpu.launch
// CHECK: memref.store %{{.*}}, %[[FLAGS]]
// CHECK: call @dealloc_helper
// CHECK: %[[OWNED:.*]] = memref.load %[[FLAGS]]
// CHECK: scf.if %[[OWNED]]
// CHECK-NEXT: gpu.dealloc %[[BUF]]
// CHECK: memref.dealloc %[[FLAGS]]
func.func @bookkeeping(%n: index) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %true = arith.constant true
  %buf = memref.alloc(%n) : memref<?xf32>
  %addrs = memref.alloc() : memref<1xindex>
  %flags = memref.alloc() : memref<1xi1>
  %p = memref.extract_aligned_pointer_as_index %buf : memref<?xf32> -> index
  memref.store %p, %addrs[%c0] : memref<1xindex>
  memref.store %true, %flags[%c0] : memref<1xi1>
  %a = memref.cast %addrs : memref<1xindex> to memref<?xindex>
  %f = memref.cast %flags : memref<1xi1> to memref<?xi1>
  call @dealloc_helper(%a, %f) : (memref<?xindex>, memref<?xi1>) -> ()
  %owned = memref.load %flags[%c0] : memref<1xi1>
  scf.if %owned {
    memref.dealloc %buf : memref<?xf32>
  }
  memref.dealloc %addrs : memref<1xindex>
  memref.dealloc %flags : memref<1xi1>
  return
}
