//===- CudaMatmulDeviceTest.cpp - dlrt_cuda_matmul on a real GPU ----------===//
//
// Products through cuBLASLt on a borrowed stream against a host reference,
// for every supported type pair and every layout cuBLASLt reads (row- and
// column-major operands with padded leading dimensions, batches, broadcast
// batches, accumulation). Skips with the reason when no driver, no GPU or
// no cuBLASLt is present.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Runtime/dlrt_cuda.h"

#include "TestDriver.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr DLDevice kGpu{kDLCUDA, 0};

using dlbridge::testing::testDriver;
using dlbridge::testing::TestDriver;

//===----------------------------------------------------------------------===//
// Host encodings of the element types
//===----------------------------------------------------------------------===//

int64_t typeBytes(int32_t type) {
  return type == DLRT_CUDA_MATMUL_F64   ? 8
         : type == DLRT_CUDA_MATMUL_F32 ? 4
                                        : 2;
}

uint32_t floatBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

float bitsFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// f16 of a float that is exactly representable (the inputs here are).
uint16_t toHalf(float f) {
  if (f == 0)
    return 0;
  uint32_t bits = floatBits(f);
  uint32_t sign = (bits >> 16) & 0x8000;
  int exponent = int((bits >> 23) & 0xff) - 127 + 15;
  return uint16_t(sign | (uint32_t(exponent) << 10) | ((bits >> 13) & 0x3ff));
}

float fromHalf(uint16_t h) {
  float sign = (h & 0x8000) ? -1.0f : 1.0f;
  int exponent = (h >> 10) & 0x1f;
  int mantissa = h & 0x3ff;
  if (exponent == 0)
    return sign * std::ldexp(float(mantissa), -24);
  if (exponent == 31)
    return mantissa ? NAN : sign * INFINITY;
  return sign * std::ldexp(float(mantissa | 0x400), exponent - 25);
}

void store(int32_t type, std::vector<char> &bytes, int64_t index, double v) {
  char *p = bytes.data() + index * typeBytes(type);
  if (type == DLRT_CUDA_MATMUL_F64) {
    std::memcpy(p, &v, 8);
  } else if (type == DLRT_CUDA_MATMUL_F32) {
    float f = float(v);
    std::memcpy(p, &f, 4);
  } else {
    uint16_t h = type == DLRT_CUDA_MATMUL_F16
                     ? toHalf(float(v))
                     : uint16_t(floatBits(float(v)) >> 16);
    std::memcpy(p, &h, 2);
  }
}

double load(int32_t type, const std::vector<char> &bytes, int64_t index) {
  const char *p = bytes.data() + index * typeBytes(type);
  if (type == DLRT_CUDA_MATMUL_F64) {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  if (type == DLRT_CUDA_MATMUL_F32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, p, 2);
  return type == DLRT_CUDA_MATMUL_F16 ? fromHalf(h)
                                      : bitsFloat(uint32_t(h) << 16);
}

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

/// A batch of rows x cols matrices, row- or column-major with `padding`
/// elements after each row (column), in host and device memory.
struct Matrix {
  int32_t type;
  int64_t batch, rows, cols;
  bool colMajor;
  int64_t batchStride, rowStride, colStride;
  std::vector<char> host;
  void *device = nullptr;
  /// The stream it was uploaded on, which frees it.
  void *stream = nullptr;

  Matrix(int32_t type, int64_t batch, int64_t rows, int64_t cols, bool colMajor,
         int64_t padding, bool broadcast = false)
      : type(type), batch(batch), rows(rows), cols(cols), colMajor(colMajor) {
    rowStride = colMajor ? 1 : cols + padding;
    colStride = colMajor ? rows + padding : 1;
    int64_t one = colMajor ? cols * (rows + padding) : rows * (cols + padding);
    batchStride = broadcast ? 0 : one;
    host.assign((broadcast ? 1 : batch) * one * typeBytes(type), 0);
  }
  Matrix(const Matrix &) = delete;
  Matrix &operator=(const Matrix &) = delete;
  ~Matrix() { mgpuMemFree(device, stream); }

  int64_t index(int64_t b, int64_t i, int64_t j) const {
    return b * batchStride + i * rowStride + j * colStride;
  }
  /// Small multiples of 1/4, exact in every type, and a pattern in the
  /// padding.
  void fill(int seed) {
    for (int64_t e = 0; e < int64_t(host.size()) / typeBytes(type); ++e)
      store(type, host, e, -7.0);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j)
          store(type, host, index(b, i, j),
                double((b * 7 + i * 5 + j * 3 + seed) % 17 - 8) / 4);
  }
  void upload(void *on) {
    stream = on;
    ASSERT_EQ(dlrt_cuda_alloc(kGpu, host.size(), stream, &device), DLRT_OK)
        << dlrt_last_error();
    mgpuMemcpy(device, host.data(), host.size(), stream);
  }
  std::vector<char> download() const {
    std::vector<char> result(host.size());
    mgpuMemcpy(result.data(), device, host.size(), stream);
    EXPECT_EQ(testDriver().StreamSynchronize(stream), 0);
    return result;
  }
};

