// RUN: dl-opt %s --verify-diagnostics --dlpack-cuda-pipeline="format=ptx"

// What the CUDA pipeline cannot lower in a kernel is an error at its
// location before the kernels are serialised, not an LLVM translation
// failure without one.

func.func @copy4(%x: memref<?xf32>, %y: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = vector.load %x[%c0] : memref<?xf32>, vector<4xf32>
    %z = arith.constant dense<0.0> : vector<f32>
    // expected-error @+1 {{'vector.scan' was not lowered to the LLVM dialect by the CUDA pipeline}}
    %s, %t = vector.scan <add>, %v, %z {inclusive = true, reduction_dim = 0} : vector<4xf32>, vector<f32>
    vector.store %s, %y[%c0] : memref<?xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}
