//===- ResultTest.cpp - Packed results, deleters and allocation
//------------===//
//
// Part of dlbridge's runtime unit tests.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Runtime/dlrt.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr DLDataType kF32 = {kDLFloat, 32, 1};
constexpr DLDevice kCpu0 = {kDLCPU, 0};

dlrt_param_desc resultParam(const char *name, int32_t rank,
                            DLDataType dtype = kF32) {
  return dlrt_param_desc{name,
                         DLRT_PARAM_TENSOR,
                         DLRT_LAYOUT_STRIDED,
                         DLRT_ACCESS_WRITE,
                         rank,
                         dtype,
                         0,
                         nullptr,
                         nullptr,
                         DLRT_DYNAMIC};
}

bool isAligned(const void *ptr, uintptr_t alignment) {
  return reinterpret_cast<uintptr_t>(ptr) % alignment == 0;
}

/// Allocator hooks that count calls and check each free matches an alloc.
struct CountingAllocator {
  std::atomic<int> allocs{0}, frees{0};
  size_t lastBytes = 0, lastAlignment = 0;
  DLDevice lastAllocDevice = {}, lastFreeDevice = {};
  void *lastFreed = nullptr;
  dlrt_allocator hooks = {&alloc, &free, this};

  static void *alloc(void *user, size_t bytes, size_t alignment,
                     DLDevice device, void *) {
    auto *self = static_cast<CountingAllocator *>(user);
    ++self->allocs;
    self->lastBytes = bytes;
    self->lastAlignment = alignment;
    self->lastAllocDevice = device;
    return std::aligned_alloc(alignment,
                              (bytes + alignment) / alignment * alignment);
  }
  static void free(void *user, void *ptr, DLDevice device, void *) {
    auto *self = static_cast<CountingAllocator *>(user);
    ++self->frees;
    self->lastFreed = ptr;
    self->lastFreeDevice = device;
    std::free(ptr);
  }
};

class ResultTest : public ::testing::Test {
protected:
  void SetUp() override { dlrt_call_ctx_init(&ctx, kCpu0, nullptr); }
  /// Starts a call whose host allocations go through `allocator`.
  void beginCallWith(CountingAllocator &allocator) {
    ctx.allocator = &allocator.hooks;
    dlrt_call_begin(&ctx);
  }
  void TearDown() override { dlrt_call_end(&ctx); }

  dlrt_call_ctx ctx;
};

TEST_F(ResultTest, PackFillsEveryField) {
  auto *buffer = static_cast<float *>(dlrt_host_alloc(8 * sizeof(float)));
  int64_t sizes[] = {2, 3}, strides[] = {3, 1};
  dlrt_param_desc desc = resultParam("out", 2);
  DLManagedTensorVersioned *result =
      dlrt_pack_result(&ctx, buffer, buffer, 2, sizes, strides, &desc);
  ASSERT_NE(result, nullptr) << ctx.error;
  EXPECT_EQ(ctx.status, DLRT_OK);
  EXPECT_EQ(result->version.major, 1u);
  EXPECT_EQ(result->version.minor, 3u);
  EXPECT_EQ(result->flags, 0u);
  EXPECT_NE(result->manager_ctx, nullptr);
  ASSERT_NE(result->deleter, nullptr);
  const DLTensor &tensor = result->dl_tensor;
  EXPECT_EQ(tensor.data, buffer);
  EXPECT_EQ(tensor.byte_offset, 2 * sizeof(float));
  EXPECT_EQ(tensor.device.device_type, kDLCPU);
  EXPECT_EQ(tensor.device.device_id, 0);
  EXPECT_EQ(tensor.ndim, 2);
  EXPECT_EQ(tensor.dtype.code, kDLFloat);
  EXPECT_EQ(tensor.dtype.bits, 32);
  EXPECT_EQ(tensor.dtype.lanes, 1);
  // Shape and strides are the tensor's own copies.
  ASSERT_NE(tensor.shape, nullptr);
  ASSERT_NE(tensor.strides, nullptr);
  EXPECT_NE(tensor.shape, sizes);
  EXPECT_NE(tensor.strides, strides);
  sizes[0] = strides[0] = -7;
  EXPECT_EQ(tensor.shape[0], 2);
  EXPECT_EQ(tensor.shape[1], 3);
  EXPECT_EQ(tensor.strides[0], 3);
  EXPECT_EQ(tensor.strides[1], 1);
  dlrt_release_managed(result);
}

