//===- CUDAPrograms.h - linalg programs the CUDA tests compile -*- C++ -*-===//
//
// Part of dlbridge's unit tests: tensor-level programs for the CUDA pipeline
// (ptxas checks) and the JIT (execution on a GPU when there is one).
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_UNITTESTS_PIPELINES_CUDAPROGRAMS_H
#define DLBRIDGE_UNITTESTS_PIPELINES_CUDAPROGRAMS_H

namespace dlbridge::test {

/// out[i, j] = tanh(exp(a[i, j] + b[j])) + erf(a[i, j]): broadcasting a row
/// vector, with math functions that need libdevice.
inline constexpr const char *kBroadcastMath = R"mlir(
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
func.func @broadcast_math(%a: tensor<?x?xf32>, %b: tensor<?xf32>)
    -> tensor<?x?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %a, %c1 : tensor<?x?xf32>
  %init = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<?x?xf32>, tensor<?xf32>)
      outs(%init : tensor<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %e = math.exp %s : f32
    %t = math.tanh %e : f32
    %f = math.erf %x : f32
    %v = arith.addf %t, %f : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
)mlir";

/// Plain elementwise a + b (no libdevice needed).
inline constexpr const char *kAdd = R"mlir(
#id = affine_map<(i) -> (i)>
func.func @add(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32>
    attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %init = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id],
                       iterator_types = ["parallel"]}
      ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
)mlir";

/// out[i] = sum_j a[i, j].
inline constexpr const char *kRowSum = R"mlir(
func.func @row_sum(%a: tensor<?x?xf32>) -> tensor<?xf32>
    attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty(%m) : tensor<?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<?xf32>)
      -> tensor<?xf32>
  %r = linalg.reduce ins(%a : tensor<?x?xf32>) outs(%acc : tensor<?xf32>)
      dimensions = [1]
    (%x: f32, %o: f32) {
      %s = arith.addf %x, %o : f32
      linalg.yield %s : f32
    }
  return %r : tensor<?xf32>
}
)mlir";

/// out = sum_i a[i], a 0-d result: a sequential loop in a one-thread kernel.
inline constexpr const char *kTotal = R"mlir(
func.func @total(%a: tensor<?xf32>) -> tensor<f32> attributes {dlpack.entry} {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%a : tensor<?xf32>) outs(%acc : tensor<f32>)
      dimensions = [0]
    (%x: f32, %o: f32) {
      %s = arith.addf %x, %o : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}
)mlir";

/// Row-wise softmax: max, exp(x - max), sum, divide.
inline constexpr const char *kSoftmax = R"mlir(
#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (i)>
func.func @softmax(%a: tensor<?x?xf32>) -> tensor<?x?xf32>
    attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %a, %c1 : tensor<?x?xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %rows = tensor.empty(%m) : tensor<?xf32>
  %max0 = linalg.fill ins(%ninf : f32) outs(%rows : tensor<?xf32>)
      -> tensor<?xf32>
  %max = linalg.reduce ins(%a : tensor<?x?xf32>) outs(%max0 : tensor<?xf32>)
      dimensions = [1]
    (%x: f32, %o: f32) {
      %v = arith.maximumf %x, %o : f32
      linalg.yield %v : f32
    }
  %full = tensor.empty(%m, %n) : tensor<?x?xf32>
  %e = linalg.generic {indexing_maps = [#id, #col, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %max : tensor<?x?xf32>, tensor<?xf32>)
      outs(%full : tensor<?x?xf32>) {
  ^bb0(%x: f32, %mx: f32, %o: f32):
    %d = arith.subf %x, %mx : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  %sum0 = linalg.fill ins(%zero : f32) outs(%rows : tensor<?xf32>)
      -> tensor<?xf32>
  %sum = linalg.reduce ins(%e : tensor<?x?xf32>) outs(%sum0 : tensor<?xf32>)
      dimensions = [1]
    (%x: f32, %o: f32) {
      %v = arith.addf %x, %o : f32
      linalg.yield %v : f32
    }
  %full2 = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%e, %sum : tensor<?x?xf32>, tensor<?xf32>)
      outs(%full2 : tensor<?x?xf32>) {
  ^bb0(%x: f32, %s: f32, %o: f32):
    %v = arith.divf %x, %s : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
)mlir";

/// c = a @ b.
inline constexpr const char *kMatmul = R"mlir(
func.func @matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>)
    -> tensor<?x?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<?x?xf32>)
      -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
      outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
)mlir";

} // namespace dlbridge::test

#endif // DLBRIDGE_UNITTESTS_PIPELINES_CUDAPROGRAMS_H
