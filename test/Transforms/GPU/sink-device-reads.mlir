// RUN: dl-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-sink-device-reads))' \
// RUN:   | FileCheck %s

// A scalar read in host code from a buffer (a 0-d tensor extracted) and used
// only in a kernel body is read by the kernel instead. The kernel writes a
// buffer the function allocated, which cannot alias the argument.

// CHECK-LABEL: func.func @zero_d
// CHECK-NOT: memref.load
// CHECK: gpu.launch
// CHECK-NEXT: %[[S:.*]] = memref.load %arg0[] : memref<f32>
// CHECK: arith.mulf %{{.*}}, %[[S]]
// CHECK: gpu.terminator
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @zero_d(%t: memref<f32>, %x: memref<8xf32>) -> memref<8xf32> {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %s = memref.load %t[] : memref<f32>
  %y = memref.alloc() : memref<8xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<8xf32>
    %m = arith.mulf %v, %s : f32
    memref.store %m, %y[%tx] : memref<8xf32>
    gpu.terminator
  }
  return %y : memref<8xf32>
}

// Run-time checks between the read and the kernel (shape checks, which only
// end the call early) do not stop it.

// CHECK-LABEL: func.func @checks_between
// CHECK-NOT: memref.load
// CHECK: dlpack.assert
// CHECK: gpu.launch
// CHECK-NEXT: memref.load %arg0[] : memref<f32>
func.func @checks_between(%t: memref<f32>, %x: memref<?xf32>) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = memref.load %t[] : memref<f32>
  %n = memref.dim %x, %c0 : memref<?xf32>
  %ok = arith.cmpi sgt, %n, %c0 : index
  dlpack.assert %ok, shape_mismatch, "empty"
  %y = memref.alloc(%n) : memref<?xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
    memref.store %s, %y[%tx] : memref<?xf32>
    gpu.terminator
  }
  return %y : memref<?xf32>
}

// -----

// Used in two kernels, through pure ops computed on the host from the read
// and from an index read before it: each kernel computes the whole chain.
// Kernels that write other buffers (their own allocations) do not stop it.

// CHECK-LABEL: func.func @two_kernels
// CHECK-NOT: memref.load
// CHECK: gpu.launch
// CHECK-NEXT: %[[K:.*]] = memref.load %arg1[] : memref<i32>
// CHECK-NEXT: %[[I:.*]] = arith.index_cast %[[K]] : i32 to index
// CHECK-NEXT: %[[S:.*]] = memref.load %arg0[%[[I]]] : memref<16xf32>
// CHECK-NEXT: %[[D:.*]] = arith.mulf %[[S]], %[[S]] : f32
// CHECK: arith.addf %{{.*}}, %[[D]]
// CHECK: gpu.terminator
// CHECK: gpu.launch
// CHECK-NEXT: %[[K2:.*]] = memref.load %arg1[] : memref<i32>
// CHECK-NEXT: %[[I2:.*]] = arith.index_cast %[[K2]] : i32 to index
// CHECK-NEXT: %[[S2:.*]] = memref.load %arg0[%[[I2]]] : memref<16xf32>
// CHECK-NEXT: %[[D2:.*]] = arith.mulf %[[S2]], %[[S2]] : f32
// CHECK: arith.subf %{{.*}}, %[[D2]]
// CHECK: gpu.terminator
func.func @two_kernels(%t: memref<16xf32>, %k: memref<i32>, %x: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %kv = memref.load %k[] : memref<i32>
  %i = arith.index_cast %kv : i32 to index
  %s = memref.load %t[%i] : memref<16xf32>
  %d = arith.mulf %s, %s : f32
  %a = memref.alloc() : memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<8xf32>
    %r = arith.addf %v, %d : f32
    memref.store %r, %a[%tx] : memref<8xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %v = memref.load %a[%tx] : memref<8xf32>
    %r = arith.subf %v, %d : f32
    memref.store %r, %b[%tx] : memref<8xf32>
    gpu.terminator
  }
  memref.dealloc %a : memref<8xf32>
  memref.dealloc %b : memref<8xf32>
  return
}

// -----

// The kernel writes the buffer the scalar is read from (x /= x[0]), or one
// that may alias it (another argument): its threads must all see the value
// from before the kernel, so it goes through a 0-d buffer written right
// after the read and freed after the kernel.

// CHECK-LABEL: func.func @written_by_the_kernel
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<f32>
// CHECK: %[[S:.*]] = memref.load %arg0[%{{.*}}] : memref<8xf32>
// CHECK-NEXT: memref.store %[[S]], %[[BUF]][] : memref<f32>
// CHECK-NEXT: gpu.launch
// CHECK-NEXT: %[[D:.*]] = memref.load %[[BUF]][] : memref<f32>
// CHECK: arith.divf %{{.*}}, %[[D]]
// CHECK: gpu.terminator
// CHECK-NEXT: }
// CHECK-NEXT: memref.dealloc %[[BUF]] : memref<f32>
// CHECK-NEXT: return
func.func @written_by_the_kernel(%x: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %s = memref.load %x[%c0] : memref<8xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<8xf32>
    %r = arith.divf %v, %s : f32
    memref.store %r, %x[%tx] : memref<8xf32>
    gpu.terminator
  }
  return
}