TEST_F(ResultTest, PacksZeroDimensionalResults) {
  void *buffer = dlrt_host_alloc(sizeof(double));
  dlrt_param_desc desc = resultParam("s", 0, DLDataType{kDLFloat, 64, 1});
  DLManagedTensorVersioned *result =
      dlrt_pack_result(&ctx, buffer, buffer, 0, nullptr, nullptr, &desc);
  ASSERT_NE(result, nullptr) << ctx.error;
  EXPECT_EQ(result->dl_tensor.ndim, 0);
  EXPECT_EQ(result->dl_tensor.shape, nullptr);
  EXPECT_EQ(result->dl_tensor.strides, nullptr);
  EXPECT_EQ(result->dl_tensor.dtype.bits, 64);
  dlrt_release_managed(result);
}

TEST(HostAllocTest, AlignsEverySizeTo64BytesAndIsFreeCompatible) {
  for (size_t bytes :
       {size_t(0), size_t(1), size_t(7), size_t(63), size_t(64), size_t(65),
        size_t(1000), size_t(4096), size_t(1) << 20}) {
    void *memory = dlrt_host_alloc(bytes);
    ASSERT_NE(memory, nullptr) << bytes;
    EXPECT_TRUE(isAligned(memory, 64)) << bytes;
    std::memset(memory, 0x5A, bytes);
    if (bytes % 2)
      std::free(memory);
    else
      dlrt_host_free(memory);
  }
  dlrt_host_free(nullptr);
}

TEST(HostAllocTest, ReportsImpossibleSizes) {
  EXPECT_EQ(dlrt_host_alloc(SIZE_MAX), nullptr);
  EXPECT_STREQ(dlrt_last_error(), "out of host memory allocating "
                                  "18446744073709551615 bytes");
}

TEST(HostAllocTest, GeneratedCodeAllocatesAlignedFreeCompatibleMemory) {
  for (size_t bytes : {size_t(0), size_t(3), size_t(100)}) {
    void *plain = _mlir_memref_to_llvm_alloc(bytes);
    ASSERT_NE(plain, nullptr);
    EXPECT_TRUE(isAligned(plain, 64));
    _mlir_memref_to_llvm_free(plain);
    void *wide = _mlir_memref_to_llvm_aligned_alloc(256, bytes);
    ASSERT_NE(wide, nullptr);
    EXPECT_TRUE(isAligned(wide, 256));
    std::free(wide);
  }
  _mlir_memref_to_llvm_free(nullptr);
  EXPECT_EQ(_mlir_memref_to_llvm_aligned_alloc(48, 16), nullptr);
}

TEST_F(ResultTest, CallsInProgressAllocateThroughTheHooks) {
  CountingAllocator allocator;
  beginCallWith(allocator);
  void *buffer = _mlir_memref_to_llvm_alloc(100);
  ASSERT_NE(buffer, nullptr);
  EXPECT_EQ(allocator.allocs, 1);
  EXPECT_EQ(allocator.lastBytes, 100u);
  EXPECT_EQ(allocator.lastAlignment, 64u);
  EXPECT_EQ(allocator.lastAllocDevice.device_type, kDLCPU);
  void *wide = _mlir_memref_to_llvm_aligned_alloc(128, 10);
  EXPECT_EQ(allocator.allocs, 2);
  EXPECT_EQ(allocator.lastAlignment, 128u);
  _mlir_memref_to_llvm_free(wide);
  EXPECT_EQ(allocator.frees, 1);
  EXPECT_EQ(allocator.lastFreed, wide);

  // The result keeps the allocator's free after the call ended.
  int64_t sizes[] = {25}, strides[] = {1};
  dlrt_param_desc desc = resultParam("out", 1);
  DLManagedTensorVersioned *result =
      dlrt_pack_result(&ctx, buffer, buffer, 0, sizes, strides, &desc);
  ASSERT_NE(result, nullptr) << ctx.error;
  dlrt_call_end(&ctx);
  void *afterCall = _mlir_memref_to_llvm_alloc(8);
  EXPECT_EQ(allocator.allocs, 2);
  _mlir_memref_to_llvm_free(afterCall);
  EXPECT_EQ(allocator.frees, 1);
  dlrt_release_managed(result);
  EXPECT_EQ(allocator.frees, 2);
  EXPECT_EQ(allocator.lastFreed, buffer);
}

TEST_F(ResultTest, WithoutACallInProgressTheAllocatorIsNotUsed) {
  CountingAllocator allocator;
  ctx.allocator = &allocator.hooks;
  void *buffer = _mlir_memref_to_llvm_alloc(64);
  int64_t sizes[] = {16}, strides[] = {1};
  dlrt_param_desc desc = resultParam("out", 1);
  DLManagedTensorVersioned *result =
      dlrt_pack_result(&ctx, buffer, buffer, 0, sizes, strides, &desc);
  ASSERT_NE(result, nullptr) << ctx.error;
  dlrt_release_managed(result);
  EXPECT_EQ(allocator.allocs, 0);
  EXPECT_EQ(allocator.frees, 0);
}

