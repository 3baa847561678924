//===- CudaDeviceTest.cpp - CUDA paths on a real GPU ----------------------===//
//
// Allocation, stream ordering, deferred release after an event, and kernel
// launches through the mgpu* ABI on a borrowed stream. Every test skips with
// the reason when no driver or no GPU is present. Borrowed streams are made
// with the driver directly (dlopen'ed here too), as a framework would.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Runtime/dlrt_cuda.h"

#include "TestDriver.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

// Two kernels, PTX ISA 7.0 so that any CUDA >= 11 driver JIT-compiles them:
//   dlrt_test_axpb(float *out, const float *in, float a, float b, int n):
//     out[i] = a * in[i] + b
//   dlrt_test_spin_store(int64 cycles, int *dst, int value):
//     spins `cycles` clock cycles, then *dst = value.
const char kPtx[] = R"(
.version 7.0
.target sm_75
.address_size 64

.visible .entry dlrt_test_axpb(
	.param .u64 p0, .param .u64 p1, .param .f32 p2, .param .f32 p3,
	.param .u32 p4)
{
	.reg .pred %p<2>;
	.reg .f32 %f<5>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [p0];
	ld.param.u64 %rd2, [p1];
	ld.param.f32 %f1, [p2];
	ld.param.f32 %f2, [p3];
	ld.param.u32 %r2, [p4];
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mov.u32 %r5, %tid.x;
	mad.lo.s32 %r1, %r3, %r4, %r5;
	setp.ge.s32 %p1, %r1, %r2;
	@%p1 bra DONE;
	cvta.to.global.u64 %rd3, %rd2;
	mul.wide.s32 %rd4, %r1, 4;
	add.s64 %rd5, %rd3, %rd4;
	ld.global.f32 %f3, [%rd5];
	fma.rn.f32 %f4, %f3, %f1, %f2;
	cvta.to.global.u64 %rd6, %rd1;
	add.s64 %rd7, %rd6, %rd4;
	st.global.f32 [%rd7], %f4;
DONE:
	ret;
}

.visible .entry dlrt_test_spin_store(
	.param .u64 q0, .param .u64 q1, .param .u32 q2)
{
	.reg .pred %p<2>;
	.reg .b32 %r<2>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd3, [q0];
	ld.param.u64 %rd5, [q1];
	ld.param.u32 %r1, [q2];
	cvta.to.global.u64 %rd1, %rd5;
	mov.u64 %rd4, %clock64;
SPIN:
	mov.u64 %rd6, %clock64;
	sub.s64 %rd7, %rd6, %rd4;
	setp.lt.s64 %p1, %rd7, %rd3;
	@%p1 bra SPIN;
	st.global.u32 [%rd1], %r1;
	ret;
}
)";

/// About 50-100 ms on current GPUs (1-2 GHz).
constexpr long long kSpinCycles = 100000000;

constexpr DLDevice kGpu{kDLCUDA, 0};

using dlbridge::testing::testDriver;
using dlbridge::testing::TestDriver;

class CudaDevice : public ::testing::Test {
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
    ASSERT_TRUE(d.StreamCreate && d.StreamDestroy && d.StreamSynchronize &&
                d.StreamQuery);
    ASSERT_EQ(d.StreamCreate(&borrowed, /*CU_STREAM_NON_BLOCKING=*/1), 0);
  }

  void TearDown() override {
    if (borrowed) {
      EXPECT_EQ(testDriver().StreamSynchronize(borrowed), 0);
      EXPECT_EQ(testDriver().StreamDestroy(borrowed), 0);
    }
    EXPECT_EQ(dlrt_cuda_take_launch_error(), DLRT_OK) << dlrt_last_error();
  }

  void *loadModule() {
    void *module = mgpuModuleLoad(const_cast<char *>(kPtx), sizeof(kPtx));
    EXPECT_NE(module, nullptr) << dlrt_last_error();
    return module;
  }

  /// Enqueues the spinning store of `value` into `dst` on `stream`.
  void spinStore(void *module, void *stream, int *dst, int value) {
    void *fn = mgpuModuleGetFunction(module, "dlrt_test_spin_store");
    ASSERT_NE(fn, nullptr) << dlrt_last_error();
    long long cycles = kSpinCycles;
    void *params[] = {&cycles, &dst, &value};
    mgpuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, stream, params, nullptr, 3);
    ASSERT_EQ(dlrt_cuda_take_launch_error(), DLRT_OK) << dlrt_last_error();
  }

  void *borrowed = nullptr;
};

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

