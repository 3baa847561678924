//===- EntryPointTest.cpp - Entry points run on hand-built DLTensors ------===//
//
// Part of dlbridge. Memref functions wrapped by --dlbridge-expose-entry-points
// and lowered by --convert-dlpack-to-llvm, JIT-compiled by MLIR's
// ExecutionEngine and called with DLTensors of every layout the memref types
// admit; every rejection once, with its status and message; results freed
// exactly once.
//
//===----------------------------------------------------------------------===//

#include "EntryCallTest.h"
#include "TensorBuilder.h"

#include "dlbridge/JIT/Kernel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <numeric>
#include <string>

using namespace dlbridge::jit;
using dlbridge::testing::TensorView;

namespace {

/// Memref functions covering identity and strided layouts, static and
/// dynamic dims, rank 0 to 2, scalars in and out, a written parameter and
/// fresh results.
constexpr const char *kSource = R"mlir(
// out = alpha * x, fresh.
func.func @scale(%x: memref<?xf32, strided<[?], offset: ?>> {dlpack.name = "x"},
                 %alpha: f32 {dlpack.name = "alpha"})
    -> (memref<?xf32> {dlpack.name = "out"}) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32, strided<[?], offset: ?>>
  %out = memref.alloc(%n) : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32, strided<[?], offset: ?>>
    %s = arith.mulf %v, %alpha : f32
    memref.store %s, %out[%i] : memref<?xf32>
  }
  return %out : memref<?xf32>
}

// out = a + b, any layouts in, a compact output written in place.
func.func @add(%a: memref<?x?xf32, strided<[?, ?], offset: ?>> {dlpack.name = "a"},
               %b: memref<?x?xf32, strided<[?, ?], offset: ?>> {dlpack.name = "b"},
               %out: memref<?x?xf32> {dlpack.name = "out"}) attributes {dlpack.entry} {
  linalg.add ins(%a, %b : memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>)
             outs(%out : memref<?x?xf32>)
  return
}

// Sum of a compact 2x3 block of int32, as a scalar result.
func.func @sum_fixed(%x: memref<2x3xi32> {dlpack.name = "x"}) -> i32 attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0 : i32
  %sum = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %zero) -> i32 {
    %row = scf.for %j = %c0 to %c3 step %c1 iter_args(%r = %acc) -> i32 {
      %v = memref.load %x[%i, %j] : memref<2x3xi32>
      %n = arith.addi %r, %v : i32
      scf.yield %n : i32
    }
    scf.yield %row : i32
  }
  return %sum : i32
}

// 0-d in, 0-d and scalar out.
func.func @twice(%x: memref<f64> {dlpack.name = "x"}) -> (memref<f64>, f64) attributes {dlpack.entry} {
  %v = memref.load %x[] : memref<f64>
  %d = arith.addf %v, %v : f64
  %out = memref.alloc() : memref<f64>
  memref.store %d, %out[] : memref<f64>
  return %out, %d : memref<f64>, f64
}
)mlir";

class EntryPointTest : public dlbridge::testing::EntryCallTest {
protected:
  static Kernel compileEntry(const char *entry) {
    return EntryCallTest::compileEntry(kSource, entry);
  }
};

/// Reads element `index` of a 1-D float result.
float at(DLManagedTensorVersioned *result, int64_t index) {
  const DLTensor &t = result->dl_tensor;
  auto *base = static_cast<const char *>(t.data) + t.byte_offset;
  int64_t stride = t.strides ? t.strides[0] : 1;
  return reinterpret_cast<const float *>(base)[index * stride];
}