int32_t multiply(void *stream, int32_t inputType, int32_t outputType,
                 int32_t flags, int64_t batch, const Matrix &a, const Matrix &b,
                 const Matrix &c) {
  return dlrt_cuda_matmul(stream, inputType, outputType, flags, batch, c.rows,
                          c.cols, a.cols, a.device, a.batchStride, a.rowStride,
                          a.colStride, b.device, b.batchStride, b.rowStride,
                          b.colStride, c.device, c.batchStride, c.rowStride,
                          c.colStride);
}

/// Checks `got` (C after the product) against A B (+ C before) in double,
/// within `tolerance` of the sum of |a||b| of each element; the padding must
/// be untouched.
void expectProduct(const Matrix &a, const Matrix &b, const Matrix &c,
                   const std::vector<char> &got, bool accumulate,
                   double tolerance, const std::string &what) {
  int failures = 0;
  for (int64_t e = 0; e < int64_t(got.size()) / typeBytes(c.type); ++e) {
    int64_t rest = e % c.batchStride;
    int64_t i = c.colMajor ? rest % c.colStride : rest / c.rowStride;
    int64_t j = c.colMajor ? rest / c.colStride : rest % c.rowStride;
    if (i >= c.rows || j >= c.cols) {
      ASSERT_EQ(load(c.type, got, e), -7.0) << what << ": padding written";
    }
  }
  for (int64_t n = 0; n < c.batch; ++n)
    for (int64_t i = 0; i < c.rows; ++i)
      for (int64_t j = 0; j < c.cols; ++j) {
        double sum = accumulate ? load(c.type, c.host, c.index(n, i, j)) : 0;
        double magnitude = std::fabs(sum);
        for (int64_t p = 0; p < a.cols; ++p) {
          double term = load(a.type, a.host, a.index(n, i, p)) *
                        load(b.type, b.host, b.index(n, p, j));
          sum += term;
          magnitude += std::fabs(term);
        }
        double value = load(c.type, got, c.index(n, i, j));
        if (std::fabs(value - sum) > tolerance * magnitude + 1e-12 &&
            ++failures <= 3)
          ADD_FAILURE() << what << ": C[" << n << "," << i << "," << j
                        << "] = " << value << ", expected " << sum;
      }
}

class CudaMatmulDevice : public ::testing::Test {
protected:
  void SetUp() override {
    int32_t count = 0;
    if (dlrt_cuda_device_count(&count) != DLRT_OK)
      GTEST_SKIP() << dlrt_last_error(); // "no CUDA driver: ..."
    if (count == 0 || !dlrt_cuda_available())
      GTEST_SKIP() << "no CUDA device: the driver reports 0 devices";
    mgpuSetDefaultDevice(0);
    (void)dlrt_cuda_take_launch_error();
    // Makes device 0's primary context current, for the driver calls below.
    int32_t major = 0, minor = 0;
    ASSERT_EQ(dlrt_cuda_compute_capability(0, &major, &minor), DLRT_OK)
        << dlrt_last_error();
    const TestDriver &d = testDriver();
    ASSERT_TRUE(d.StreamCreate && d.StreamDestroy && d.StreamSynchronize);
    ASSERT_EQ(d.StreamCreate(&stream, /*CU_STREAM_NON_BLOCKING=*/1), 0);
    // A product that needs the library, to skip without it.
    Matrix a(DLRT_CUDA_MATMUL_F32, 1, 2, 2, false, 0);
    Matrix c(DLRT_CUDA_MATMUL_F32, 1, 2, 2, false, 0);
    a.upload(stream), c.upload(stream);
    int32_t status = multiply(stream, DLRT_CUDA_MATMUL_F32,
                              DLRT_CUDA_MATMUL_F32, 0, 1, a, a, c);
    if (status == DLRT_ERR_UNSUPPORTED &&
        std::string(dlrt_last_error()).rfind("no cuBLASLt", 0) == 0)
      GTEST_SKIP() << dlrt_last_error();
    ASSERT_EQ(status, DLRT_OK) << dlrt_last_error();
  }

  void TearDown() override {
    if (stream) {
      EXPECT_EQ(testDriver().StreamSynchronize(stream), 0);
      EXPECT_EQ(testDriver().StreamDestroy(stream), 0);
    }
    EXPECT_EQ(dlrt_cuda_take_launch_error(), DLRT_OK) << dlrt_last_error();
  }

  void *stream = nullptr;
};

struct TypeCase {
  int32_t input, output, flags;
  double tolerance;
  const char *name;
};

