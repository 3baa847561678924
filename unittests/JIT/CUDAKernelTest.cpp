//===- CUDAKernelTest.cpp - JIT-compiled CUDA kernels ---------------------===//
//
// Part of dlbridge's unit tests. compile() with Target::CUDA everywhere;
// calls with device tensors on a CUDA context with a stream where a GPU is
// present (skipped with the reason otherwise), and the error a call reports
// where there is no driver.
//
//===----------------------------------------------------------------------===//

#include "../Pipelines/CUDAPrograms.h"
#include "TensorBuilder.h"

#include "dlbridge/JIT/Kernel.h"
#include "dlbridge/Runtime/dlrt_cuda.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

using namespace dlbridge::jit;
using dlbridge::testing::TensorView;

namespace {

CompileOptions cudaOptions() {
  CompileOptions options;
  options.target = Target::CUDA;
  options.chip = "sm_80";
  // PTX is JIT-compiled by the driver for whatever GPU runs the test, and
  // needs no ptxas here.
  options.format = GPUBinaryFormat::PTX;
  options.cache = false;
  return options;
}

TEST(CUDAKernelTest, CompilesForCUDA) {
  CompileResult result = compile(dlbridge::test::kAdd, "add", cudaOptions());
  ASSERT_TRUE(result) << result.error;
  const Signature &signature = result.kernel->signature();
  EXPECT_EQ(signature.device, kDLCUDA);
  ASSERT_EQ(signature.args.size(), 2u);
  EXPECT_TRUE(signature.args[0].strided);
  // Compact tensors take kernels of vector loads and stores, compiled when
  // first called with them.
  EXPECT_TRUE(result.kernel->hasContiguousVariant());
  const std::string &ir = result.kernel->stages().llvmDialect;
  EXPECT_NE(ir.find("gpu.binary @add_kernel"), std::string::npos);
  EXPECT_NE(ir.find("llvm.call @dlrt_call_stream()"), std::string::npos);
  EXPECT_EQ(ir.find("mgpuStream"), std::string::npos);
}

TEST(CUDAKernelTest, PipelineErrorsComeBackAsText) {
  CompileOptions options = cudaOptions();
  options.chip = "sm_90";
  options.ptxVersion = "ptx60";
  CompileResult result = compile(dlbridge::test::kAdd, "add", options);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error.find("PTX 6.0 cannot target sm_90"), std::string::npos)
      << result.error;
}

TEST(CUDAKernelTest, WithoutADeviceACallFailsWithTheReason) {
  if (dlrt_cuda_available())
    GTEST_SKIP() << "a CUDA device is present: covered by the GPU tests";
  CompileResult result = compile(dlbridge::test::kAdd, "add", cudaOptions());
  ASSERT_TRUE(result) << result.error;
  // Never dereferenced: nothing can be launched without a driver.
  std::vector<float> a(4), b(4);
  TensorView x(a.data(), {kDLFloat, 32, 1}, {4}, {}, 0, {kDLCUDA, 0});
  TensorView y(b.data(), {kDLFloat, 32, 1}, {4}, {}, 0, {kDLCUDA, 0});
  void *args[] = {x.get(), y.get()};
  // A tensor result's managed tensor is written into its results slot.
  void *results[] = {nullptr};
  dlrt_call_ctx ctx;
  dlrt_call_ctx_init(&ctx, DLDevice{kDLCUDA, 0}, nullptr);
  int32_t status = result.kernel->call(args, results, &ctx);
  auto *out = static_cast<DLManagedTensorVersioned *>(results[0]);
  EXPECT_NE(status, DLRT_OK);
  EXPECT_EQ(out, nullptr);
  EXPECT_NE(std::string(ctx.error).find("CUDA"), std::string::npos)
      << ctx.error;
}

/// Device buffers and a runtime-owned stream for the GPU tests.
class CUDAExecution : public ::testing::Test {
protected:
  void SetUp() override {
    if (!dlrt_cuda_available())
      GTEST_SKIP() << "no CUDA driver or device: GPU execution not tested "
                      "(dlrt_cuda_available() == 0)";
    (void)dlrt_cuda_take_launch_error();
    mgpuSetDefaultDevice(0);
    stream = mgpuStreamCreate();
    ASSERT_NE(stream, nullptr) << dlrt_last_error();
  }
  void TearDown() override {
    for (void *buffer : buffers)
      mgpuMemFree(buffer, stream);
    if (stream) {
      mgpuStreamSynchronize(stream);
      mgpuStreamDestroy(stream);
    }
  }

  void *toDevice(const std::vector<float> &host) {
    void *device = mgpuMemAlloc(host.size() * sizeof(float), stream, false);
    EXPECT_NE(device, nullptr) << dlrt_last_error();
    mgpuMemcpy(device, const_cast<float *>(host.data()),
               host.size() * sizeof(float), stream);
    buffers.push_back(device);
    return device;
  }

  std::vector<float> toHost(DLManagedTensorVersioned *tensor) {
    const DLTensor &t = tensor->dl_tensor;
    EXPECT_EQ(t.device.device_type, kDLCUDA);
    int64_t count = 1;
    for (int32_t i = 0; i < t.ndim; ++i)
      count *= t.shape[i];
    std::vector<float> host(count);
    mgpuMemcpy(host.data(), static_cast<char *>(t.data) + t.byte_offset,
               count * sizeof(float), stream);
    mgpuStreamSynchronize(stream);
    EXPECT_EQ(dlrt_cuda_take_launch_error(), DLRT_OK) << dlrt_last_error();
    return host;
  }

