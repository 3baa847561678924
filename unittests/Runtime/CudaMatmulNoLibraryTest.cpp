//===- CudaMatmulNoLibraryTest.cpp - dlrt_cuda_matmul without cuBLASLt ----===//
//
// Points DLRT_CUBLASLT at a file that does not exist before the first call
// of this process, so the test behaves the same on every machine: arguments
// and layouts are judged before cuBLASLt loads (invalid ones fail, those
// cuBLASLt cannot read are declined with nothing recorded), and a product
// that needs the library fails with a message naming it, in the call's
// context too.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Runtime/dlrt_cuda.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

constexpr const char *kMissing = "/nonexistent/libcublasLt.so.13";

/// Runs before main, hence before any product of this process.
const bool kLibraryOverridden = setenv("DLRT_CUBLASLT", kMissing, 1) == 0;

/// One operand of a product: any non-NULL address and its strides.
struct Operand {
  const void *data;
  int64_t batchStride, rowStride, colStride;
};

/// A non-NULL address the runtime never dereferences in these tests.
float dummy[1];

/// Row-major m x n with no padding.
Operand rowMajor(int64_t rows, int64_t cols) {
  return {dummy, rows * cols, cols, 1};
}

int32_t matmul(int32_t inputType, int32_t outputType, int32_t flags,
               int64_t batch, int64_t m, int64_t n, int64_t k, Operand a,
               Operand b, Operand c) {
  return dlrt_cuda_matmul(nullptr, inputType, outputType, flags, batch, m, n, k,
                          a.data, a.batchStride, a.rowStride, a.colStride,
                          b.data, b.batchStride, b.rowStride, b.colStride,
                          const_cast<void *>(c.data), c.batchStride,
                          c.rowStride, c.colStride);
}

/// A 4x5 * 5x6 f32 product with the given operands.
int32_t product(Operand a, Operand b, Operand c, int64_t batch = 1) {
  return matmul(DLRT_CUDA_MATMUL_F32, DLRT_CUDA_MATMUL_F32, 0, batch, 4, 6, 5,
                a, b, c);
}

class CudaMatmulNoLibrary : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(kLibraryOverridden);
    // A marker: declined products must leave the last error alone.
    dlrt_set_error(nullptr, DLRT_ERR_INVALID_ARGUMENT, "marker");
  }

  static std::string lastError() { return dlrt_last_error(); }
};

