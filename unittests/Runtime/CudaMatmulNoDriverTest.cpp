//===- CudaMatmulNoDriverTest.cpp - dlrt_cuda_matmul without a driver -----===//
//
// Loads the toolkit's libcublasLt (DLRT_TEST_CUBLASLT, found at configure
// time) with a driver that does not exist: the product gets past loading
// cuBLASLt, so every function libdlrt resolves from it is there, and fails
// with the driver's error, in the call's context too. Skips when the build
// found no libcublasLt.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Runtime/dlrt_cuda.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

constexpr const char *kMissingDriver = "/nonexistent/libcuda.so.1";

#ifdef DLRT_TEST_CUBLASLT
/// Run before main, hence before any CUDA call of this process.
const bool kOverridden = setenv("DLRT_CUDA_DRIVER", kMissingDriver, 1) == 0 &&
                         setenv("DLRT_CUBLASLT", DLRT_TEST_CUBLASLT, 1) == 0;
#endif

TEST(CudaMatmulNoDriver, ReportsTheDriver) {
#ifndef DLRT_TEST_CUBLASLT
  GTEST_SKIP() << "no libcublasLt found by the build (CUDA toolkit)";
#else
  ASSERT_TRUE(kOverridden);
  float data[64] = {};
  dlrt_call_ctx ctx;
  dlrt_call_ctx_init(&ctx, DLDevice{kDLCUDA, 0}, nullptr);
  dlrt_call_begin(&ctx);
  // 4x4 row-major f16 products into f32.
  EXPECT_EQ(dlrt_cuda_matmul(nullptr, DLRT_CUDA_MATMUL_F16,
                             DLRT_CUDA_MATMUL_F32, 0, 1, 4, 4, 4, data, 0, 4, 1,
                             data + 16, 0, 4, 1, data + 32, 0, 4, 1),
            DLRT_ERR_NO_CUDA_DRIVER)
      << dlrt_last_error();
  dlrt_call_end(&ctx);
  EXPECT_EQ(ctx.status, DLRT_ERR_NO_CUDA_DRIVER);
  EXPECT_EQ(std::string(ctx.error).rfind(
                std::string("no CUDA driver: ") + kMissingDriver, 0),
            0u)
      << ctx.error;
#endif
}

} // namespace
