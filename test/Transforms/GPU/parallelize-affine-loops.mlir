// RUN: dl-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-parallelize-affine-loops))' \
// RUN:   | FileCheck %s

// A perfect nest of parallel loops becomes one scf.parallel over both, with
// the affine accesses lowered (its induction variables are no affine
// dimensions).

// CHECK-LABEL: func.func @nest
// CHECK-NOT: affine.
// CHECK-NOT: arith.maxsi
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %{{.*}}) step
// CHECK-NEXT: %[[V:.*]] = memref.load %arg0[%[[I]], %[[J]]]
// CHECK-NEXT: %[[W:.*]] = arith.addf %[[V]], %[[V]]
// CHECK-NEXT: memref.store %[[W]], %arg1[%[[I]], %[[J]]]
// CHECK-NEXT: scf.reduce
// CHECK-NOT: affine.
// CHECK: return
func.func @nest(%x: memref<64x100xf32>, %y: memref<64x100xf32>) attributes {dlpack.entry} {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 100 {
      %a = affine.load %x[%i, %j] : memref<64x100xf32>
      %b = arith.addf %a, %a : f32
      affine.store %b, %y[%i, %j] : memref<64x100xf32>
    }
  }
  return
}

// -----

// A recurrence along rows: the rows are parallel, each row's loop stays
// sequential (an scf.for in each thread).

// CHECK-LABEL: func.func @row_recurrence
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK: scf.for %[[J:.*]] =
// CHECK: memref.load %arg0[%[[I]], %{{.*}}]
// CHECK: memref.store %{{.*}}, %arg0[%[[I]], %[[J]]]
func.func @row_recurrence(%x: memref<64x100xf32>) attributes {dlpack.entry} {
  affine.for %i = 0 to 64 {
    affine.for %j = 1 to 100 {
      %a = affine.load %x[%i, %j - 1] : memref<64x100xf32>
      %b = affine.load %x[%i, %j] : memref<64x100xf32>
      %c = arith.addf %a, %b : f32
      affine.store %c, %x[%i, %j] : memref<64x100xf32>
    }
  }
  return
}

// -----

// Dynamic bounds and a step: the bounds are computed before the loop, the
// upper one no lower than the lower one (for 3 to 0 runs no iteration; a
// kernel's grid must not be negative).

// CHECK-LABEL: func.func @dynamic_step
// CHECK: %[[N:.*]] = memref.dim %arg0
// CHECK: %[[LB:.*]] = arith.constant 3 : index
// CHECK: %[[UB:.*]] = arith.maxsi %[[N]], %[[LB]] : index
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: scf.parallel (%[[I:.*]]) = (%[[LB]]) to (%[[UB]]) step (%[[C2]])
func.func @dynamic_step(%x: memref<?xf32>, %y: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  affine.for %i = 3 to %n step 2 {
    %a = affine.load %x[%i] : memref<?xf32>
    affine.store %a, %y[%i] : memref<?xf32>
  }
  return
}

// -----

// A triangular nest: the inner bounds depend on the outer loop, which alone
// becomes the scf.parallel.

// CHECK-LABEL: func.func @triangular
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[I]]
func.func @triangular(%x: memref<32x32xf32>) attributes {dlpack.entry} {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to affine_map<(d0) -> (d0)>(%i) {
      affine.store %zero, %x[%i, %j] : memref<32x32xf32>
    }
  }
  return
}

// -----

// Negative: loops the analysis does not prove parallel, or whose body a
// thread could not run or the analysis cannot see, stay as they are.

// A helper's arguments may be one buffer passed twice.

// CHECK-LABEL: func.func @helper
// CHECK-NOT: scf.parallel
// CHECK: affine.for
func.func @helper(%x: memref<16xf32>, %y: memref<16xf32>) {
  affine.for %i = 0 to 16 {
    %a = affine.load %x[%i] : memref<16xf32>
    affine.store %a, %y[%i] : memref<16xf32>
  }
  return
}


// CHECK-LABEL: func.func @recurrence
// CHECK-NOT: scf.parallel
// CHECK: affine.for
func.func @recurrence(%x: memref<16xf32>, %y: memref<16xf32>) attributes {dlpack.entry} {
  affine.for %i = 1 to 16 {
    %a = affine.load %y[%i - 1] : memref<16xf32>
    %b = affine.load %x[%i] : memref<16xf32>
    %c = arith.addf %a, %b : f32
    affine.store %c, %y[%i] : memref<16xf32>
  }
  return
}

