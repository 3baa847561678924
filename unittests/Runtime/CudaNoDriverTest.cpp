//===- CudaNoDriverTest.cpp - CUDA entry points without a driver ----------===//
//
// Points DLRT_CUDA_DRIVER at a file that does not exist before the first CUDA
// call of this process, so the test behaves the same on machines with and
// without a driver: every CUDA entry point must report DLRT_ERR_NO_CUDA_DRIVER
// with its message, the mgpu* functions must record it without crashing, and
// the CPU paths must keep working.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Runtime/dlrt_cuda.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>

namespace {

constexpr const char *kMissing = "/nonexistent/libcuda.so.1";

/// Runs before main, hence before any CUDA call of this process.
const bool kDriverOverridden = setenv("DLRT_CUDA_DRIVER", kMissing, 1) == 0;

constexpr DLDevice kCpu{kDLCPU, 0};
constexpr DLDevice kCuda{kDLCUDA, 0};

void expectNoDriverMessage() {
  std::string message = dlrt_last_error();
  EXPECT_EQ(message.rfind(
                std::string("no CUDA driver: ") + kMissing + " not found (", 0),
            0u)
      << message;
  // dlerror's text names the file and ends the parenthesis.
  EXPECT_NE(message.find(kMissing, 30), std::string::npos) << message;
  EXPECT_EQ(message.back(), ')') << message;
}

class CudaNoDriver : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(kDriverOverridden);
    (void)dlrt_cuda_take_launch_error();
  }
};

TEST_F(CudaNoDriver, NotAvailable) {
  EXPECT_EQ(dlrt_cuda_available(), 0);
  EXPECT_EQ(dlrt_cuda_available(), 0) << "stable across calls";
}

TEST_F(CudaNoDriver, DeviceCount) {
  int32_t count = 7;
  EXPECT_EQ(dlrt_cuda_device_count(&count), DLRT_ERR_NO_CUDA_DRIVER);
  EXPECT_EQ(count, 0);
  expectNoDriverMessage();
  EXPECT_EQ(dlrt_cuda_device_count(nullptr), DLRT_ERR_INVALID_ARGUMENT);
}

TEST_F(CudaNoDriver, ComputeCapability) {
  int32_t major = 0, minor = 0;
  EXPECT_EQ(dlrt_cuda_compute_capability(0, &major, &minor),
            DLRT_ERR_NO_CUDA_DRIVER);
  expectNoDriverMessage();
  EXPECT_EQ(dlrt_cuda_compute_capability(0, nullptr, &minor),
            DLRT_ERR_INVALID_ARGUMENT);
}

TEST_F(CudaNoDriver, StreamWait) {
  EXPECT_EQ(dlrt_stream_wait(kCuda, DLRT_STREAM_LEGACY, DLRT_STREAM_PER_THREAD),
            DLRT_ERR_NO_CUDA_DRIVER);
  expectNoDriverMessage();
  // Even the same-stream no-op reports that CUDA cannot be used.
  EXPECT_EQ(dlrt_stream_wait(kCuda, nullptr, nullptr), DLRT_ERR_NO_CUDA_DRIVER);
  EXPECT_EQ(dlrt_stream_wait(DLDevice{kDLCUDAManaged, 1}, nullptr, nullptr),
            DLRT_ERR_NO_CUDA_DRIVER);
}

void countCall(void *arg) { ++*static_cast<std::atomic<int> *>(arg); }

TEST_F(CudaNoDriver, DeferReleaseKeepsOwnership) {
  std::atomic<int> calls{0};
  EXPECT_EQ(dlrt_defer_release(kCuda, DLRT_STREAM_LEGACY, countCall, &calls),
            DLRT_ERR_NO_CUDA_DRIVER);
  expectNoDriverMessage();
  EXPECT_EQ(dlrt_defer_release(kCuda, DLRT_STREAM_NO_SYNC, countCall, &calls),
            DLRT_ERR_NO_CUDA_DRIVER);
  EXPECT_EQ(calls.load(), 0) << "on failure the caller keeps ownership";
}

