// RUN: dl-opt %s --split-input-file --verify-diagnostics --dlbridge-cpu-pipeline

// What the CPU pipeline refuses, one case per rule: each error is at the
// user's operation, names it and says what to change.

// GPU code is refused before anything else, with a body or without (an
// empty launch would otherwise be folded away and silently never run).
func.func @double_on_gpu(%x: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  // expected-error @+1 {{'gpu.launch' is GPU code: compile it with the CUDA target (target="cuda", or --dlbridge-cuda-pipeline)}}
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

func.func @empty_launch(%x: memref<?xf32>) attributes {dlpack.entry} {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'gpu.launch' is GPU code: compile it with the CUDA target}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

// -----

module attributes {gpu.container_module} {
  // expected-error @+1 {{'gpu.module' is GPU code: compile it with the CUDA target}}
  gpu.module @kernels {
    gpu.func @k(%a: memref<?xf32>) kernel {
      gpu.return
    }
  }
  func.func @launch_func(%a: memref<?xf32>) attributes {dlpack.entry} {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'gpu.launch_func' is GPU code: compile it with the CUDA target}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<?xf32>)
    return
  }
}

// -----

func.func @device_buffer(%n: index) -> f32 attributes {dlpack.entry} {
  // expected-error @+1 {{'gpu.alloc' is GPU code: compile it with the CUDA target}}
  %m = gpu.alloc (%n) : memref<?xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %m[%c0] : memref<?xf32>
  return %v : f32
}

// -----

// Parameters DLPack cannot describe are refused where they are declared.
// expected-error @+1 {{'func.func' @index_tensor (dlpack.entry) argument 0: element type 'index' has no DLPack dtype: use i64 or i32}}
func.func @index_tensor(%a: tensor<4xindex>) -> tensor<4xindex> attributes {dlpack.entry} {
  return %a : tensor<4xindex>
}

// -----

// expected-error @+1 {{'func.func' @unranked (dlpack.entry) argument 0: unranked type 'tensor<*xf32>' cannot cross the DLPack boundary: give it a rank}}
func.func @unranked(%a: tensor<*xf32>) -> tensor<*xf32> attributes {dlpack.entry} {
  return %a : tensor<*xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>
// expected-error @+1 {{has an encoding, which DLPack cannot describe: DLPack tensors are dense}}
func.func @sparse(%a: tensor<4x4xf32, #CSR>) -> tensor<4x4xf32, #CSR> attributes {dlpack.entry} {
  return %a : tensor<4x4xf32, #CSR>
}

// -----

// expected-error @+1 {{'func.func' @vector_arg (dlpack.entry) argument 0: type 'vector<4xf32>' cannot cross the DLPack boundary}}
func.func @vector_arg(%a: vector<4xf32>) -> vector<4xf32> attributes {dlpack.entry} {
  return %a : vector<4xf32>
}

// -----

// expected-error @+1 {{'func.func' @f128_scalar (dlpack.entry) argument 0: scalar type 'f128' has no DLPack dtype}}
func.func @f128_scalar(%a: f128) -> f128 attributes {dlpack.entry} {
  return %a : f128
}

// -----

// expected-error @+1 {{'func.func' @pointer (dlpack.entry) argument 0: type '!llvm.ptr' cannot cross the DLPack boundary}}
func.func @pointer(%a: !llvm.ptr) attributes {dlpack.entry} {
  return
}

// -----

// expected-error @+1 {{'func.func' @affine_layout (dlpack.entry) argument 0: layout affine_map<(d0, d1) -> (d1, d0)> cannot cross the DLPack boundary}}
func.func @affine_layout(%a: memref<4x4xf32, affine_map<(i, j) -> (j, i)>>) attributes {dlpack.entry} {
  return
}

// -----

func.func @foreign(%a: tensor<4xf32>) -> tensor<4xf32> attributes {dlpack.entry} {
  // expected-error @+1 {{'tosa.add' computes on tensors but has no bufferization: express it with linalg ops}}
  %r = tosa.add %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' @declared (dlpack.entry) is a declaration: give it a body}}
func.func private @declared(memref<4xf32>) attributes {dlpack.entry}