// CHECK-LABEL: func.func @carried_scalar
// CHECK-NOT: scf.parallel
// CHECK: affine.for {{.*}} iter_args
func.func @carried_scalar(%x: memref<16xf32>, %out: memref<f32>) attributes {dlpack.entry} {
  %zero = arith.constant 0.0 : f32
  %s = affine.for %i = 0 to 16 iter_args(%acc = %zero) -> (f32) {
    %a = affine.load %x[%i] : memref<16xf32>
    %b = arith.addf %acc, %a : f32
    affine.yield %b : f32
  }
  affine.store %s, %out[] : memref<f32>
  return
}

// CHECK-LABEL: func.func @same_element
// CHECK-NOT: scf.parallel
// CHECK: affine.for
func.func @same_element(%x: memref<16xf32>, %out: memref<f32>) attributes {dlpack.entry} {
  affine.for %i = 0 to 16 {
    %a = affine.load %x[%i] : memref<16xf32>
    affine.store %a, %out[] : memref<f32>
  }
  return
}

// CHECK-LABEL: func.func @non_affine_access
// CHECK-NOT: scf.parallel
// CHECK: affine.for
func.func @non_affine_access(%x: memref<16xf32>, %y: memref<16xf32>) attributes {dlpack.entry} {
  affine.for %i = 0 to 16 {
    %a = memref.load %x[%i] : memref<16xf32>
    affine.store %a, %y[%i] : memref<16xf32>
  }
  return
}

// CHECK-LABEL: func.func @allocates
// CHECK-NOT: scf.parallel
// CHECK: affine.for
func.func @allocates(%x: memref<16xf32>) attributes {dlpack.entry} {
  affine.for %i = 0 to 16 {
    %t = memref.alloca() : memref<f32>
    %a = affine.load %x[%i] : memref<16xf32>
    affine.store %a, %t[] : memref<f32>
  }
  return
}

// Two views of one buffer (x[i + 1] = x[i] through a subview) look like
// distinct memrefs to the dependence analysis: not parallel.

// CHECK-LABEL: func.func @views_of_one_buffer
// CHECK-NOT: scf.parallel
// CHECK: affine.for
func.func @views_of_one_buffer(%x: memref<17xf32>) attributes {dlpack.entry} {
  %v = memref.subview %x[1] [16] [1] : memref<17xf32> to memref<16xf32, strided<[1], offset: 1>>
  affine.for %i = 0 to 16 {
    %a = affine.load %x[%i] : memref<17xf32>
    affine.store %a, %v[%i] : memref<16xf32, strided<[1], offset: 1>>
  }
  return
}

func.func private @view() -> memref<16xf32>

// CHECK-LABEL: func.func @unknown_buffer
// CHECK-NOT: scf.parallel
// CHECK: affine.for
func.func @unknown_buffer(%x: memref<16xf32>) attributes {dlpack.entry} {
  %v = func.call @view() : () -> memref<16xf32>
  affine.for %i = 0 to 16 {
    %a = affine.load %x[%i] : memref<16xf32>
    affine.store %a, %v[%i] : memref<16xf32>
  }
  return
}

func.func private @log(f32)

// CHECK-LABEL: func.func @calls
// CHECK-NOT: scf.parallel
// CHECK: affine.for
func.func @calls(%x: memref<16xf32>) attributes {dlpack.entry} {
  affine.for %i = 0 to 16 {
    %a = affine.load %x[%i] : memref<16xf32>
    func.call @log(%a) : (f32) -> ()
  }
  return
}

// -----

// Negative: only outermost loops of host code; a parallel loop inside a
// sequential one, or inside a kernel, stays.

// CHECK-LABEL: func.func @inside_sequential
// CHECK-NOT: scf.parallel
// CHECK: affine.for
// CHECK: affine.for
func.func @inside_sequential(%x: memref<16xf32>) attributes {dlpack.entry} {
  affine.for %t = 0 to 10 {
    affine.for %i = 0 to 16 {
      %a = affine.load %x[%i] : memref<16xf32>
      %b = arith.addf %a, %a : f32
      affine.store %b, %x[%i] : memref<16xf32>
    }
  }
  return
}

// CHECK-LABEL: func.func @in_kernel
// CHECK-NOT: scf.parallel
// CHECK: gpu.launch
// CHECK: affine.for
func.func @in_kernel(%x: memref<16xf32>) attributes {dlpack.entry} {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    affine.for %i = 0 to 16 {
      %a = affine.load %x[%i] : memref<16xf32>
      %b = arith.addf %a, %a : f32
      affine.store %b, %x[%i] : memref<16xf32>
    }
    gpu.terminator
  }
  return
}