TEST_F(CudaNoDriver, Alloc) {
  void *ptr = &ptr;
  EXPECT_EQ(dlrt_cuda_alloc(kCuda, 256, nullptr, &ptr),
            DLRT_ERR_NO_CUDA_DRIVER);
  EXPECT_EQ(ptr, nullptr);
  expectNoDriverMessage();
  ptr = &ptr;
  EXPECT_EQ(dlrt_cuda_alloc(kCuda, 0, nullptr, &ptr), DLRT_ERR_NO_CUDA_DRIVER);
  EXPECT_EQ(ptr, nullptr);
  EXPECT_EQ(dlrt_cuda_alloc(kCuda, 256, nullptr, nullptr),
            DLRT_ERR_INVALID_ARGUMENT);
  // A CPU device is refused before the driver is even considered.
  EXPECT_EQ(dlrt_cuda_alloc(kCpu, 256, nullptr, &ptr), DLRT_ERR_DEVICE);
}

/// Calls `fn` and checks that it recorded DLRT_ERR_NO_CUDA_DRIVER.
template <typename Fn> void expectRecorded(const char *what, Fn fn) {
  SCOPED_TRACE(what);
  fn();
  EXPECT_EQ(dlrt_cuda_take_launch_error(), DLRT_ERR_NO_CUDA_DRIVER);
  expectNoDriverMessage();
  EXPECT_EQ(dlrt_cuda_take_launch_error(), DLRT_OK) << "taking clears it";
}

