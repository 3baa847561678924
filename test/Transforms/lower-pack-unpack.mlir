// RUN: dl-opt %s --dlbridge-lower-pack-unpack -split-input-file -verify-diagnostics | FileCheck %s

// A pack whose tiles do not divide the source: pad, expand, transpose.
// CHECK-LABEL: func.func @pack_padded
// CHECK-SAME: (%[[A:.*]]: tensor<5x7xf32>
// CHECK-NOT: linalg.pack
// CHECK: %[[PAD:.*]] = tensor.pad %[[A]] low[0, 0] high[1, 1]
// CHECK: %[[EXP:.*]] = tensor.expand_shape %[[PAD]] {{\[}}[0, 1], [2, 3]] {{.*}} : tensor<6x8xf32> into tensor<3x2x2x4xf32>
// CHECK: linalg.transpose ins(%[[EXP]] : tensor<3x2x2x4xf32>) {{.*}} permutation = [2, 0, 3, 1]
func.func @pack_padded(%a: tensor<5x7xf32>) -> tensor<2x3x4x2xf32> {
  %e = tensor.empty() : tensor<2x3x4x2xf32>
  %pad = arith.constant -1.0 : f32
  %p = linalg.pack %a padding_value(%pad : f32) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [4, 2] into %e : tensor<5x7xf32> -> tensor<2x3x4x2xf32>
  return %p : tensor<2x3x4x2xf32>
}

// CHECK-LABEL: func.func @unpack_dynamic
// CHECK-NOT: linalg.unpack
// CHECK: linalg.transpose
// CHECK: tensor.collapse_shape
// CHECK: tensor.extract_slice
func.func @unpack_dynamic(%a: tensor<?x?x?x4xf32>, %t: index, %m: index, %n: index) -> tensor<?x?xf32> {
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %u = linalg.unpack %a inner_dims_pos = [0, 1] inner_tiles = [%t, 4] into %e : tensor<?x?x?x4xf32> -> tensor<?x?xf32>
  return %u : tensor<?x?xf32>
}

// -----

func.func @pack_dynamic_tile(%a: tensor<?x?xf32>, %t: index, %e: tensor<?x?x?x4xf32>) -> tensor<?x?x?x4xf32> {
  %pad = arith.constant 0.0 : f32
  // expected-error @below {{'linalg.pack' op with dynamic inner tile sizes is not supported: use constant inner_tiles}}
  %p = linalg.pack %a padding_value(%pad : f32) inner_dims_pos = [0, 1] inner_tiles = [%t, 4] into %e : tensor<?x?xf32> -> tensor<?x?x?x4xf32>
  return %p : tensor<?x?x?x4xf32>
}