TEST_F(ResultTest, HostAllocationsOfCudaCallsIgnoreTheHooks) {
  CountingAllocator allocator;
  dlrt_call_ctx_init(&ctx, DLDevice{kDLCUDA, 0}, nullptr);
  beginCallWith(allocator);
  void *hostBuffer = _mlir_memref_to_llvm_alloc(32);
  ASSERT_NE(hostBuffer, nullptr);
  _mlir_memref_to_llvm_free(hostBuffer);
  EXPECT_EQ(allocator.allocs, 0);
  EXPECT_EQ(allocator.frees, 0);
}

TEST_F(ResultTest, OutOfMemoryInACallIsRecordedInItsContext) {
  CountingAllocator allocator;
  beginCallWith(allocator);
  EXPECT_EQ(_mlir_memref_to_llvm_aligned_alloc(3, 8), nullptr);
  EXPECT_EQ(ctx.status, DLRT_ERR_OUT_OF_MEMORY);
  EXPECT_STREQ(ctx.error, "cannot allocate 8 bytes aligned to 3 for a buffer");
  EXPECT_EQ(allocator.allocs, 0);
}

TEST_F(ResultTest, DeleterRunsExactlyOnceUnderConcurrentCalls) {
  CountingAllocator allocator;
  constexpr int kThreads = 8;
  for (int round = 0; round < 20; ++round) {
    beginCallWith(allocator);
    void *buffer = _mlir_memref_to_llvm_alloc(256);
    int64_t sizes[] = {64}, strides[] = {1};
    dlrt_param_desc desc = resultParam("out", 1);
    DLManagedTensorVersioned *result =
        dlrt_pack_result(&ctx, buffer, buffer, 0, sizes, strides, &desc);
    dlrt_call_end(&ctx);
    ASSERT_NE(result, nullptr) << ctx.error;
    // Racing callers must not read the tensor (a loser could find it freed),
    // so they call the deleter they were handed beforehand.
    void (*deleter)(DLManagedTensorVersioned *) = result->deleter;
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i)
      threads.emplace_back([&] {
        ++ready;
        while (ready.load() < kThreads)
          std::this_thread::yield();
        deleter(result);
      });
    for (std::thread &thread : threads)
      thread.join();
    EXPECT_EQ(allocator.frees, round + 1);
    // A late call after the race finds nothing to free either.
    deleter(result);
    EXPECT_EQ(allocator.frees, round + 1);
  }
  EXPECT_EQ(allocator.allocs, allocator.frees);
}

TEST_F(ResultTest, ReleaseIgnoresNullTensorsAndDeleters) {
  dlrt_release_managed(nullptr);
  DLManagedTensorVersioned foreign = {};
  dlrt_release_managed(&foreign);
  SUCCEED();
}

/// Packs a buffer from `allocator` with `desc` and the given metadata,
/// expecting failure; returns the context's message.
class PackFailureTest : public ResultTest {
protected:
  std::string packFails(const dlrt_param_desc *desc, int64_t offset,
                        const int64_t *sizes, const int64_t *strides,
                        int32_t expectedStatus) {
    CountingAllocator allocator;
    dlrt_call_ctx_init(&ctx, kCpu0, nullptr);
    beginCallWith(allocator);
    void *buffer = _mlir_memref_to_llvm_alloc(64);
    DLManagedTensorVersioned *result =
        dlrt_pack_result(&ctx, buffer, buffer, offset, sizes, strides, desc);
    dlrt_call_end(&ctx);
    EXPECT_EQ(result, nullptr);
    EXPECT_EQ(ctx.status, expectedStatus) << ctx.error;
    // The buffer was freed, once, with the allocator it came from.
    EXPECT_EQ(allocator.allocs, 1);
    EXPECT_EQ(allocator.frees, 1);
    EXPECT_EQ(allocator.lastFreed, buffer);
    EXPECT_STREQ(dlrt_last_error(), ctx.error);
    return ctx.error;
  }
};

