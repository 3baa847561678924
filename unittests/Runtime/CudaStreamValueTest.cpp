//===- CudaStreamValueTest.cpp - DLPack stream values, CPU keep-alive -----===//
//
// Pure logic of dlrt_cuda.h that needs no driver: the DLPack stream value
// mapping for every value and device, the CPU paths of dlrt_stream_wait and
// dlrt_defer_release, and the releaser thread driven by test completion
// tests (what CUDA's deferred release runs on, with event queries).
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Runtime/dlrt_cuda.h"

#include "../../lib/Runtime/CudaReleaser.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr DLDevice kCpu{kDLCPU, 0};
constexpr DLDevice kCuda{kDLCUDA, 0};
constexpr DLDevice kCuda3{kDLCUDA, 3};
constexpr DLDevice kManaged{kDLCUDAManaged, 0};
constexpr DLDevice kPinned{kDLCUDAHost, 0};
constexpr DLDevice kRocm{kDLROCM, 0};

void *const kUnset = reinterpret_cast<void *>(uintptr_t(0xdead));

struct Mapped {
  int32_t status;
  void *stream;
};

Mapped map(DLDevice device, int64_t value, int hasValue) {
  void *stream = kUnset;
  int32_t status = dlrt_stream_from_dlpack(device, value, hasValue, &stream);
  return {status, stream};
}

TEST(CudaStreamValue, NoneIsLegacyDefaultForCuda) {
  for (DLDevice d : {kCuda, kCuda3, kManaged}) {
    Mapped m = map(d, 0, /*hasValue=*/0);
    EXPECT_EQ(m.status, DLRT_OK);
    EXPECT_EQ(m.stream, DLRT_STREAM_LEGACY);
  }
}

TEST(CudaStreamValue, SpecialValuesForCuda) {
  for (DLDevice d : {kCuda, kCuda3, kManaged}) {
    EXPECT_EQ(map(d, -1, 1).status, DLRT_OK);
    EXPECT_EQ(map(d, -1, 1).stream, DLRT_STREAM_NO_SYNC);
    EXPECT_EQ(map(d, 1, 1).status, DLRT_OK);
    EXPECT_EQ(map(d, 1, 1).stream, DLRT_STREAM_LEGACY);
    EXPECT_EQ(map(d, 2, 1).status, DLRT_OK);
    EXPECT_EQ(map(d, 2, 1).stream, DLRT_STREAM_PER_THREAD);
  }
  EXPECT_EQ(DLRT_STREAM_LEGACY, reinterpret_cast<void *>(uintptr_t(1)));
  EXPECT_EQ(DLRT_STREAM_PER_THREAD, reinterpret_cast<void *>(uintptr_t(2)));
  EXPECT_EQ(DLRT_STREAM_NO_SYNC, reinterpret_cast<void *>(intptr_t(-1)));
}

TEST(CudaStreamValue, ZeroIsRefusedForCuda) {
  for (DLDevice d : {kCuda, kManaged}) {
    Mapped m = map(d, 0, 1);
    EXPECT_EQ(m.status, DLRT_ERR_STREAM);
    EXPECT_EQ(m.stream, kUnset) << "written on failure";
    EXPECT_STREQ(dlrt_last_error(),
                 "stream 0 is ambiguous for CUDA; use 1 or 2");
  }
}

TEST(CudaStreamValue, OtherValuesAreHandles) {
  for (int64_t v : {int64_t(3), int64_t(0x7f0012345600), int64_t(INT64_MAX)}) {
    Mapped m = map(kCuda, v, 1);
    EXPECT_EQ(m.status, DLRT_OK) << v;
    EXPECT_EQ(m.stream, reinterpret_cast<void *>(uintptr_t(v))) << v;
  }
}

TEST(CudaStreamValue, NegativeValuesBelowMinusOneAreRefused) {
  for (int64_t v : {int64_t(-2), int64_t(-100), INT64_MIN}) {
    Mapped m = map(kCuda, v, 1);
    EXPECT_EQ(m.status, DLRT_ERR_STREAM) << v;
    EXPECT_EQ(m.stream, kUnset);
    EXPECT_NE(std::string(dlrt_last_error()).find("not a valid CUDA stream"),
              std::string::npos)
        << dlrt_last_error();
  }
}

