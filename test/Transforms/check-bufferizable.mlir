// RUN: dl-opt %s --split-input-file --verify-diagnostics --dlbridge-check-bufferizable | FileCheck %s

// Operations bufferization lowers pass, scalar code in their regions too.
// CHECK-LABEL: func @bufferizable
func.func @bufferizable(%a: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.map { math.exp } ins(%a : tensor<?xf32>) outs(%a : tensor<?xf32>)
  return %r : tensor<?xf32>
}

// -----

func.func @foreign(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.add' computes on tensors but has no bufferization: express it with linalg ops (linalg.generic, linalg.map, ...) or tensor ops, or lower the program to memrefs before compiling}}
  %r = tosa.add %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @shape_of(%a: tensor<?xf32>) -> tensor<1xindex> {
  // expected-error @+1 {{'shape.shape_of' computes on tensors but has no bufferization}}
  %s = shape.shape_of %a : tensor<?xf32> -> tensor<1xindex>
  return %s : tensor<1xindex>
}