TEST_F(CudaDevice, CountAndAvailability) {
  int32_t count = 0;
  ASSERT_EQ(dlrt_cuda_device_count(&count), DLRT_OK);
  EXPECT_GE(count, 1);
  EXPECT_EQ(dlrt_cuda_available(), 1);
  void *ptr = &ptr;
  EXPECT_EQ(dlrt_cuda_alloc(DLDevice{kDLCUDA, count}, 16, nullptr, &ptr),
            DLRT_ERR_DEVICE);
  EXPECT_EQ(ptr, nullptr);
  EXPECT_NE(std::string(dlrt_last_error()).find("not found"),
            std::string::npos);
  EXPECT_EQ(dlrt_cuda_alloc(DLDevice{kDLCUDA, -1}, 16, nullptr, &ptr),
            DLRT_ERR_DEVICE);
  int32_t major = 0, minor = -1;
  ASSERT_EQ(dlrt_cuda_compute_capability(0, &major, &minor), DLRT_OK)
      << dlrt_last_error();
  EXPECT_GE(major, 5);
  EXPECT_GE(minor, 0);
  EXPECT_EQ(dlrt_cuda_compute_capability(count, &major, &minor),
            DLRT_ERR_DEVICE);
}

TEST_F(CudaDevice, AllocFillCopyFree) {
  constexpr size_t kCount = 1 << 18;
  void *buffer = nullptr;
  ASSERT_EQ(dlrt_cuda_alloc(kGpu, kCount * 4, borrowed, &buffer), DLRT_OK)
      << dlrt_last_error();
  ASSERT_NE(buffer, nullptr);
  mgpuMemset32(buffer, 0x01020304u, kCount, borrowed);
  mgpuMemset16(buffer, 0xabcd, 2, borrowed); // the first 4 bytes
  std::vector<uint32_t> host(kCount, 0);
  mgpuMemcpy(host.data(), buffer, kCount * 4, borrowed);
  mgpuMemFree(buffer, borrowed);
  ASSERT_EQ(dlrt_cuda_take_launch_error(), DLRT_OK) << dlrt_last_error();
  ASSERT_EQ(testDriver().StreamSynchronize(borrowed), 0);
  EXPECT_EQ(host[0], 0xabcdabcdu);
  EXPECT_EQ(host[1], 0x01020304u);
  EXPECT_EQ(host[kCount - 1], 0x01020304u);

  void *empty = &empty;
  EXPECT_EQ(dlrt_cuda_alloc(kGpu, 0, borrowed, &empty), DLRT_OK);
  EXPECT_EQ(empty, nullptr);
  EXPECT_EQ(mgpuMemAlloc(0, borrowed, false), nullptr);
  mgpuMemFree(nullptr, borrowed); // no-op
}

TEST_F(CudaDevice, ManagedMemory) {
  auto *p = static_cast<int *>(mgpuMemAlloc(64, nullptr, true));
  ASSERT_NE(p, nullptr) << dlrt_last_error();
  p[3] = 7; // host-accessible
  mgpuMemset32(p, 5, 2, nullptr);
  void *owned = mgpuStreamCreate();
  ASSERT_NE(owned, nullptr);
  mgpuStreamSynchronize(nullptr); // borrowed legacy stream: no-op
  ASSERT_EQ(testDriver().StreamSynchronize(nullptr), 0);
  EXPECT_EQ(p[0], 5);
  EXPECT_EQ(p[3], 7);
  mgpuMemFree(p, nullptr);
  mgpuStreamDestroy(owned);
}