TEST(CudaStreamValue, CpuTakesNoneOnly) {
  for (DLDevice d : {kCpu, kPinned}) {
    Mapped none = map(d, 0, 0);
    EXPECT_EQ(none.status, DLRT_OK);
    EXPECT_EQ(none.stream, nullptr);
    // None ignores the value argument.
    EXPECT_EQ(map(d, 12345, 0).status, DLRT_OK);
    for (int64_t v :
         {int64_t(-1), int64_t(0), int64_t(1), int64_t(2), int64_t(77)}) {
      Mapped m = map(d, v, 1);
      EXPECT_EQ(m.status, DLRT_ERR_STREAM) << v;
      EXPECT_EQ(m.stream, kUnset);
      EXPECT_NE(std::string(dlrt_last_error()).find("invalid for a CPU"),
                std::string::npos)
          << dlrt_last_error();
    }
  }
}

TEST(CudaStreamValue, OtherDevicesAreUnsupported) {
  EXPECT_EQ(map(kRocm, 0, 0).status, DLRT_ERR_UNSUPPORTED);
  EXPECT_EQ(map(kRocm, 5, 1).status, DLRT_ERR_UNSUPPORTED);
  EXPECT_EQ(map(DLDevice{kDLVulkan, 0}, 1, 1).status, DLRT_ERR_UNSUPPORTED);
}

TEST(CudaStreamValue, NullOutput) {
  EXPECT_EQ(dlrt_stream_from_dlpack(kCuda, 1, 1, nullptr),
            DLRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(dlrt_stream_from_dlpack(kCpu, 0, 0, nullptr),
            DLRT_ERR_INVALID_ARGUMENT);
}

//===----------------------------------------------------------------------===//
// CPU stream ordering and keep-alive
//===----------------------------------------------------------------------===//

TEST(CudaStreamWait, CpuIsANoOpWithNullStreams) {
  EXPECT_EQ(dlrt_stream_wait(kCpu, nullptr, nullptr), DLRT_OK);
  EXPECT_EQ(dlrt_stream_wait(kPinned, nullptr, nullptr), DLRT_OK);
  EXPECT_EQ(dlrt_stream_wait(kCpu, DLRT_STREAM_LEGACY, nullptr),
            DLRT_ERR_STREAM);
  EXPECT_EQ(dlrt_stream_wait(kCpu, nullptr, DLRT_STREAM_PER_THREAD),
            DLRT_ERR_STREAM);
  EXPECT_EQ(dlrt_stream_wait(kRocm, nullptr, nullptr), DLRT_ERR_UNSUPPORTED);
}

void countCall(void *arg) { ++*static_cast<std::atomic<int> *>(arg); }

TEST(CudaDeferRelease, CpuReleasesAtOnceExactlyOnce) {
  for (DLDevice d : {kCpu, kPinned}) {
    std::atomic<int> calls{0};
    ASSERT_EQ(dlrt_defer_release(d, nullptr, countCall, &calls), DLRT_OK);
    EXPECT_EQ(calls.load(), 1) << "called before returning, exactly once";
  }
}

TEST(CudaDeferRelease, CpuRefusesAStreamWithoutReleasing) {
  std::atomic<int> calls{0};
  EXPECT_EQ(dlrt_defer_release(kCpu, DLRT_STREAM_LEGACY, countCall, &calls),
            DLRT_ERR_STREAM);
  EXPECT_EQ(calls.load(), 0) << "the caller keeps ownership on failure";
}

TEST(CudaDeferRelease, NullReleaseAndOtherDevices) {
  EXPECT_EQ(dlrt_defer_release(kCpu, nullptr, nullptr, nullptr),
            DLRT_ERR_INVALID_ARGUMENT);
  std::atomic<int> calls{0};
  EXPECT_EQ(dlrt_defer_release(kRocm, nullptr, countCall, &calls),
            DLRT_ERR_UNSUPPORTED);
  EXPECT_EQ(calls.load(), 0);
}

TEST(CudaDeferRelease, CpuFromManyThreads) {
  std::atomic<int> calls{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 100; ++i)
        EXPECT_EQ(dlrt_defer_release(kCpu, nullptr, countCall, &calls),
                  DLRT_OK);
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(calls.load(), 800);
}

//===----------------------------------------------------------------------===//
// The releaser thread, with test completion tests instead of CUDA events
//===----------------------------------------------------------------------===//

/// Work that completes when the test says so.
struct FakeWork {
  std::atomic<bool> done{false};
  std::atomic<int> polls{0};
  std::atomic<int> waits{0};
  std::atomic<int> released{0};
  std::atomic<bool> releasedAfterDone{true};
};

int pollFake(void *context, void *token, int wait) {
  auto *w = static_cast<FakeWork *>(token);
  EXPECT_EQ(context, reinterpret_cast<void *>(uintptr_t(0x5eed)));
  ++w->polls;
  if (wait) {
    ++w->waits;
    while (!w->done.load())
      std::this_thread::yield();
  }
  return w->done.load() ? 1 : 0;
}

void releaseFake(void *arg) {
  auto *w = static_cast<FakeWork *>(arg);
  if (!w->done.load())
    w->releasedAfterDone = false;
  ++w->released;
}

bool waitFor(const std::atomic<int> &counter, int value) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (counter.load() < value) {
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return true;
}

void *const kContext = reinterpret_cast<void *>(uintptr_t(0x5eed));

TEST(CudaReleaser, ReleasesOnlyAfterCompletionExactlyOnce) {
  FakeWork w;
  ASSERT_EQ(dlrt_internal_defer_until(pollFake, kContext, &w, releaseFake, &w),
            DLRT_OK);
  // Not done: the thread keeps polling (with back-off) and never releases.
  ASSERT_TRUE(waitFor(w.polls, 3));
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(w.released.load(), 0);
  w.done = true;
  ASSERT_TRUE(waitFor(w.released, 1));
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(w.released.load(), 1);
  EXPECT_TRUE(w.releasedAfterDone.load());
  EXPECT_EQ(w.waits.load(), 0) << "the thread must not block on one entry";
}

TEST(CudaReleaser, OutOfOrderCompletion) {
  constexpr int kCount = 16;
  std::vector<FakeWork> work(kCount);
  for (FakeWork &w : work)
    ASSERT_EQ(
        dlrt_internal_defer_until(pollFake, kContext, &w, releaseFake, &w),
        DLRT_OK);
  // Complete from the back: earlier pending entries must not hold later ones.
  for (int i = kCount - 1; i >= 0; --i) {
    work[i].done = true;
    ASSERT_TRUE(waitFor(work[i].released, 1)) << i;
    for (int j = 0; j < i; ++j)
      EXPECT_EQ(work[j].released.load(), 0) << j;
  }
  for (FakeWork &w : work) {
    EXPECT_EQ(w.released.load(), 1);
    EXPECT_TRUE(w.releasedAfterDone.load());
  }
}

TEST(CudaReleaser, ManyProducers) {
  constexpr int kThreads = 8, kPerThread = 200;
  std::vector<FakeWork> work(kThreads * kPerThread);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        FakeWork &w = work[t * kPerThread + i];
        if (i % 2)
          w.done = true; // Half are done before they are queued.
        EXPECT_EQ(
            dlrt_internal_defer_until(pollFake, kContext, &w, releaseFake, &w),
            DLRT_OK);
      }
    });
  for (std::thread &t : threads)
    t.join();
  for (FakeWork &w : work)
    w.done = true;
  for (FakeWork &w : work) {
    ASSERT_TRUE(waitFor(w.released, 1));
    EXPECT_TRUE(w.releasedAfterDone.load());
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  for (FakeWork &w : work)
    EXPECT_EQ(w.released.load(), 1);
}

