// Only the requested entry and what it references are compiled: a module
// with an entry of GPU code, one with a host loop the CUDA target cannot
// run and one of linalg on tensors compiles for each target through the
// entries that target can handle (the pipelines' entry option, which the
// JIT and dl-run --entry set).
// REQUIRES: numpy
// RUN: dl-opt %s '--dlbridge-cpu-pipeline=entry=scale' | FileCheck %s --check-prefix=SCALE
// RUN: dl-opt %s '--dlbridge-cpu-pipeline=entry=prefix_sum' | FileCheck %s --check-prefix=PREFIX
// RUN: dl-opt %s '--dlbridge-cuda-pipeline=chip=sm_90 format=cubin entry=fill_on_gpu' | FileCheck %s --check-prefix=GPU
// RUN: dl-opt %s '--dlbridge-cuda-pipeline=chip=sm_90 format=cubin entry=scale' | FileCheck %s --check-prefix=SCALE
// RUN: not dl-opt %s --dlbridge-cpu-pipeline 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: not dl-opt %s '--dlbridge-cpu-pipeline=entry=missing' 2>&1 | FileCheck %s --check-prefix=MISSING

// SCALE-NOT: @fill_on_gpu
// SCALE-NOT: @prefix_sum
// SCALE-NOT: @gpu_helper
// SCALE-LABEL: llvm.func @twice(
// SCALE-LABEL: llvm.func @scale(
// SCALE: llvm.call @twice
// SCALE-LABEL: llvm.func @scale__dlpack(
// SCALE-NOT: @fill_on_gpu
// SCALE-NOT: @prefix_sum

// PREFIX-NOT: @scale
// PREFIX-NOT: @fill_on_gpu
// PREFIX-LABEL: llvm.func @prefix_sum(
// PREFIX-LABEL: llvm.func @prefix_sum__dlpack(
// PREFIX-NOT: @scale
// PREFIX-NOT: @fill_on_gpu

// GPU-NOT: @prefix_sum
// GPU-LABEL: llvm.func @gpu_helper(
// GPU: gpu.launch_func
// GPU: gpu.binary @gpu_helper_kernel
// GPU-LABEL: llvm.func @fill_on_gpu(
// GPU: llvm.call @gpu_helper
// GPU-LABEL: llvm.func @fill_on_gpu__dlpack(
// GPU-NOT: @prefix_sum

// Without an entry every function is compiled, and the CPU refuses the GPU
// code.
// ALL: cpu-entry-selection.mlir:[[@LINE+18]]:3: error: 'gpu.launch' is GPU code: compile it with the CUDA target

// MISSING: error: dlbridge-select-entry: no 'dlpack.entry' function named @missing; entries: @fill_on_gpu, @prefix_sum, @scale

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(6); np.save('%t/a.npy', r.standard_normal(9).astype(np.float32)); np.save('%t/p.npy', np.zeros(9, np.float32))"
// RUN: dl-run %s --entry scale -i %t/a.npy -o %t/scaled.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/scaled.npy "2 * a" a=%t/a.npy | FileCheck %s --check-prefix=OK
// RUN: dl-run %s --entry prefix_sum -i %t/a.npy -i %t/p.npy --write-back
// RUN: %python %S/../Tools/dl-run/check.py %t/p.npy "np.cumsum(a)" a=%t/a.npy --rtol 1e-5 | FileCheck %s --check-prefix=OK
// OK: ok:
// RUN: not dl-run %s --entry fill_on_gpu -i %t/p.npy 2>&1 | FileCheck %s --check-prefix=RUNGPU
// RUNGPU: cpu-entry-selection.mlir:[[@LINE+6]]:3: error: 'gpu.launch' is GPU code: compile it with the CUDA target

func.func private @gpu_helper(%x: memref<?xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
    memref.store %v, %x[%tx] : memref<?xf32>
    gpu.terminator
  }
  return
}

func.func @fill_on_gpu(%x: memref<?xf32>) attributes {dlpack.entry} {
  %one = arith.constant 1.0 : f32
  func.call @gpu_helper(%x, %one) : (memref<?xf32>, f32) -> ()
  return
}

func.func @prefix_sum(%a: memref<?xf32>, %out: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %a, %c0 : memref<?xf32>
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
    %v = memref.load %a[%i] : memref<?xf32>
    %w = arith.addf %acc, %v : f32
    memref.store %w, %out[%i] : memref<?xf32>
    scf.yield %w : f32
  }
  return
}

func.func private @twice(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %y = linalg.add ins(%x, %x : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %y : tensor<?xf32>
}

func.func @scale(%x: tensor<?xf32>) -> tensor<?xf32> attributes {dlpack.entry} {
  %y = func.call @twice(%x) : (tensor<?xf32>) -> tensor<?xf32>
  return %y : tensor<?xf32>
}
