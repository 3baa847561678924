//===- ShapeCheckTest.cpp - Generated code refuses what does not fit ------===//
//
// Part of dlbridge. Tensor programs compiled by the CPU pipeline and called
// with arguments whose shapes do not fit together (contraction dims,
// elementwise dims, a tensor.empty sized from another argument, a slice out
// of bounds) end with DLRT_ERR_SHAPE_MISMATCH and a message with the actual
// shapes; allocations that fail or whose byte size overflows end with
// DLRT_ERR_OUT_OF_MEMORY. Shapes that fit still compute.
//
//===----------------------------------------------------------------------===//

#include "EntryCallTest.h"
#include "TensorBuilder.h"

#include "dlbridge/JIT/Kernel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <utility>

using namespace dlbridge::jit;
using dlbridge::testing::TensorView;

namespace {

constexpr const char *kSource = R"mlir(
func.func @matmul(%a: tensor<?x?xf32> {dlpack.name = "a"},
                  %b: tensor<?x?xf32> {dlpack.name = "b"}) -> tensor<?x?xf32>
    attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @add(%a: tensor<?xf32> {dlpack.name = "a"},
               %b: tensor<?xf32> {dlpack.name = "b"}) -> tensor<?xf32>
    attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.add ins(%a, %b : tensor<?xf32>, tensor<?xf32>)
                  outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// The output is sized from %a; only %b is read.
func.func @negate_into_a_shape(%a: tensor<?xf32> {dlpack.name = "a"},
                               %b: tensor<?xf32> {dlpack.name = "b"})
    -> tensor<?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.negf ins(%b : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @window(%a: tensor<?xf32> {dlpack.name = "a"},
                  %offset: index {dlpack.name = "offset"}) -> tensor<4xf32>
    attributes {dlpack.entry} {
  %s = tensor.extract_slice %a[%offset] [4] [1] : tensor<?xf32> to tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.copy ins(%s : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @square(%n: index {dlpack.name = "n"}) -> tensor<?x?xf64>
    attributes {dlpack.entry} {
  %one = arith.constant 1.0 : f64
  %e = tensor.empty(%n, %n) : tensor<?x?xf64>
  %r = linalg.fill ins(%one : f64) outs(%e : tensor<?x?xf64>) -> tensor<?x?xf64>
  return %r : tensor<?x?xf64>
}

// A temporary, then the check that fails: the temporary must not leak.
func.func @scaled_sum(%a: tensor<?xf32> {dlpack.name = "a"},
                      %b: tensor<?xf32> {dlpack.name = "b"}) -> tensor<?xf32>
    attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %twice = linalg.add ins(%a, %a : tensor<?xf32>, tensor<?xf32>)
                      outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %e2 = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.mul ins(%twice, %b : tensor<?xf32>, tensor<?xf32>)
                  outs(%e2 : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
)mlir";

class ShapeCheckTest : public dlbridge::testing::EntryCallTest {
protected:
  static Kernel compileEntry(const char *entry) {
    return EntryCallTest::compileEntry(kSource, entry);
  }

  int32_t call(const Kernel &kernel, std::vector<void *> args) {
    return EntryCallTest::call(kernel, std::move(args), results);
  }

  void TearDown() override {
    for (void *result : results)
      dlrt_release_managed(static_cast<DLManagedTensorVersioned *>(result));
  }

  std::vector<void *> results;
};

::testing::AssertionResult contains(const char *text, const char *part) {
  if (std::string(text).find(part) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "'" << text << "' does not contain '" << part << "'";
}

float at(void *result, int64_t index) {
  const DLTensor &t =
      static_cast<DLManagedTensorVersioned *>(result)->dl_tensor;
  return reinterpret_cast<const float *>(static_cast<const char *>(t.data) +
                                         t.byte_offset)[index];
}

TEST_F(ShapeCheckTest, MatmulContractionDimsMustMatch) {
  Kernel matmul = compileEntry("matmul");
  std::vector<float> a(12, 1.0f), b(30, 1.0f);
  TensorView av = TensorView::of(a, {3, 4}), bv = TensorView::of(b, {5, 6});
  EXPECT_EQ(call(matmul, {av.get(), bv.get()}), DLRT_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(results[0], nullptr);
  EXPECT_TRUE(contains(ctx.error,
                       "'linalg.matmul' at <source>:12:8: dimension #0 of "
                       "input/output operand #1 is incompatible with "
                       "inferred dimension size; operand shapes: (3, 4) "
                       "(5, 6) (3, 6)"));
  EXPECT_STREQ(dlrt_last_error(), ctx.error);

  dlrt_call_ctx_init(&ctx, {kDLCPU, 0}, nullptr);
  TensorView fits = TensorView::of(b, {4, 6});
  ASSERT_EQ(call(matmul, {av.get(), fits.get()}), 0) << ctx.error;
  EXPECT_EQ(at(results[0], 0), 4.0f);
}

TEST_F(ShapeCheckTest, ElementwiseDimsMustBeEqual) {
  Kernel add = compileEntry("add");
  std::vector<float> a(5, 1.0f), b(7, 2.0f);
  TensorView av = TensorView::of(a, {5}), bv = TensorView::of(b, {7});
  EXPECT_EQ(call(add, {av.get(), bv.get()}), DLRT_ERR_SHAPE_MISMATCH);
  EXPECT_TRUE(contains(ctx.error, "'linalg.add' at <source>:"));
  EXPECT_TRUE(contains(ctx.error, "operand shapes: (5,) (7,) (5,)"));

  dlrt_call_ctx_init(&ctx, {kDLCPU, 0}, nullptr);
  TensorView same = TensorView::of(b, {5});
  ASSERT_EQ(call(add, {av.get(), same.get()}), 0) << ctx.error;
  EXPECT_EQ(at(results[0], 4), 3.0f);
}

TEST_F(ShapeCheckTest, EmptySizedFromOneArgumentUsedWithAnother) {
  Kernel negate = compileEntry("negate_into_a_shape");
  std::vector<float> a(8, 0.0f), b(3, 1.0f);
  TensorView av = TensorView::of(a, {8}), bv = TensorView::of(b, {3});
  EXPECT_EQ(call(negate, {av.get(), bv.get()}), DLRT_ERR_SHAPE_MISMATCH);
  EXPECT_TRUE(contains(ctx.error, "operand shapes: (3,) (8,)"));
}

TEST_F(ShapeCheckTest, SliceOutOfBounds) {
  Kernel window = compileEntry("window");
  std::vector<float> a = {0, 1, 2, 3, 4, 5};
  TensorView av = TensorView::of(a, {6});
  intptr_t offset = 3;
  EXPECT_EQ(call(window, {av.get(), &offset}), DLRT_ERR_SHAPE_MISMATCH);
  EXPECT_TRUE(contains(ctx.error, "'tensor.extract_slice' at <source>:"));
  EXPECT_TRUE(contains(ctx.error, "operand shapes: (6,)"));

  dlrt_call_ctx_init(&ctx, {kDLCPU, 0}, nullptr);
  offset = 2;
  ASSERT_EQ(call(window, {av.get(), &offset}), 0) << ctx.error;
  EXPECT_EQ(at(results[0], 3), 5.0f);
}

TEST_F(ShapeCheckTest, ByteSizeOverflowIsOutOfMemory) {
  Kernel square = compileEntry("square");
  intptr_t n = intptr_t(1) << 32;
  EXPECT_EQ(call(square, {&n}), DLRT_ERR_OUT_OF_MEMORY);
  EXPECT_TRUE(contains(ctx.error, "of shape (4294967296, 4294967296)"));
  EXPECT_TRUE(contains(ctx.error, "overflows int64"));

  dlrt_call_ctx_init(&ctx, {kDLCPU, 0}, nullptr);
  n = -3;
  EXPECT_EQ(call(square, {&n}), DLRT_ERR_SHAPE_MISMATCH);
  EXPECT_TRUE(contains(ctx.error, "negative dimensions are not allowed"));
}

TEST_F(ShapeCheckTest, AllocationTooLargeForMemoryIsOutOfMemory) {
  Kernel square = compileEntry("square");
  // 2^23 x 2^23 doubles: 2^49 bytes, beyond any address space here.
  intptr_t n = intptr_t(1) << 23;
  EXPECT_EQ(call(square, {&n}), DLRT_ERR_OUT_OF_MEMORY);
  EXPECT_TRUE(contains(ctx.error, "cannot allocate"));
}

/// Allocator hooks that fail after `budget` allocations and count the rest.
struct FailingAllocator {
  static void *alloc(void *user, size_t bytes, size_t alignment, DLDevice,
                     void *) {
    auto *self = static_cast<FailingAllocator *>(user);
    if (self->budget-- <= 0)
      return nullptr;
    self->live++;
    return std::aligned_alloc(alignment,
                              (bytes + alignment - 1) / alignment * alignment);
  }
  static void free(void *user, void *ptr, DLDevice, void *) {
    static_cast<FailingAllocator *>(user)->live--;
    std::free(ptr);
  }
  std::atomic<int> budget{0}, live{0};
};

TEST_F(ShapeCheckTest, FailingAllocatorEndsTheCall) {
  Kernel add = compileEntry("add");
  FailingAllocator allocator;
  dlrt_allocator hooks = {&FailingAllocator::alloc, &FailingAllocator::free,
                          &allocator};
  ctx.allocator = &hooks;
  std::vector<float> a(5, 1.0f);
  TensorView av = TensorView::of(a, {5}), bv = TensorView::of(a, {5});
  EXPECT_EQ(call(add, {av.get(), bv.get()}), DLRT_ERR_OUT_OF_MEMORY);
  EXPECT_EQ(results[0], nullptr);
  EXPECT_TRUE(contains(ctx.error, "cannot allocate"));
  EXPECT_TRUE(contains(ctx.error, "bytes aligned to 64 for a buffer"));
  EXPECT_EQ(allocator.live, 0);
}

TEST_F(ShapeCheckTest, BuffersAllocatedBeforeAFailedCheckAreFreed) {
  Kernel scaledSum = compileEntry("scaled_sum");
  FailingAllocator allocator;
  allocator.budget = 100;
  dlrt_allocator hooks = {&FailingAllocator::alloc, &FailingAllocator::free,
                          &allocator};
  ctx.allocator = &hooks;
  std::vector<float> a(5, 1.0f), b(7, 1.0f);
  TensorView av = TensorView::of(a, {5}), bv = TensorView::of(b, {7});
  EXPECT_EQ(call(scaledSum, {av.get(), bv.get()}), DLRT_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(allocator.live, 0);
}

} // namespace