struct Chain {
  FakeWork first, second;
};

void releaseAndRequeue(void *arg) {
  auto *c = static_cast<Chain *>(arg);
  ++c->first.released;
  c->second.done = true;
  EXPECT_EQ(dlrt_internal_defer_until(pollFake, kContext, &c->second,
                                      releaseFake, &c->second),
            DLRT_OK);
}

TEST(CudaReleaser, ReleaseMayDeferAgain) {
  Chain c;
  c.first.done = true;
  ASSERT_EQ(dlrt_internal_defer_until(pollFake, kContext, &c.first,
                                      releaseAndRequeue, &c),
            DLRT_OK);
  ASSERT_TRUE(waitFor(c.second.released, 1));
  EXPECT_EQ(c.first.released.load(), 1);
}

TEST(CudaReleaser, NullArguments) {
  FakeWork w;
  EXPECT_EQ(dlrt_internal_defer_until(nullptr, kContext, &w, releaseFake, &w),
            DLRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(dlrt_internal_defer_until(pollFake, kContext, &w, nullptr, &w),
            DLRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(w.polls.load(), 0);
}

int pollUntilAsked(void *, void *, int wait) { return wait; }

void releaseAndSay(void *) { std::fprintf(stderr, "released at exit\n"); }

TEST(CudaReleaserDeathTest, PendingEntriesAreReleasedAtExit) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // Never completes on its own: only the exit drain (poll with wait) ends it.
  EXPECT_EXIT(
      {
        dlrt_internal_defer_until(pollUntilAsked, nullptr, nullptr,
                                  releaseAndSay, nullptr);
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "released at exit");
}

} // namespace
