// RUN: dl-opt %s --verify-diagnostics \
// RUN:   --dlbridge-cuda-pipeline="format=ptx bufferize=false"

// What the CUDA pipeline cannot lower in a kernel is an error at its
// location before the kernels are serialised, not an LLVM translation
// failure without one.

func.func @copy(%x: memref<?xf32>, %y: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%c0] : memref<?xf32>
    // expected-error @+1 {{'amdgpu.lds_barrier' was not lowered to the LLVM dialect by the CUDA pipeline}}
    amdgpu.lds_barrier
    memref.store %v, %y[%c0] : memref<?xf32>
    gpu.terminator
  }
  return
}
