//===- CudaStubDriverTest.cpp - Loading the toolkit's stub libcuda --------===//
//
// Points DLRT_CUDA_DRIVER at the CUDA toolkit's stub libcuda.so (no GPU
// needed): loading it resolves every driver entry point libdlrt uses, so a
// missing or misspelt symbol fails here, and its cuInit's
// CUDA_ERROR_STUB_LIBRARY must read as "no CUDA driver". Skipped when the
// build found no toolkit.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Runtime/dlrt_cuda.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <unistd.h>

namespace {

#ifdef DLRT_TEST_CUDA_STUB
constexpr const char *kStub = DLRT_TEST_CUDA_STUB;
#else
constexpr const char *kStub = "";
#endif

bool stubPresent() { return *kStub && access(kStub, R_OK) == 0; }

/// Runs before main, hence before any CUDA call of this process.
const bool kOverridden =
    stubPresent() && setenv("DLRT_CUDA_DRIVER", kStub, 1) == 0;

TEST(CudaStubDriver, ResolvesEverySymbolAndReportsTheStub) {
  if (!stubPresent())
    GTEST_SKIP() << "no CUDA toolkit stub libcuda.so found at configure time ("
                 << (*kStub ? kStub : "none") << ")";
  ASSERT_TRUE(kOverridden);
  int32_t count = 5;
  EXPECT_EQ(dlrt_cuda_device_count(&count), DLRT_ERR_NO_CUDA_DRIVER);
  EXPECT_EQ(count, 0);
  std::string message = dlrt_last_error();
  EXPECT_EQ(message, std::string("no CUDA driver: ") + kStub +
                         " is the CUDA toolkit's stub library (cuInit "
                         "returned CUDA_ERROR_STUB_LIBRARY)")
      << "a message about a missing symbol means the loader asks for a name "
         "libcuda does not export";
  EXPECT_EQ(dlrt_cuda_available(), 0);
  void *ptr = &ptr;
  EXPECT_EQ(dlrt_cuda_alloc(DLDevice{kDLCUDA, 0}, 16, nullptr, &ptr),
            DLRT_ERR_NO_CUDA_DRIVER);
  EXPECT_EQ(ptr, nullptr);
  EXPECT_EQ(mgpuStreamCreate(), nullptr);
  EXPECT_EQ(dlrt_cuda_take_launch_error(), DLRT_ERR_NO_CUDA_DRIVER);
}

} // namespace
