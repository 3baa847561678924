// Memref-level modules, as a backend that bufferized its code itself hands
// them over: its own allocations and frees, stack buffers in loops, views,
// affine and scf loops. The pipelines leave such a module unbufferized (no
// bufferize=false needed) and compile every function; dl-run runs each
// entry of the whole file against NumPy. bufferize=false changes nothing
// for them.
// REQUIRES: numpy
// RUN: dl-opt %s --split-input-file --dlbridge-cpu-pipeline | FileCheck %s
// RUN: dl-opt %s --split-input-file '--dlbridge-cpu-pipeline=bufferize=false' | FileCheck %s
// RUN: dl-opt %s --split-input-file --verify-diagnostics \
// RUN:   '--dlbridge-cuda-pipeline=chip=sm_90 format=cubin' | FileCheck %s --check-prefix=CUDA

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(3); np.save('%t/a.npy', r.standard_normal(37).astype(np.float32)); np.save('%t/m.npy', r.standard_normal((3000, 8)).astype(np.float32)); np.save('%t/g.npy', np.arange(24, dtype=np.float32).reshape(4, 6)); [np.save(f'%t/{n}.npy', np.zeros(s, np.float32)) for n, s in [('b', 37), ('p', 37), ('sums', 3000), ('flat', 24), ('picked', (3, 2)), ('reshaped', (6, 4)), ('strided', (2, 3))]]"
// RUN: dl-run %s --entry alloc_dealloc -i %t/a.npy -i %t/b.npy --write-back
// RUN: %python %S/../Tools/dl-run/check.py %t/b.npy "2 * a" a=%t/a.npy | FileCheck %s --check-prefix=OK
// RUN: dl-run %s --entry row_sums -i %t/m.npy -i %t/sums.npy --write-back
// RUN: %python %S/../Tools/dl-run/check.py %t/sums.npy "m.sum(axis=1)" m=%t/m.npy --rtol 1e-5 | FileCheck %s --check-prefix=OK
// RUN: dl-run %s --entry views -i %t/g.npy -i %t/flat.npy -i %t/picked.npy -i %t/reshaped.npy -i %t/strided.npy --write-back
// RUN: %python %S/../Tools/dl-run/check.py %t/flat.npy "g.ravel()" g=%t/g.npy | FileCheck %s --check-prefix=OK
// RUN: %python %S/../Tools/dl-run/check.py %t/picked.npy "g[:3, 1:5:2]" g=%t/g.npy | FileCheck %s --check-prefix=OK
// RUN: %python %S/../Tools/dl-run/check.py %t/reshaped.npy "g.reshape(6, 4)" g=%t/g.npy | FileCheck %s --check-prefix=OK
// RUN: %python %S/../Tools/dl-run/check.py %t/strided.npy "g[1:4:2, 0:6:2]" g=%t/g.npy | FileCheck %s --check-prefix=OK
// RUN: dl-run %s --entry first_above -i %t/a.npy -i 1.0 -o %t/first.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/first.npy "np.int64(np.argmax(a > 1.0))" a=%t/a.npy | FileCheck %s --check-prefix=OK
// RUN: dl-run %s --entry first_above -i %t/a.npy -i 100.0 -o %t/none.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/none.npy "np.int64(a.size)" a=%t/a.npy | FileCheck %s --check-prefix=OK
// RUN: dl-run %s --entry parallel_axpy -i %t/a.npy -i %t/p.npy --write-back
// RUN: %python %S/../Tools/dl-run/check.py %t/p.npy "2 * a" a=%t/a.npy | FileCheck %s --check-prefix=OK
// OK: ok:

// A buffer of its own, copied into, read by an affine loop and freed by the
// function. On CUDA the copy and the loop (proven parallel) are kernels of
// full blocks, the buffer device memory.

// CHECK-LABEL: llvm.func @alloc_dealloc(
// CHECK: llvm.call @_mlir_memref_to_llvm_alloc
// CHECK: llvm.call @_mlir_memref_to_llvm_free
// CHECK-LABEL: llvm.func @alloc_dealloc__dlpack(
// CUDA-LABEL: llvm.func @alloc_dealloc(
// CUDA: %[[THREADS:.*]] = llvm.mlir.constant(256 : index) : i64
// CUDA: llvm.call @mgpuMemAlloc
// CUDA: gpu.launch_func {{.*}} threads in (%[[THREADS]],
// CUDA: gpu.launch_func {{.*}} threads in (%[[THREADS]],
// CUDA: llvm.call @mgpuMemFree
// CUDA-LABEL: llvm.func @alloc_dealloc__dlpack(
func.func @alloc_dealloc(%a: memref<?xf32>, %b: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  %t = memref.alloc(%n) : memref<?xf32>
  memref.copy %a, %t : memref<?xf32> to memref<?xf32>
  affine.for %i = 0 to %n {
    %v = affine.load %t[%i] : memref<?xf32>
    %w = arith.addf %v, %v : f32
    affine.store %w, %b[%i] : memref<?xf32>
  }
  memref.dealloc %t : memref<?xf32>
  return
}

// -----

// A stack buffer allocated in each iteration of an scf.for over 3000 rows
// (16 KiB of scratch, sized for the largest case, as a backend may: 48 MiB
// of stack if every iteration took its own), a subview of it filled from the
// row, summed by an affine loop carrying the sum. The buffer is allocated
// once, before the loop.