TEST_F(CudaNoDriver, MgpuCallsRecordTheErrorWithoutCrashing) {
  static const char ptx[] = ".version 7.0\n.target sm_75\n";
  int fakeHandle = 0;
  void *fake = &fakeHandle; // Never dereferenced: the driver check is first.
  expectRecorded("mgpuModuleLoad", [&] {
    EXPECT_EQ(mgpuModuleLoad(const_cast<char *>(ptx), sizeof(ptx)), nullptr);
  });
  expectRecorded("mgpuModuleLoadJIT", [&] {
    EXPECT_EQ(mgpuModuleLoadJIT(const_cast<char *>(ptx), 2), nullptr);
  });
  expectRecorded("mgpuModuleGetFunction", [&] {
    EXPECT_EQ(mgpuModuleGetFunction(fake, "kernel"), nullptr);
  });
  expectRecorded("mgpuModuleUnload", [&] { mgpuModuleUnload(fake); });
  expectRecorded("mgpuLaunchKernel", [&] {
    mgpuLaunchKernel(fake, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  });
  expectRecorded("mgpuStreamCreate",
                 [&] { EXPECT_EQ(mgpuStreamCreate(), nullptr); });
  expectRecorded("mgpuStreamSynchronize", [&] { mgpuStreamSynchronize(fake); });
  expectRecorded("mgpuStreamDestroy", [&] { mgpuStreamDestroy(fake); });
  expectRecorded("dlrt_call_synchronize", [&] { dlrt_call_synchronize(); });
  expectRecorded("mgpuStreamWaitEvent",
                 [&] { mgpuStreamWaitEvent(nullptr, fake); });
  expectRecorded("mgpuEventCreate",
                 [&] { EXPECT_EQ(mgpuEventCreate(), nullptr); });
  expectRecorded("mgpuEventDestroy", [&] { mgpuEventDestroy(fake); });
  expectRecorded("mgpuEventSynchronize", [&] { mgpuEventSynchronize(fake); });
  expectRecorded("mgpuEventRecord", [&] { mgpuEventRecord(fake, nullptr); });
  expectRecorded("mgpuMemAlloc",
                 [&] { EXPECT_EQ(mgpuMemAlloc(64, nullptr, false), nullptr); });
  expectRecorded("mgpuMemAlloc(host shared)",
                 [&] { EXPECT_EQ(mgpuMemAlloc(64, nullptr, true), nullptr); });
  expectRecorded("mgpuMemFree", [&] { mgpuMemFree(fake, nullptr); });
  expectRecorded("mgpuMemcpy", [&] {
    char a[4], b[4];
    mgpuMemcpy(a, b, sizeof(a), nullptr);
  });
  expectRecorded("mgpuMemset32", [&] { mgpuMemset32(fake, 1, 1, nullptr); });
  expectRecorded("mgpuMemset16", [&] { mgpuMemset16(fake, 1, 1, nullptr); });
  // Pure per-thread state: no driver involved, nothing recorded.
  mgpuSetDefaultDevice(1);
  mgpuSetDefaultDevice(0);
  EXPECT_EQ(dlrt_cuda_take_launch_error(), DLRT_OK);
}

TEST_F(CudaNoDriver, FirstFailureIsKeptWithItsMessage) {
  EXPECT_EQ(mgpuStreamCreate(), nullptr);
  std::string first = dlrt_last_error();
  // Another runtime failure overwrites the last error ...
  void *stream = nullptr;
  EXPECT_EQ(dlrt_stream_from_dlpack(kCuda, 0, 1, &stream), DLRT_ERR_STREAM);
  EXPECT_STRNE(dlrt_last_error(), first.c_str());
  // ... and a later mgpu* failure brings the first one's message back.
  mgpuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  EXPECT_EQ(std::string(dlrt_last_error()), first);
  EXPECT_EQ(dlrt_cuda_take_launch_error(), DLRT_ERR_NO_CUDA_DRIVER);
  EXPECT_EQ(dlrt_cuda_take_launch_error(), DLRT_OK);
}

TEST_F(CudaNoDriver, LaunchErrorsArePerThread) {
  EXPECT_EQ(mgpuEventCreate(), nullptr);
  int32_t other = -1;
  std::thread([&] { other = dlrt_cuda_take_launch_error(); }).join();
  EXPECT_EQ(other, DLRT_OK);
  EXPECT_EQ(dlrt_cuda_take_launch_error(), DLRT_ERR_NO_CUDA_DRIVER);
}

TEST_F(CudaNoDriver, CallEndReportsTheCallsLaunchFailure) {
  // A failure before the call (a module constructor, say) is not the call's.
  EXPECT_EQ(mgpuEventCreate(), nullptr);
  dlrt_call_ctx ctx;
  int stream;
  dlrt_call_ctx_init(&ctx, kCuda, &stream);
  dlrt_call_begin(&ctx);
  EXPECT_EQ(dlrt_call_stream(), &stream);
  dlrt_call_end(&ctx);
  EXPECT_EQ(dlrt_status(&ctx), DLRT_OK);
  EXPECT_EQ(dlrt_call_stream(), nullptr);

  // One during the call is recorded in the context at its end.
  dlrt_call_begin(&ctx);
  EXPECT_EQ(mgpuMemAlloc(16, dlrt_call_stream(), false), nullptr);
  EXPECT_EQ(dlrt_status(&ctx), DLRT_OK);
  dlrt_call_end(&ctx);
  EXPECT_EQ(dlrt_status(&ctx), DLRT_ERR_NO_CUDA_DRIVER);
  EXPECT_EQ(std::string(ctx.error).rfind("no CUDA driver: ", 0), 0u)
      << ctx.error;
  EXPECT_EQ(dlrt_cuda_take_launch_error(), DLRT_OK);
}

TEST_F(CudaNoDriver, CallSynchronizeFailsTheCall) {
  // What an entry whose kernels have checks calls before reading them back:
  // without a driver the call ends with NO_CUDA_DRIVER, not with a crash.
  dlrt_call_ctx ctx;
  int stream;
  dlrt_call_ctx_init(&ctx, kCuda, &stream);
  dlrt_call_begin(&ctx);
  dlrt_call_synchronize();
  dlrt_call_end(&ctx);
  EXPECT_EQ(dlrt_status(&ctx), DLRT_ERR_NO_CUDA_DRIVER);
  EXPECT_EQ(dlrt_cuda_take_launch_error(), DLRT_OK);
}

TEST_F(CudaNoDriver, CpuKeepsWorking) {
  void *stream = &stream;
  EXPECT_EQ(dlrt_stream_from_dlpack(kCpu, 0, 0, &stream), DLRT_OK);
  EXPECT_EQ(stream, nullptr);
  EXPECT_EQ(dlrt_stream_from_dlpack(kCuda, 2, 1, &stream), DLRT_OK)
      << "stream values are pure and need no driver";
  EXPECT_EQ(stream, DLRT_STREAM_PER_THREAD);
  EXPECT_EQ(dlrt_stream_wait(kCpu, nullptr, nullptr), DLRT_OK);
  std::atomic<int> calls{0};
  EXPECT_EQ(dlrt_defer_release(kCpu, nullptr, countCall, &calls), DLRT_OK);
  EXPECT_EQ(calls.load(), 1);
  void *host = dlrt_host_alloc(1000);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(host) % 64, 0u);
  dlrt_host_free(host);
}

} // namespace
