// RUN: dl-opt %s --split-input-file --verify-diagnostics --dlbridge-cuda-pipeline="format=ptx"

// Input the CUDA pipeline refuses before compiling anything, one case per
// rule: each error is at the user's operation or parameter, names it and
// says what to change. (Device-side refusals are in cuda-errors.mlir.)

// expected-error @+1 {{'func.func' @index_tensor (dlpack.entry) argument 0: element type 'index' has no DLPack dtype: use i64 or i32}}
func.func @index_tensor(%a: tensor<4xindex>) -> tensor<4xindex> attributes {dlpack.entry} {
  return %a : tensor<4xindex>
}

// -----

// expected-error @+1 {{'func.func' @unranked (dlpack.entry) result 0: unranked type 'tensor<*xf32>' cannot cross the DLPack boundary: give it a rank}}
func.func @unranked(%a: tensor<4xf32>) -> tensor<*xf32> attributes {dlpack.entry} {
  %u = tensor.cast %a : tensor<4xf32> to tensor<*xf32>
  return %u : tensor<*xf32>
}

// -----

// expected-error @+1 {{'func.func' @memory_space (dlpack.entry) argument 0: memory space 1 : i64 cannot cross the DLPack boundary: remove it (a DLPack tensor's device says where its memory is}}
func.func @memory_space(%a: memref<4xf32, 1>) attributes {dlpack.entry} {
  return
}

// -----

// expected-error @+1 {{'func.func' @tuple (dlpack.entry) argument 0: type 'tuple<f32, f32>' cannot cross the DLPack boundary}}
func.func @tuple(%a: tuple<f32, f32>) attributes {dlpack.entry} {
  return
}

// -----

func.func @foreign(%a: tensor<4xf32>) -> tensor<4xf32> attributes {dlpack.entry} {
  // expected-error @+1 {{'tosa.add' computes on tensors but has no bufferization}}
  %r = tosa.add %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' @declared (dlpack.entry) is a declaration: give it a body}}
func.func private @declared(memref<4xf32>) attributes {dlpack.entry}