// CHECK-LABEL: llvm.func @row_sums(
// CHECK: llvm.alloca %{{.*}} x f32
// CHECK-NEXT: llvm.br ^[[HEADER:.*]](
// CHECK: ^[[HEADER]](
// CHECK-NOT: llvm.alloca %{{.*}} x f32
// CHECK-LABEL: llvm.func @row_sums__dlpack(
func.func @row_sums(%a: memref<?x8xf32>, %out: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %a, %c0 : memref<?x8xf32>
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{'memref.alloca' op allocates on the host stack in host code}}
    %scratch = memref.alloca() : memref<4096xf32>
    %row = memref.subview %scratch[0] [8] [1] : memref<4096xf32> to memref<8xf32, strided<[1]>>
    %src = memref.subview %a[%i, 0] [1, 8] [1, 1] : memref<?x8xf32> to memref<8xf32, strided<[1], offset: ?>>
    memref.copy %src, %row : memref<8xf32, strided<[1], offset: ?>> to memref<8xf32, strided<[1]>>
    %s = affine.for %j = 0 to 8 iter_args(%acc = %zero) -> f32 {
      %v = affine.load %row[%j] : memref<8xf32, strided<[1]>>
      %w = arith.addf %acc, %v : f32
      affine.yield %w : f32
    }
    memref.store %s, %out[%i] : memref<?xf32>
  }
  return
}

// -----

// Views of an argument: collapse_shape, reinterpret_cast, expand_shape (of
// another argument, after it was written) and a strided subview, each
// copied out. On CUDA the copies are kernels.

// CHECK-LABEL: llvm.func @views(
// CHECK-LABEL: llvm.func @views__dlpack(
// CUDA-LABEL: llvm.func @views__dlpack(
// CUDA: gpu.binary @views_kernel
func.func @views(%a: memref<4x6xf32>, %flat: memref<24xf32>, %picked: memref<3x2xf32>,
                 %reshaped: memref<6x4xf32>, %strided: memref<2x3xf32>) attributes {dlpack.entry} {
  %f = memref.collapse_shape %a [[0, 1]] : memref<4x6xf32> into memref<24xf32>
  memref.copy %f, %flat : memref<24xf32> to memref<24xf32>
  %r = memref.reinterpret_cast %a to offset: [1], sizes: [3, 2], strides: [6, 2]
      : memref<4x6xf32> to memref<3x2xf32, strided<[6, 2], offset: 1>>
  memref.copy %r, %picked : memref<3x2xf32, strided<[6, 2], offset: 1>> to memref<3x2xf32>
  %e = memref.expand_shape %flat [[0, 1]] output_shape [6, 4] : memref<24xf32> into memref<6x4xf32>
  memref.copy %e, %reshaped : memref<6x4xf32> to memref<6x4xf32>
  %s = memref.subview %a[1, 0] [2, 3] [2, 2] : memref<4x6xf32> to memref<2x3xf32, strided<[12, 2], offset: 6>>
  memref.copy %s, %strided : memref<2x3xf32, strided<[12, 2], offset: 6>> to memref<2x3xf32>
  return
}

// -----

// scf.while with a condition that reads the buffer only while in bounds:
// the index of the first element above %t, or the size. On CUDA the loop
// is a kernel of one thread, and the index comes back to the host.

// CHECK-LABEL: llvm.func @first_above(
// CHECK-LABEL: llvm.func @first_above__dlpack(

// CUDA-LABEL: llvm.func @first_above(
// CUDA: gpu.launch_func {{.*}}@first_above_kernel::@first_above_kernel
// CUDA: llvm.call @mgpuMemcpy(
// CUDA-NEXT: llvm.call @dlrt_call_synchronize()
// CUDA: llvm.return %{{.*}} : i64
func.func @first_above(%a: memref<?xf32>, %t: f32) -> i64 attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  %r = scf.while (%i = %c0) : (index) -> index {
    %inside = arith.cmpi slt, %i, %n : index
    %go = scf.if %inside -> i1 {
      %v = memref.load %a[%i] : memref<?xf32>
      %small = arith.cmpf ole, %v, %t : f32
      scf.yield %small : i1
    } else {
      %false = arith.constant false
      scf.yield %false : i1
    }
    scf.condition(%go) %i : index
  } do {
  ^bb0(%i: index):
    %next = arith.addi %i, %c1 : index
    scf.yield %next : index
  }
  %r64 = arith.index_cast %r : index to i64
  return %r64 : i64
}

// -----

// Parallel loops through a temporary the function allocates and frees:
// kernels on CUDA, with the temporary in device memory.

// CHECK-LABEL: llvm.func @parallel_axpy(
// CHECK: llvm.call @_mlir_memref_to_llvm_free
// CHECK-LABEL: llvm.func @parallel_axpy__dlpack(
// CUDA-LABEL: llvm.func @parallel_axpy(
// CUDA: llvm.call @mgpuMemAlloc
// CUDA: gpu.launch_func
// CUDA: gpu.launch_func
// CUDA: llvm.call @mgpuMemFree
// CUDA-LABEL: llvm.func @parallel_axpy__dlpack(
// CUDA: gpu.binary @parallel_axpy_kernel
func.func @parallel_axpy(%a: memref<?xf32>, %b: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  %n = memref.dim %a, %c0 : memref<?xf32>
  %t = memref.alloc(%n) : memref<?xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = memref.load %a[%i] : memref<?xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %t[%i] : memref<?xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = memref.load %t[%i] : memref<?xf32>
    %u = memref.load %b[%i] : memref<?xf32>
    %w = arith.addf %v, %u : f32
    memref.store %w, %b[%i] : memref<?xf32>
    scf.reduce
  }
  memref.dealloc %t : memref<?xf32>
  return
}