  int32_t call(const Kernel &kernel, std::vector<DLTensor *> inputs,
               DLManagedTensorVersioned *&out) {
    std::vector<void *> args(inputs.begin(), inputs.end());
    void *results[] = {nullptr};
    dlrt_call_ctx_init(&ctx, DLDevice{kDLCUDA, 0}, stream);
    int32_t status = kernel.call(args.data(), results, &ctx);
    out = static_cast<DLManagedTensorVersioned *>(results[0]);
    return status;
  }

  void *stream = nullptr;
  std::vector<void *> buffers;
  dlrt_call_ctx ctx;
};

TEST_F(CUDAExecution, BroadcastMath) {
  CompileResult result =
      compile(dlbridge::test::kBroadcastMath, "broadcast_math", cudaOptions());
  ASSERT_TRUE(result) << result.error;
  const int64_t m = 37, n = 301;
  std::vector<float> a(m * n), b(n);
  for (int64_t i = 0; i < m * n; ++i)
    a[i] = 0.001f * static_cast<float>(i % 997) - 0.4f;
  for (int64_t j = 0; j < n; ++j)
    b[j] = 0.002f * static_cast<float>(j) - 0.3f;
  TensorView x(toDevice(a), {kDLFloat, 32, 1}, {m, n}, {}, 0, {kDLCUDA, 0});
  TensorView y(toDevice(b), {kDLFloat, 32, 1}, {n}, {}, 0, {kDLCUDA, 0});
  DLManagedTensorVersioned *out = nullptr;
  ASSERT_EQ(call(*result.kernel, {x.get(), y.get()}, out), DLRT_OK)
      << ctx.error;
  std::vector<float> got = toHost(out);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float v = a[i * n + j];
      float expected = std::tanh(std::exp(v + b[j])) + std::erf(v);
      ASSERT_NEAR(got[i * n + j], expected, 1e-5f) << i << ", " << j;
    }
  out->deleter(out);
}

TEST_F(CUDAExecution, RowSumSoftmaxMatmulAndTotal) {
  const int64_t m = 19, k = 23, n = 300;
  std::vector<float> a(m * n), p(m * k), q(k * n);
  for (int64_t i = 0; i < m * n; ++i)
    a[i] = std::sin(0.37f * static_cast<float>(i));
  for (int64_t i = 0; i < m * k; ++i)
    p[i] = 0.01f * static_cast<float>(i % 17);
  for (int64_t i = 0; i < k * n; ++i)
    q[i] = 0.02f * static_cast<float>(i % 13) - 0.1f;
  TensorView x(toDevice(a), {kDLFloat, 32, 1}, {m, n}, {}, 0, {kDLCUDA, 0});

  CompileResult rowSum = compile(dlbridge::test::kRowSum, "", cudaOptions());
  ASSERT_TRUE(rowSum) << rowSum.error;
  DLManagedTensorVersioned *out = nullptr;
  ASSERT_EQ(call(*rowSum.kernel, {x.get()}, out), DLRT_OK) << ctx.error;
  std::vector<float> sums = toHost(out);
  out->deleter(out);
  for (int64_t i = 0; i < m; ++i) {
    double expected = 0;
    for (int64_t j = 0; j < n; ++j)
      expected += a[i * n + j];
    EXPECT_NEAR(sums[i], expected, 1e-3) << i;
  }

  CompileResult softmax = compile(dlbridge::test::kSoftmax, "", cudaOptions());
  ASSERT_TRUE(softmax) << softmax.error;
  ASSERT_EQ(call(*softmax.kernel, {x.get()}, out), DLRT_OK) << ctx.error;
  std::vector<float> sm = toHost(out);
  out->deleter(out);
  for (int64_t i = 0; i < m; ++i) {
    float mx = -INFINITY;
    for (int64_t j = 0; j < n; ++j)
      mx = std::max(mx, a[i * n + j]);
    double total = 0;
    for (int64_t j = 0; j < n; ++j)
      total += std::exp(a[i * n + j] - mx);
    for (int64_t j = 0; j < n; ++j)
      ASSERT_NEAR(sm[i * n + j], std::exp(a[i * n + j] - mx) / total, 1e-5)
          << i << ", " << j;
  }

  CompileResult matmul = compile(dlbridge::test::kMatmul, "", cudaOptions());
  ASSERT_TRUE(matmul) << matmul.error;
  TensorView pa(toDevice(p), {kDLFloat, 32, 1}, {m, k}, {}, 0, {kDLCUDA, 0});
  TensorView qa(toDevice(q), {kDLFloat, 32, 1}, {k, n}, {}, 0, {kDLCUDA, 0});
  ASSERT_EQ(call(*matmul.kernel, {pa.get(), qa.get()}, out), DLRT_OK)
      << ctx.error;
  std::vector<float> c = toHost(out);
  out->deleter(out);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double expected = 0;
      for (int64_t l = 0; l < k; ++l)
        expected += p[i * k + l] * q[l * n + j];
      ASSERT_NEAR(c[i * n + j], expected, 1e-4) << i << ", " << j;
    }

  // A full reduction: a sequential loop in a one-thread kernel, 0-d result.
  CompileResult total = compile(dlbridge::test::kTotal, "", cudaOptions());
  ASSERT_TRUE(total) << total.error;
  std::vector<float> flat(1000, 0.5f);
  TensorView f(toDevice(flat), {kDLFloat, 32, 1}, {1000}, {}, 0, {kDLCUDA, 0});
  ASSERT_EQ(call(*total.kernel, {f.get()}, out), DLRT_OK) << ctx.error;
  EXPECT_EQ(out->dl_tensor.ndim, 0);
  std::vector<float> sum = toHost(out);
  out->deleter(out);
  EXPECT_NEAR(sum[0], 500.0f, 1e-3f);
}

} // namespace