TEST_F(CudaDevice, StreamWaitOrdersWithoutBlocking) {
  void *module = loadModule();
  ASSERT_NE(module, nullptr);
  void *signaller = mgpuStreamCreate();
  ASSERT_NE(signaller, nullptr) << dlrt_last_error();
  int *flag = static_cast<int *>(mgpuMemAlloc(4, signaller, false));
  ASSERT_NE(flag, nullptr);
  mgpuMemset32(flag, 0, 1, signaller);
  spinStore(module, signaller, flag, 42);

  Clock::time_point start = Clock::now();
  ASSERT_EQ(dlrt_stream_wait(kGpu, borrowed, signaller), DLRT_OK)
      << dlrt_last_error();
  double waitMs = msSince(start);
  int host = 0;
  mgpuMemcpy(&host, flag, 4, borrowed);
  ASSERT_EQ(testDriver().StreamSynchronize(borrowed), 0);
  double totalMs = msSince(start);
  EXPECT_EQ(host, 42) << "the copy on the waiter ran before the kernel";
  EXPECT_LT(waitMs, totalMs / 4) << "dlrt_stream_wait blocked the host";

  // Same stream, NULL vs legacy, and no-sync are no-ops.
  EXPECT_EQ(dlrt_stream_wait(kGpu, borrowed, borrowed), DLRT_OK);
  EXPECT_EQ(dlrt_stream_wait(kGpu, nullptr, DLRT_STREAM_LEGACY), DLRT_OK);
  EXPECT_EQ(dlrt_stream_wait(kGpu, DLRT_STREAM_NO_SYNC, borrowed), DLRT_OK);
  EXPECT_EQ(dlrt_stream_wait(kGpu, DLRT_STREAM_PER_THREAD, borrowed), DLRT_OK);
  EXPECT_EQ(dlrt_stream_wait(DLDevice{kDLCUDA, 4096}, borrowed, nullptr),
            DLRT_ERR_DEVICE);

  mgpuMemFree(flag, signaller);
  mgpuStreamSynchronize(signaller);
  mgpuStreamDestroy(signaller);
  mgpuModuleUnload(module);
}

struct ReleaseRecord {
  std::atomic<int> calls{0};
  std::atomic<bool> onCallerThread{false};
  std::thread::id caller;
};

void recordRelease(void *arg) {
  auto *r = static_cast<ReleaseRecord *>(arg);
  if (std::this_thread::get_id() == r->caller)
    r->onCallerThread = true;
  ++r->calls;
}