/// f16/bf16 outputs round once (2^-11 and 2^-8 relative), f32 accumulates
/// exactly enough for 1e-5, TF32 rounds inputs to 10-bit mantissas (the
/// inputs here are exact in TF32, so only accumulation order remains).
constexpr TypeCase kTypeCases[] = {
    {DLRT_CUDA_MATMUL_F16, DLRT_CUDA_MATMUL_F16, 0, 2e-3, "f16"},
    {DLRT_CUDA_MATMUL_F16, DLRT_CUDA_MATMUL_F32, 0, 1e-5, "f16->f32"},
    {DLRT_CUDA_MATMUL_BF16, DLRT_CUDA_MATMUL_BF16, 0, 1e-2, "bf16"},
    {DLRT_CUDA_MATMUL_BF16, DLRT_CUDA_MATMUL_F32, 0, 1e-5, "bf16->f32"},
    {DLRT_CUDA_MATMUL_F32, DLRT_CUDA_MATMUL_F32, 0, 1e-6, "f32"},
    {DLRT_CUDA_MATMUL_F32, DLRT_CUDA_MATMUL_F32, DLRT_CUDA_MATMUL_ALLOW_TF32,
     1e-3, "f32 tf32"},
    {DLRT_CUDA_MATMUL_F64, DLRT_CUDA_MATMUL_F64, 0, 1e-12, "f64"},
};

TEST_F(CudaMatmulDevice, EveryTypeAndLayout) {
  struct Size {
    int64_t m, n, k;
  };
  for (const TypeCase &t : kTypeCases)
    for (Size s : {Size{5, 7, 9}, Size{64, 48, 40}})
      for (int64_t batch : {1, 3})
        for (int layout = 0; layout < 8; ++layout) {
          bool colA = layout & 1, colB = layout & 2, colC = layout & 4;
          bool accumulate = layout == 3 || layout == 6;
          std::string what =
              std::string(t.name) + " " + std::to_string(s.m) + "x" +
              std::to_string(s.n) + "x" + std::to_string(s.k) + " batch " +
              std::to_string(batch) + " A " + (colA ? "col" : "row") + " B " +
              (colB ? "col" : "row") + " C " + (colC ? "col" : "row") +
              (accumulate ? " accumulating" : "");
          Matrix a(t.input, batch, s.m, s.k, colA, layout % 3);
          Matrix b(t.input, batch, s.k, s.n, colB, 0);
          Matrix c(t.output, batch, s.m, s.n, colC, 2);
          a.fill(1), b.fill(2), c.fill(3);
          a.upload(stream), b.upload(stream), c.upload(stream);
          int32_t flags =
              t.flags | (accumulate ? DLRT_CUDA_MATMUL_ACCUMULATE : 0);
          ASSERT_EQ(multiply(stream, t.input, t.output, flags, batch, a, b, c),
                    DLRT_OK)
              << what << ": " << dlrt_last_error();
          expectProduct(a, b, c, c.download(), accumulate, t.tolerance, what);
        }
}

TEST_F(CudaMatmulDevice, BroadcastBatchesAndVectors) {
  // One A for every batch (batch stride 0).
  Matrix a(DLRT_CUDA_MATMUL_F32, 4, 6, 5, false, 0, /*broadcast=*/true);
  Matrix b(DLRT_CUDA_MATMUL_F32, 4, 5, 3, true, 1);
  Matrix c(DLRT_CUDA_MATMUL_F32, 4, 6, 3, false, 0);
  a.fill(1), b.fill(2), c.fill(3);
  a.upload(stream), b.upload(stream), c.upload(stream);
  ASSERT_EQ(multiply(stream, DLRT_CUDA_MATMUL_F32, DLRT_CUDA_MATMUL_F32, 0, 4,
                     a, b, c),
            DLRT_OK)
      << dlrt_last_error();
  expectProduct(a, b, c, c.download(), false, 1e-6, "broadcast A");

  // A matvec: B and C single columns.
  Matrix m(DLRT_CUDA_MATMUL_F16, 1, 33, 17, false, 0);
  Matrix x(DLRT_CUDA_MATMUL_F16, 1, 17, 1, false, 0);
  Matrix y(DLRT_CUDA_MATMUL_F32, 1, 33, 1, false, 0);
  m.fill(4), x.fill(5), y.fill(6);
  m.upload(stream), x.upload(stream), y.upload(stream);
  ASSERT_EQ(multiply(stream, DLRT_CUDA_MATMUL_F16, DLRT_CUDA_MATMUL_F32, 0, 1,
                     m, x, y),
            DLRT_OK)
      << dlrt_last_error();
  expectProduct(m, x, y, y.download(), false, 1e-5, "matvec");
}

TEST_F(CudaMatmulDevice, RecordsNothingInTheCallOnSuccess) {
  Matrix a(DLRT_CUDA_MATMUL_BF16, 2, 16, 16, false, 0);
  a.fill(1);
  a.upload(stream);
  Matrix c(DLRT_CUDA_MATMUL_BF16, 2, 16, 16, false, 0);
  c.upload(stream);
  dlrt_call_ctx ctx;
  dlrt_call_ctx_init(&ctx, kGpu, stream);
  dlrt_call_begin(&ctx);
  EXPECT_EQ(multiply(dlrt_call_stream(), DLRT_CUDA_MATMUL_BF16,
                     DLRT_CUDA_MATMUL_BF16, 0, 2, a, a, c),
            DLRT_OK)
      << dlrt_last_error();
  dlrt_call_end(&ctx);
  EXPECT_EQ(ctx.status, DLRT_OK) << ctx.error;
  expectProduct(a, a, c, c.download(), false, 1e-2, "in a call");
}

} // namespace