TEST_F(CudaMatmulNoLibrary, InvalidArguments) {
  Operand x = rowMajor(8, 8);
  EXPECT_EQ(matmul(DLRT_CUDA_MATMUL_F32, DLRT_CUDA_MATMUL_F32, 0, 1, -1, 2, 2,
                   x, x, x),
            DLRT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("negative size (batch 1, m -1, n 2, k 2)"),
            std::string::npos)
      << lastError();
  EXPECT_EQ(matmul(DLRT_CUDA_MATMUL_F32, DLRT_CUDA_MATMUL_F32, 0, -3, 2, 2, 2,
                   x, x, x),
            DLRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(matmul(7, DLRT_CUDA_MATMUL_F32, 0, 1, 2, 2, 2, x, x, x),
            DLRT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("unknown element type (input 7, output 2)"),
            std::string::npos)
      << lastError();
  EXPECT_EQ(matmul(DLRT_CUDA_MATMUL_F32, -1, 0, 1, 2, 2, 2, x, x, x),
            DLRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(matmul(DLRT_CUDA_MATMUL_F32, DLRT_CUDA_MATMUL_F32, 4, 1, 2, 2, 2, x,
                   x, x),
            DLRT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("unknown flags 0x4"), std::string::npos)
      << lastError();
  Operand null{nullptr, 0, 2, 1};
  EXPECT_EQ(product(null, x, x), DLRT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("NULL operand"), std::string::npos) << lastError();
  EXPECT_EQ(product(x, x, null), DLRT_ERR_INVALID_ARGUMENT);
}

TEST_F(CudaMatmulNoLibrary, UnsupportedTypePairs) {
  Operand x = rowMajor(8, 8);
  // Narrowing outputs and f32 inputs into f64 have no cuBLASLt product.
  const int32_t pairs[][2] = {{DLRT_CUDA_MATMUL_F32, DLRT_CUDA_MATMUL_F16},
                              {DLRT_CUDA_MATMUL_F16, DLRT_CUDA_MATMUL_BF16},
                              {DLRT_CUDA_MATMUL_F32, DLRT_CUDA_MATMUL_F64},
                              {DLRT_CUDA_MATMUL_F16, DLRT_CUDA_MATMUL_F64}};
  for (const auto &pair : pairs) {
    EXPECT_EQ(matmul(pair[0], pair[1], 0, 1, 2, 2, 2, x, x, x),
              DLRT_ERR_UNSUPPORTED)
        << pair[0] << " -> " << pair[1];
    EXPECT_NE(lastError().find("no cuBLASLt product"), std::string::npos)
        << lastError();
  }
}

TEST_F(CudaMatmulNoLibrary, EmptyProductsNeedNothing) {
  Operand null{nullptr, 0, 0, 0};
  for (int64_t batch : {0, 2})
    for (int64_t m : {0, 3})
      for (int64_t n : {0, 3})
        if (batch == 0 || m == 0 || n == 0) {
          EXPECT_EQ(matmul(DLRT_CUDA_MATMUL_F16, DLRT_CUDA_MATMUL_F16, 0, batch,
                           m, n, 4, null, null, null),
                    DLRT_OK)
              << batch << " " << m << " " << n;
        }
  // k = 0 accumulating adds nothing.
  Operand c = rowMajor(3, 3);
  EXPECT_EQ(matmul(DLRT_CUDA_MATMUL_F32, DLRT_CUDA_MATMUL_F32,
                   DLRT_CUDA_MATMUL_ACCUMULATE, 1, 3, 3, 0, null, null, c),
            DLRT_OK);
  EXPECT_EQ(lastError(), "marker");
}

TEST_F(CudaMatmulNoLibrary, DeclinesLayoutsCuBlasLtCannotRead) {
  Operand a = rowMajor(4, 5), b = rowMajor(5, 6), c = rowMajor(4, 6);
  // Unit stride along neither dimension (every other column of a view).
  EXPECT_EQ(product({dummy, 0, 10, 2}, b, c), DLRT_CUDA_MATMUL_DECLINED);
  EXPECT_EQ(product(a, b, {dummy, 0, 12, 2}), DLRT_CUDA_MATMUL_DECLINED);
  // Negative and zero (broadcast) strides inside a matrix.
  EXPECT_EQ(product(a, {dummy, 0, -6, 1}, c), DLRT_CUDA_MATMUL_DECLINED);
  EXPECT_EQ(product(a, {dummy, 0, 0, 1}, c), DLRT_CUDA_MATMUL_DECLINED);
  EXPECT_EQ(product(a, b, {dummy, 0, 6, -1}), DLRT_CUDA_MATMUL_DECLINED);
  // A leading dimension smaller than the matrix (overlapping rows).
  EXPECT_EQ(product({dummy, 0, 3, 1}, b, c), DLRT_CUDA_MATMUL_DECLINED);
  // Batches: negative strides, and a C shared by every batch.
  Operand ba = rowMajor(4, 5), bb = rowMajor(5, 6), bc = rowMajor(4, 6);
  ba.batchStride = -20;
  EXPECT_EQ(product(ba, bb, bc, 3), DLRT_CUDA_MATMUL_DECLINED);
  ba.batchStride = 20;
  bc.batchStride = 0;
  EXPECT_EQ(product(ba, bb, bc, 3), DLRT_CUDA_MATMUL_DECLINED);
  // k = 0 without accumulating: C must be zeroed, which the caller's kernel
  // does.
  EXPECT_EQ(matmul(DLRT_CUDA_MATMUL_F32, DLRT_CUDA_MATMUL_F32, 0, 1, 4, 6, 0, a,
                   b, c),
            DLRT_CUDA_MATMUL_DECLINED);
  EXPECT_EQ(lastError(), "marker") << "declining records nothing";
}

TEST_F(CudaMatmulNoLibrary, MissingLibraryIsNamed) {
  Operand a = rowMajor(4, 5), b = rowMajor(5, 6), c = rowMajor(4, 6);
  // Row-major, column-major (transposed views), padded and batched with a
  // broadcast A: all readable, so each needs the library.
  Operand colA{dummy, 0, 1, 4}, paddedC{dummy, 0, 8, 1};
  Operand broadcastA{dummy, 0, 5, 1}, batchedB{dummy, 30, 6, 1},
      batchedC{dummy, 24, 6, 1};
  for (int32_t status : {product(a, b, c), product(colA, b, paddedC),
                         product(broadcastA, batchedB, batchedC, 2)}) {
    EXPECT_EQ(status, DLRT_ERR_UNSUPPORTED);
    EXPECT_EQ(lastError().rfind(
                  std::string("no cuBLASLt: ") + kMissing + " not found (", 0),
              0u)
        << lastError();
  }
}

TEST_F(CudaMatmulNoLibrary, FailureIsRecordedInTheCall) {
  dlrt_call_ctx ctx;
  dlrt_call_ctx_init(&ctx, DLDevice{kDLCUDA, 0}, nullptr);
  dlrt_call_begin(&ctx);
  Operand a = rowMajor(4, 5), b = rowMajor(5, 6), c = rowMajor(4, 6);
  EXPECT_EQ(product({dummy, 0, 10, 2}, b, c), DLRT_CUDA_MATMUL_DECLINED);
  EXPECT_EQ(ctx.status, DLRT_OK) << "declining is no failure";
  EXPECT_EQ(product(a, b, c), DLRT_ERR_UNSUPPORTED);
  dlrt_call_end(&ctx);
  EXPECT_EQ(ctx.status, DLRT_ERR_UNSUPPORTED);
  EXPECT_EQ(std::string(ctx.error).rfind("no cuBLASLt: ", 0), 0u) << ctx.error;
}

} // namespace