// CHECK-LABEL: func.func @may_alias
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<f32>
// CHECK: %[[S:.*]] = memref.load %arg0[] : memref<f32>
// CHECK-NEXT: memref.store %[[S]], %[[BUF]][] : memref<f32>
// CHECK-NEXT: gpu.launch
// CHECK-NEXT: memref.load %[[BUF]][] : memref<f32>
func.func @may_alias(%t: memref<f32>, %y: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %s = memref.load %t[] : memref<f32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    memref.store %s, %y[%tx] : memref<8xf32>
    gpu.terminator
  }
  return
}

// -----

// Written between the read and the kernel, by host code, by an earlier
// kernel, or possibly by a call: staged through a buffer as well.

// CHECK-LABEL: func.func @written_before
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<f32>
// CHECK: %[[S:.*]] = memref.load %arg0[] : memref<f32>
// CHECK-NEXT: memref.store %[[S]], %[[BUF]][] : memref<f32>
// CHECK-NEXT: memref.store %{{.*}}, %arg0[] : memref<f32>
// CHECK-NEXT: gpu.launch
// CHECK-NEXT: memref.load %[[BUF]][] : memref<f32>
// CHECK: memref.dealloc %[[BUF]]
func.func @written_before(%t: memref<f32>, %y: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %s = memref.load %t[] : memref<f32>
  memref.store %zero, %t[] : memref<f32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    memref.store %s, %y[%tx] : memref<8xf32>
    gpu.terminator
  }
  return
}

// CHECK-LABEL: func.func @written_by_an_earlier_kernel
// CHECK: memref.alloc() : memref<f32>
// CHECK: memref.load %arg0[] : memref<f32>
// CHECK-NEXT: memref.store
// CHECK: gpu.launch
// CHECK: gpu.launch
// CHECK-NEXT: memref.load %{{.*}}[] : memref<f32>
func.func @written_by_an_earlier_kernel(%t: memref<f32>, %y: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %s = memref.load %t[] : memref<f32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %zero, %t[] : memref<f32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    memref.store %s, %y[%tx] : memref<8xf32>
    gpu.terminator
  }
  return
}

func.func private @opaque()

// CHECK-LABEL: func.func @call_between
// CHECK: memref.alloc() : memref<f32>
// CHECK: memref.load %arg0[] : memref<f32>
// CHECK-NEXT: memref.store
// CHECK-NEXT: call @opaque()
func.func @call_between(%t: memref<f32>, %y: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %s = memref.load %t[] : memref<f32>
  func.call @opaque() : () -> ()
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    memref.store %s, %y[%tx] : memref<8xf32>
    gpu.terminator
  }
  return
}

// -----

// A kernel in a host loop that writes the buffer in its iterations: the
// buffer the value goes through is freed after the loop.

// CHECK-LABEL: func.func @kernel_in_a_loop
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<f32>
// CHECK: %[[S:.*]] = memref.load %arg0[] : memref<f32>
// CHECK-NEXT: memref.store %[[S]], %[[BUF]][] : memref<f32>
// CHECK-NEXT: scf.for
// CHECK: gpu.launch
// CHECK-NEXT: memref.load %[[BUF]][] : memref<f32>
// CHECK: gpu.terminator
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: memref.dealloc %[[BUF]] : memref<f32>
func.func @kernel_in_a_loop(%t: memref<f32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = memref.load %t[] : memref<f32>
  scf.for %i = %c0 to %n step %c1 {
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %v = memref.load %t[] : memref<f32>
      %w = arith.addf %v, %s : f32
      memref.store %w, %t[] : memref<f32>
      gpu.terminator
    }
  }
  return
}

// -----

// Negative: values host code uses stay on the host (here a grid size and a
// return value); what offload-host-code then reports.

// CHECK-LABEL: func.func @grid_size
// CHECK: %[[K:.*]] = memref.load %arg0[] : memref<index>
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %[[K]],
// CHECK-NEXT: memref.store
func.func @grid_size(%k: memref<index>, %y: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.load %k[] : memref<index>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
    memref.store %zero, %y[%tx] : memref<?xf32>
    gpu.terminator
  }
  return
}

// CHECK-LABEL: func.func @host_and_kernel
// CHECK: %[[S:.*]] = memref.load %arg0[] : memref<f32>
// CHECK: gpu.launch
// CHECK-NEXT: memref.store %[[S]]
// CHECK: return %[[S]]
func.func @host_and_kernel(%t: memref<f32>, %y: memref<8xf32>) -> f32 {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %s = memref.load %t[] : memref<f32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    memref.store %s, %y[%tx] : memref<8xf32>
    gpu.terminator
  }
  return %s : f32
}

// Negative: host values not read from memory (arguments, arithmetic on
// them) stay kernel parameters.

// CHECK-LABEL: func.func @plain_scalar
// CHECK: %[[D:.*]] = arith.mulf %arg0, %arg0 : f32
// CHECK: gpu.launch
// CHECK-NEXT: memref.store %[[D]]
func.func @plain_scalar(%a: f32, %y: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %d = arith.mulf %a, %a : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    memref.store %d, %y[%tx] : memref<8xf32>
    gpu.terminator
  }
  return
}