TEST_F(PackFailureTest, FreesTheBufferAndReportsEachFailure) {
  int64_t sizes[] = {4, 4}, strides[] = {4, 1}, negative[] = {4, -1};
  dlrt_param_desc desc = resultParam("out", 2);
  EXPECT_EQ(packFails(nullptr, 0, sizes, strides, DLRT_ERR_INVALID_ARGUMENT),
            "result: expected a result descriptor, got NULL");

  dlrt_param_desc scalar = desc;
  scalar.kind = DLRT_PARAM_SCALAR;
  EXPECT_EQ(packFails(&scalar, 0, sizes, strides, DLRT_ERR_INVALID_ARGUMENT),
            "result 'out': expected a tensor result, got parameter kind 1");

  dlrt_param_desc negativeRank = desc;
  negativeRank.rank = -1;
  EXPECT_EQ(
      packFails(&negativeRank, 0, sizes, strides, DLRT_ERR_INVALID_ARGUMENT),
      "result 'out': expected a non-negative rank, got -1");

  EXPECT_EQ(packFails(&desc, 0, sizes, nullptr, DLRT_ERR_INVALID_ARGUMENT),
            "result 'out': expected sizes and strides for rank 2, got NULL");

  dlrt_param_desc packedFp4 = resultParam("q", 2, {kDLFloat4_e2m1fn, 4, 1});
  EXPECT_EQ(packFails(&packedFp4, 0, sizes, strides, DLRT_ERR_UNSUPPORTED),
            "result 'q': expected a whole-byte element type, got "
            "float4_e2m1fn");

  EXPECT_EQ(packFails(&desc, -3, sizes, strides, DLRT_ERR_INVALID_ARGUMENT),
            "result 'out': expected a non-negative offset, got -3");

  EXPECT_EQ(packFails(&desc, INT64_MAX / 2, sizes, strides, DLRT_ERR_OVERFLOW),
            "result 'out': expected a byte offset within int64, got offset "
            "4611686018427387903 elements");

  EXPECT_EQ(packFails(&desc, 0, negative, strides, DLRT_ERR_SHAPE),
            "result 'out': dim 1 expected a non-negative size, got -1");
}

TEST_F(ResultTest, RefusesToOwnBuffersOnDevicesItCannotFree) {
  dlrt_call_ctx_init(&ctx, DLDevice{kDLROCM, 0}, nullptr);
  void *buffer = std::malloc(16);
  int64_t sizes[] = {4}, strides[] = {1};
  dlrt_param_desc desc = resultParam("out", 1);
  // The buffer is released (with free(): ASan's leak check sees the rest).
  EXPECT_EQ(dlrt_pack_result(&ctx, buffer, buffer, 0, sizes, strides, &desc),
            nullptr);
  EXPECT_EQ(ctx.status, DLRT_ERR_UNSUPPORTED);
  EXPECT_STREQ(ctx.error, "result 'out': expected a cpu or cuda call to own "
                          "results, got device type 10");
}

TEST(PackWithoutContextTest, RecordsTheThreadsLastError) {
  void *buffer = dlrt_host_alloc(16);
  int64_t sizes[] = {4}, strides[] = {1};
  dlrt_param_desc desc = resultParam("out", 1);
  EXPECT_EQ(dlrt_pack_result(nullptr, buffer, buffer, 0, sizes, strides, &desc),
            nullptr);
  EXPECT_STREQ(dlrt_last_error(),
               "result: no call context (its buffer is leaked)");
  dlrt_host_free(buffer);
}

} // namespace

TEST(MemRefCopyTest, CopiesBetweenArbitraryStrides) {
  // A 2x3 view of a 3x4 row-major buffer, transposed, into a compact 3x2.
  float source[12];
  for (int i = 0; i < 12; ++i)
    source[i] = static_cast<float>(i);
  float target[6] = {};
  struct {
    float *allocated, *aligned;
    int64_t offset, sizes[2], strides[2];
  } src = {source, source, 1, {3, 2}, {1, 4}},
    dst = {target, target, 0, {3, 2}, {2, 1}};
  dlrt_unranked_memref from = {2, &src}, to = {2, &dst};
  memrefCopy(sizeof(float), &from, &to);
  const float expected[6] = {1, 5, 2, 6, 3, 7};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(target[i], expected[i]) << i;
}

TEST(MemRefCopyTest, EmptyAndZeroDimensional) {
  float one = 4.5f, out = 0;
  struct {
    float *allocated, *aligned;
    int64_t offset;
  } src = {&one, &one, 0}, dst = {&out, &out, 0};
  dlrt_unranked_memref from = {0, &src}, to = {0, &dst};
  memrefCopy(sizeof(float), &from, &to);
  EXPECT_EQ(out, 4.5f);
  struct {
    float *allocated, *aligned;
    int64_t offset, sizes[1], strides[1];
  } empty = {nullptr, nullptr, 0, {0}, {1}};
  dlrt_unranked_memref none = {1, &empty};
  memrefCopy(sizeof(float), &none, &none);
}

TEST(HostAllocTest, LargeBuffersAreAlignedToHugePagesAndFreeCompatible) {
  for (size_t bytes : {size_t(4) << 20, (size_t(5) << 20) + 3}) {
    void *memory = dlrt_host_alloc(bytes);
    ASSERT_NE(memory, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(memory) % (size_t(2) << 20), 0u);
    static_cast<char *>(memory)[bytes - 1] = 1;
    dlrt_host_free(memory);
  }
}