TEST_F(EntryPointTest, ContiguousInFreshResultOut) {
  Kernel scale = compileEntry("scale");
  std::vector<float> x = {1, 2, 3, 4};
  TensorView xv = TensorView::of(x, {4});
  float alpha = 2.5f;
  std::vector<void *> results;
  ASSERT_EQ(call(scale, {xv.get(), &alpha}, results), 0) << ctx.error;
  auto *out = static_cast<DLManagedTensorVersioned *>(results[0]);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->version.major, DLPACK_MAJOR_VERSION);
  EXPECT_EQ(out->version.minor, DLPACK_MINOR_VERSION);
  EXPECT_EQ(out->dl_tensor.ndim, 1);
  EXPECT_EQ(out->dl_tensor.shape[0], 4);
  EXPECT_EQ(out->dl_tensor.dtype.code, kDLFloat);
  EXPECT_EQ(out->dl_tensor.device.device_type, kDLCPU);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(out->dl_tensor.data) % 64, 0u);
  for (int i = 0; i < 4; ++i)
    EXPECT_FLOAT_EQ(at(out, i), x[i] * alpha);
  out->deleter(out);
}

TEST_F(EntryPointTest, StridesNullSlicedNegativeAndBroadcast) {
  Kernel scale = compileEntry("scale");
  std::vector<float> x = {0, 1, 2, 3, 4, 5, 6, 7};
  float alpha = 1.0f;
  struct Case {
    const char *what;
    std::vector<int64_t> strides;
    uint64_t byteOffset;
    std::vector<float> expected;
  };
  std::vector<Case> cases = {
      {"strides NULL", {}, 0, {0, 1, 2, 3}},
      {"sliced with byte_offset", {1}, 3 * sizeof(float), {3, 4, 5, 6}},
      {"every other element", {2}, sizeof(float), {1, 3, 5, 7}},
      {"reversed (negative stride)", {-1}, 7 * sizeof(float), {7, 6, 5, 4}},
      {"broadcast (zero stride)", {0}, 5 * sizeof(float), {5, 5, 5, 5}},
  };
  for (Case &c : cases) {
    SCOPED_TRACE(c.what);
    TensorView xv = TensorView::of(x, {4}, c.strides, c.byteOffset);
    std::vector<void *> results;
    ASSERT_EQ(call(scale, {xv.get(), &alpha}, results), 0) << ctx.error;
    auto *out = static_cast<DLManagedTensorVersioned *>(results[0]);
    for (int i = 0; i < 4; ++i)
      EXPECT_FLOAT_EQ(at(out, i), c.expected[i]);
    dlrt_release_managed(out);
  }
}

TEST_F(EntryPointTest, TransposedAndBroadcastInputsIntoCompactOutput) {
  Kernel add = compileEntry("add");
  // a is the transpose of a row-major 3x2 buffer; b broadcasts one row.
  std::vector<float> a = {0, 1, 2, 3, 4, 5};
  std::vector<float> b = {10, 20, 30};
  std::vector<float> out(6, -1);
  TensorView av = TensorView::of(a, {2, 3}, {1, 2});
  TensorView bv = TensorView::of(b, {2, 3}, {0, 1});
  TensorView outv = TensorView::of(out, {2, 3});
  std::vector<void *> results;
  ASSERT_EQ(call(add, {av.get(), bv.get(), outv.get()}, results), 0)
      << ctx.error;
  EXPECT_EQ(out, (std::vector<float>{10, 22, 34, 11, 23, 35}));
}

TEST_F(EntryPointTest, SizeOneDimsTakeAnyStrideUnderIdentityLayout) {
  Kernel add = compileEntry("add");
  std::vector<float> a = {1, 2, 3}, b = {4, 5, 6}, out(3);
  TensorView av = TensorView::of(a, {1, 3});
  TensorView bv = TensorView::of(b, {1, 3});
  TensorView outv = TensorView::of(out, {1, 3}, {999, 1});
  std::vector<void *> results;
  ASSERT_EQ(call(add, {av.get(), bv.get(), outv.get()}, results), 0)
      << ctx.error;
  EXPECT_EQ(out, (std::vector<float>{5, 7, 9}));
}

TEST_F(EntryPointTest, StaticShapeAndScalarResult) {
  Kernel sum = compileEntry("sum_fixed");
  std::vector<int32_t> x = {1, 2, 3, 4, 5, 6};
  TensorView xv = TensorView::of(x, {2, 3});
  int32_t total = 0;
  std::vector<void *> args = {xv.get()};
  void *results[] = {&total};
  ASSERT_EQ(sum.call(args.data(), results, &ctx), 0) << ctx.error;
  EXPECT_EQ(total, 21);
}

