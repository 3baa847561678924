//===- axpy_consumer.cpp - Compile and call a kernel from outside -------===//
//
// Part of dlbridge. Compiles a tensor-level MLIR function with dlbridge's
// C++ API, calls it on DLPack tensors and checks what comes back. Exits 0
// when every number is right and the result was released.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/JIT/Kernel.h"
#include "dlbridge/Runtime/dlrt.h"

#include <cstdio>
#include <vector>

static const char *kSource = R"mlir(
func.func @axpy(%x: tensor<?xf32>, %y: tensor<?xf32>, %a: f32)
    -> tensor<?xf32> attributes {dlpack.entry} {
  %0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>,
                                        affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%y : tensor<?xf32>) {
  ^bb0(%xi: f32, %yi: f32):
    %p = arith.mulf %xi, %a : f32
    %s = arith.addf %p, %yi : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
)mlir";

static DLTensor vector(std::vector<float> &data, int64_t *shape) {
  DLTensor tensor{};
  tensor.data = data.data();
  tensor.device = {kDLCPU, 0};
  tensor.ndim = 1;
  tensor.dtype = {kDLFloat, 32, 1};
  tensor.shape = shape;
  return tensor;
}

int main() {
  dlbridge::jit::CompileOptions options;
  options.cache = false;
  dlbridge::jit::CompileResult compiled =
      dlbridge::jit::compile(kSource, "axpy", options);
  if (!compiled) {
    std::fprintf(stderr, "compile failed: %s\n", compiled.error.c_str());
    return 1;
  }
  const dlbridge::jit::Kernel &kernel = *compiled.kernel;

  std::vector<float> x = {1, 2, 3, 4}, y = {10, 20, 30, 40};
  int64_t shape[] = {4};
  DLTensor xTensor = vector(x, shape), yTensor = vector(y, shape);
  float alpha = 2;
  void *args[] = {&xTensor, &yTensor, &alpha};
  void *results[] = {nullptr};
  dlrt_call_ctx ctx;
  dlrt_call_ctx_init(&ctx, {kDLCPU, 0}, nullptr);
  if (int32_t status = kernel.call(args, results, &ctx)) {
    std::fprintf(stderr, "call failed: %s\n", dlrt_last_error());
    return status;
  }

  auto *result = static_cast<DLManagedTensorVersioned *>(results[0]);
  const float *out = static_cast<const float *>(result->dl_tensor.data);
  int failures = 0;
  for (int i = 0; i < 4; ++i)
    if (out[i] != alpha * x[i] + y[i] || y[i] != 10.0f * (i + 1))
      ++failures;
  dlrt_release_managed(result);
  std::printf("%s: axpy of 4 floats %s\n", kernel.signature().name.c_str(),
              failures ? "WRONG" : "ok");
  return failures;
}