TEST_F(CudaDevice, DeferredReleaseRunsAfterTheEvent) {
  void *module = loadModule();
  ASSERT_NE(module, nullptr);
  int *flag = static_cast<int *>(mgpuMemAlloc(4, borrowed, false));
  ASSERT_NE(flag, nullptr);
  spinStore(module, borrowed, flag, 1);

  ReleaseRecord record;
  record.caller = std::this_thread::get_id();
  Clock::time_point start = Clock::now();
  ASSERT_EQ(dlrt_defer_release(kGpu, borrowed, recordRelease, &record), DLRT_OK)
      << dlrt_last_error();
  double deferMs = msSince(start);
  EXPECT_EQ(record.calls.load(), 0) << "released before the kernel finished";
  EXPECT_EQ(testDriver().StreamQuery(borrowed), 600) // CUDA_ERROR_NOT_READY
      << "the kernel should still be spinning";
  ASSERT_EQ(testDriver().StreamSynchronize(borrowed), 0);
  double kernelMs = msSince(start);
  EXPECT_LT(deferMs, kernelMs / 4) << "dlrt_defer_release blocked";
  while (record.calls.load() == 0 && msSince(start) < 10000)
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  EXPECT_EQ(record.calls.load(), 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(record.calls.load(), 1) << "released twice";
  EXPECT_FALSE(record.onCallerThread.load());

  // No synchronisation requested: released at once, on this thread.
  ReleaseRecord now;
  now.caller = std::this_thread::get_id();
  EXPECT_EQ(dlrt_defer_release(kGpu, DLRT_STREAM_NO_SYNC, recordRelease, &now),
            DLRT_OK);
  EXPECT_EQ(now.calls.load(), 1);

  mgpuMemFree(flag, borrowed);
  mgpuModuleUnload(module);
}

TEST_F(CudaDevice, LaunchOnBorrowedStreamWithCachedHandles) {
  void *module = loadModule();
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(loadModule(), module) << "same image: cached module";
  void *fn = mgpuModuleGetFunction(module, "dlrt_test_axpb");
  ASSERT_NE(fn, nullptr) << dlrt_last_error();
  std::string name = "dlrt_test_axpb"; // a different pointer, same name
  EXPECT_EQ(mgpuModuleGetFunction(module, name.c_str()), fn);
  EXPECT_EQ(mgpuModuleGetFunction(module, "dlrt_test_axpb"), fn);

  constexpr int kN = 1000;
  std::vector<float> in(kN), out(kN, -1.0f);
  for (int i = 0; i < kN; ++i)
    in[i] = float(i);
  void *dIn = mgpuMemAlloc(kN * 4, borrowed, false);
  void *dOut = mgpuMemAlloc(kN * 4, borrowed, false);
  ASSERT_TRUE(dIn && dOut) << dlrt_last_error();
  mgpuMemcpy(dIn, in.data(), kN * 4, borrowed);
  float a = 2.0f, b = 0.5f;
  int n = kN;
  void *params[] = {&dOut, &dIn, &a, &b, &n};
  for (int rep = 0; rep < 3; ++rep)
    mgpuLaunchKernel(mgpuModuleGetFunction(module, "dlrt_test_axpb"),
                     (kN + 127) / 128, 1, 1, 128, 1, 1, 0, borrowed, params,
                     nullptr, 5);
  mgpuMemcpy(out.data(), dOut, kN * 4, borrowed);
  ASSERT_EQ(dlrt_cuda_take_launch_error(), DLRT_OK) << dlrt_last_error();
  ASSERT_EQ(testDriver().StreamSynchronize(borrowed), 0);
  for (int i = 0; i < kN; ++i)
    ASSERT_EQ(out[i], 2.0f * float(i) + 0.5f) << i;

  // The borrowed stream is neither synchronised nor destroyed by us.
  spinStore(module, borrowed, static_cast<int *>(dOut), 0);
  Clock::time_point start = Clock::now();
  mgpuStreamSynchronize(borrowed);
  mgpuStreamDestroy(borrowed);
  EXPECT_EQ(testDriver().StreamQuery(borrowed), 600)
      << "borrowed stream was synchronised or destroyed";
  EXPECT_LT(msSince(start), 20.0);

  mgpuMemFree(dIn, borrowed);
  mgpuMemFree(dOut, borrowed);
  mgpuModuleUnload(module);
  mgpuModuleUnload(module); // loaded twice
  EXPECT_EQ(dlrt_cuda_take_launch_error(), DLRT_OK) << dlrt_last_error();
  mgpuModuleUnload(module); // one too many
  EXPECT_EQ(dlrt_cuda_take_launch_error(), DLRT_ERR_INVALID_ARGUMENT);
}

TEST_F(CudaDevice, JitLoadAndLaunchErrors) {
  void *module = mgpuModuleLoadJIT(const_cast<char *>(kPtx), 3);
  ASSERT_NE(module, nullptr) << dlrt_last_error();
  void *fn = mgpuModuleGetFunction(module, "dlrt_test_axpb");
  ASSERT_NE(fn, nullptr);

  EXPECT_EQ(mgpuModuleGetFunction(module, "no_such_kernel"), nullptr);
  EXPECT_EQ(dlrt_cuda_take_launch_error(), DLRT_ERR_CUDA);
  EXPECT_NE(std::string(dlrt_last_error()).find("no_such_kernel"),
            std::string::npos)
      << dlrt_last_error();

  // An empty grid (a kernel over an empty tensor) launches nothing.
  mgpuLaunchKernel(fn, 0, 1, 1, 1, 1, 1, 0, borrowed, nullptr, nullptr, 0);
  EXPECT_EQ(dlrt_cuda_take_launch_error(), DLRT_OK);
  mgpuLaunchKernel(fn, -1, 1, 1, 1, 1, 1, 0, borrowed, nullptr, nullptr, 0);
  EXPECT_EQ(dlrt_cuda_take_launch_error(), DLRT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(dlrt_last_error()).find("invalid launch grid"),
            std::string::npos);

  static const char bad[] =
      ".version 7.0\n.target sm_75\n.address_size 64\n"
      ".visible .entry broken() { not_an_instruction; }\n";
  EXPECT_EQ(mgpuModuleLoadJIT(const_cast<char *>(bad), 2), nullptr);
  EXPECT_EQ(dlrt_cuda_take_launch_error(), DLRT_ERR_CUDA);
  EXPECT_NE(std::string(dlrt_last_error()).find("cuModuleLoadDataEx"),
            std::string::npos)
      << dlrt_last_error();
  mgpuModuleUnload(module);
}

TEST_F(CudaDevice, EventsThroughMgpu) {
  void *module = loadModule();
  ASSERT_NE(module, nullptr);
  void *producer = mgpuStreamCreate();
  void *event = mgpuEventCreate();
  ASSERT_TRUE(producer && event) << dlrt_last_error();
  int *flag = static_cast<int *>(mgpuMemAlloc(4, producer, false));
  spinStore(module, producer, flag, 9);
  mgpuEventRecord(event, producer);
  mgpuStreamWaitEvent(borrowed, event);
  int host = 0;
  mgpuMemcpy(&host, flag, 4, borrowed);
  mgpuEventSynchronize(event);
  ASSERT_EQ(testDriver().StreamSynchronize(borrowed), 0);
  EXPECT_EQ(host, 9);
  mgpuEventDestroy(event);
  mgpuMemFree(flag, producer);
  mgpuStreamSynchronize(producer);
  mgpuStreamDestroy(producer);
  mgpuModuleUnload(module);
}

TEST_F(CudaDevice, ConcurrentLookupsAndLaunches) {
  void *module = loadModule();
  ASSERT_NE(module, nullptr);
  constexpr int kThreads = 8, kN = 256;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      void *stream = mgpuStreamCreate();
      void *dIn = mgpuMemAlloc(kN * 4, stream, false);
      void *dOut = mgpuMemAlloc(kN * 4, stream, false);
      std::vector<float> in(kN, float(t)), out(kN);
      mgpuMemcpy(dIn, in.data(), kN * 4, stream);
      float a = 1.0f, b = 1.0f;
      int n = kN;
      void *params[] = {&dOut, &dIn, &a, &b, &n};
      for (int rep = 0; rep < 50; ++rep)
        mgpuLaunchKernel(mgpuModuleGetFunction(module, "dlrt_test_axpb"), 2, 1,
                         1, 128, 1, 1, 0, stream, params, nullptr, 5);
      mgpuMemcpy(out.data(), dOut, kN * 4, stream);
      mgpuStreamSynchronize(stream);
      for (float v : out)
        if (v != float(t) + 1.0f)
          ++failures;
      mgpuMemFree(dIn, stream);
      mgpuMemFree(dOut, stream);
      mgpuStreamSynchronize(stream);
      mgpuStreamDestroy(stream);
      if (dlrt_cuda_take_launch_error() != DLRT_OK)
        ++failures;
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0);
  mgpuModuleUnload(module);
}

} // namespace