TEST_F(EntryPointTest, ZeroDimensionalWithNullShape) {
  Kernel twice = compileEntry("twice");
  double x = 4.25;
  TensorView xv(&x, {kDLFloat, 64, 1}, {});
  double scalar = 0;
  std::vector<void *> args = {xv.get()};
  void *results[] = {nullptr, &scalar};
  ASSERT_EQ(twice.call(args.data(), results, &ctx), 0) << ctx.error;
  auto *out = static_cast<DLManagedTensorVersioned *>(results[0]);
  EXPECT_EQ(out->dl_tensor.ndim, 0);
  EXPECT_DOUBLE_EQ(*static_cast<double *>(out->dl_tensor.data), 8.5);
  EXPECT_DOUBLE_EQ(scalar, 8.5);
  out->deleter(out);
}

TEST_F(EntryPointTest, ZeroSizeWithNullData) {
  Kernel scale = compileEntry("scale");
  TensorView xv(nullptr, {kDLFloat, 32, 1}, {0});
  float alpha = 3;
  std::vector<void *> results;
  ASSERT_EQ(call(scale, {xv.get(), &alpha}, results), 0) << ctx.error;
  auto *out = static_cast<DLManagedTensorVersioned *>(results[0]);
  EXPECT_EQ(out->dl_tensor.shape[0], 0);
  out->deleter(out);
}

/// One rejected call: the entry's status and full message.
struct Rejection {
  const char *what;
  int32_t status;
  const char *message;
};

TEST_F(EntryPointTest, EveryRejectionHasItsStatusAndMessage) {
  Kernel add = compileEntry("add");
  Kernel sum = compileEntry("sum_fixed");
  std::vector<float> f(16, 1.0f);
  std::vector<int32_t> i32(6, 1);
  std::vector<int64_t> i64(6, 1);
  int32_t total;
  auto callSum = [&](TensorView &view) {
    std::vector<void *> args = {view.get()};
    void *results[] = {&total};
    dlrt_call_ctx_init(&ctx, {kDLCPU, 0}, nullptr);
    return sum.call(args.data(), results, &ctx);
  };
  auto callAdd = [&](TensorView &out, const uint64_t *flags = nullptr) {
    TensorView a = TensorView::of(f, {2, 2}), b = TensorView::of(f, {2, 2});
    dlrt_call_ctx_init(&ctx, {kDLCPU, 0}, nullptr);
    ctx.arg_flags = flags;
    std::vector<void *> results;
    std::vector<void *> args = {a.get(), b.get(), out.get()};
    return add.call(args.data(), results.data(), &ctx);
  };
  auto expectRejected = [&](int32_t status, const Rejection &expected) {
    SCOPED_TRACE(expected.what);
    EXPECT_EQ(status, expected.status);
    EXPECT_EQ(ctx.status, expected.status);
    EXPECT_STREQ(ctx.error, expected.message);
  };

  {
    TensorView v = TensorView::of(i32, {6});
    expectRejected(callSum(v), {"rank", DLRT_ERR_RANK,
                                "argument 0 'x': expected rank 2, got rank 1"});
  }
  {
    TensorView v = TensorView::of(i64, {2, 3});
    expectRejected(callSum(v), {"dtype", DLRT_ERR_DTYPE,
                                "argument 0 'x': expected int32, got int64"});
  }
  {
    TensorView v = TensorView::of(i32, {3, 2});
    expectRejected(callSum(v), {"static dim", DLRT_ERR_SHAPE,
                                "argument 0 'x': dim 0 expected 2, got 3"});
  }
  {
    TensorView v = TensorView::of(i32, {2, 3}, {1, 2});
    expectRejected(
        callSum(v),
        {"layout", DLRT_ERR_LAYOUT,
         "argument 0 'x': dim 1 expected stride 1 (compact row-major), got "
         "2"});
  }
  {
    TensorView v(i32.data(), {kDLInt, 32, 1}, {2, 3}, {}, 0, {kDLCUDA, 0});
    expectRejected(callSum(v), {"device", DLRT_ERR_DEVICE,
                                "argument 0 'x': expected device cpu:0, got "
                                "cuda:0"});
  }
  {
    TensorView v(i32.data(), {kDLInt, 32, 1}, {2, 3}, {}, 2);
    expectRejected(callSum(v),
                   {"alignment", DLRT_ERR_ALIGNMENT,
                    "argument 0 'x': expected byte_offset a multiple of 4, "
                    "got 2"});
  }
  {
    TensorView v(nullptr, {kDLInt, 32, 1}, {2, 3});
    expectRejected(callSum(v),
                   {"NULL data", DLRT_ERR_NULL_DATA,
                    "argument 0 'x': expected data for a non-empty tensor, "
                    "got NULL"});
  }
  {
    int64_t huge = int64_t(1) << 62;
    TensorView out(f.data(), {kDLFloat, 32, 1}, {4, huge}, {huge, 1});
    expectRejected(callAdd(out),
                   {"overflow", DLRT_ERR_OVERFLOW,
                    "argument 2 'out': expected addressed bytes within "
                    "int64, got an overflow in dim 0"});
  }
  {
    TensorView out = TensorView::of(f, {2, 2});
    const uint64_t flags[] = {0, 0, DLPACK_FLAG_BITMASK_READ_ONLY};
    expectRejected(callAdd(out, flags),
                   {"read-only", DLRT_ERR_READ_ONLY,
                    "argument 2 'out': expected a writable tensor, got a "
                    "READ_ONLY one"});
  }
  {
    std::vector<void *> args = {nullptr};
    void *results[] = {&total};
    dlrt_call_ctx_init(&ctx, {kDLCPU, 0}, nullptr);
    expectRejected(sum.call(args.data(), results, &ctx),
                   {"NULL tensor", DLRT_ERR_INVALID_ARGUMENT,
                    "argument 0 'x': expected a DLTensor, got NULL"});
  }
}

