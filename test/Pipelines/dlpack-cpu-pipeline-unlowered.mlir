// RUN: dl-opt %s --split-input-file --verify-diagnostics --dlpack-cpu-pipeline

// The CPU pipeline fails where it leaves an operation it did not lower, at
// that operation's location, instead of exiting 0 with code LLVM cannot
// translate.

func.func @double_on_gpu(%x: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  // expected-error @+1 {{'gpu.launch' is GPU code: compile it with the CUDA target (target="cuda")}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<?xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %x[%tx] : memref<?xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @device_buffer(%n: index) -> f32 attributes {dlpack.entry} {
  // expected-error @+1 {{'gpu.alloc' is GPU code: compile it with the CUDA target (target="cuda")}}
  %m = gpu.alloc (%n) : memref<?xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %m[%c0] : memref<?xf32>
  return %v : f32
}