TEST_F(EntryPointTest, NothingRunsWhenALaterArgumentFails) {
  Kernel add = compileEntry("add");
  std::vector<float> a(4, 1), out(4, -1);
  TensorView av = TensorView::of(a, {2, 2}), bv = TensorView::of(a, {4});
  TensorView outv = TensorView::of(out, {2, 2});
  std::vector<void *> results;
  EXPECT_NE(call(add, {av.get(), bv.get(), outv.get()}, results), 0);
  EXPECT_EQ(out, std::vector<float>(4, -1));
}

/// Counts allocations and frees made through a call's allocator hooks.
struct CountingAllocator {
  static void *alloc(void *user, size_t bytes, size_t alignment, DLDevice,
                     void *) {
    static_cast<CountingAllocator *>(user)->allocated++;
    return std::aligned_alloc(alignment,
                              (bytes + alignment - 1) / alignment * alignment);
  }
  static void free(void *user, void *ptr, DLDevice, void *) {
    static_cast<CountingAllocator *>(user)->freed++;
    std::free(ptr);
  }
  std::atomic<int> allocated{0}, freed{0};
};

TEST_F(EntryPointTest, ResultsAreFreedExactlyOnceByTheirDeleter) {
  Kernel scale = compileEntry("scale");
  CountingAllocator counter;
  dlrt_allocator hooks = {&CountingAllocator::alloc, &CountingAllocator::free,
                          &counter};
  ctx.allocator = &hooks;
  std::vector<float> x = {1, 2, 3};
  TensorView xv = TensorView::of(x, {3});
  float alpha = 1;
  std::vector<void *> results;
  ASSERT_EQ(call(scale, {xv.get(), &alpha}, results), 0) << ctx.error;
  EXPECT_EQ(counter.allocated, 1);
  EXPECT_EQ(counter.freed, 0);
  auto *out = static_cast<DLManagedTensorVersioned *>(results[0]);
  out->deleter(out);
  EXPECT_EQ(counter.freed, 1);
}

} // namespace
