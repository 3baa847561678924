//===- BoolsAsBytesTest.cpp - Bool tensors are bytes on every path --------===//
//
// Part of dlbridge. DLPack bools are one byte each. Entries that read and
// write `memref<...xi1>` through every kind of memory access (scalar,
// vector.load/store, maskedload/maskedstore, transfer_read/write,
// gather/scatter, expandload/compressstore, linalg on tensors) are called
// with bool DLTensors whose bytes are known; each output byte is checked,
// and bytes the entry must not write keep a sentinel.
//
//===----------------------------------------------------------------------===//

#include "TensorBuilder.h"

#include "dlbridge/JIT/Kernel.h"

#include <gtest/gtest.h>

#include <vector>

using namespace dlbridge::jit;
using dlbridge::testing::TensorView;

namespace {

/// Each entry writes the negation of what it reads, so a result byte says
/// both that it was read as a byte and that it was written as one.
constexpr const char *kSource = R"mlir(
func.func @scalar(%x: memref<8xi1>, %y: memref<8xi1>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %true = arith.constant true
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %x[%i] : memref<8xi1>
    %n = arith.xori %v, %true : i1
    memref.store %n, %y[%i] : memref<8xi1>
  }
  return
}

func.func @vector_load_store(%x: memref<8xi1>, %y: memref<8xi1>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %true = arith.constant dense<true> : vector<8xi1>
  %v = vector.load %x[%c0] : memref<8xi1>, vector<8xi1>
  %n = arith.xori %v, %true : vector<8xi1>
  vector.store %n, %y[%c0] : memref<8xi1>, vector<8xi1>
  return
}

// Lanes 0-4 only; masked-off lanes read as the pass-through (true).
func.func @masked(%x: memref<8xi1>, %y: memref<8xi1>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %true = arith.constant dense<true> : vector<8xi1>
  %mask = vector.create_mask %c5 : vector<8xi1>
  %v = vector.maskedload %x[%c0], %mask, %true : memref<8xi1>, vector<8xi1>, vector<8xi1> into vector<8xi1>
  %n = arith.xori %v, %true : vector<8xi1>
  vector.maskedstore %y[%c0], %mask, %n : memref<8xi1>, vector<8xi1>, vector<8xi1>
  return
}

// 8 lanes over 6 elements: out-of-bounds lanes read the padding and are
// not written.
func.func @transfer(%x: memref<?xi1>, %y: memref<?xi1>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %false = arith.constant false
  %true = arith.constant dense<true> : vector<8xi1>
  %v = vector.transfer_read %x[%c0], %false : memref<?xi1>, vector<8xi1>
  %n = arith.xori %v, %true : vector<8xi1>
  vector.transfer_write %n, %y[%c0] : vector<8xi1>, memref<?xi1>
  return
}

// y[i] = !x[7 - i].
func.func @gather_scatter(%x: memref<8xi1>, %y: memref<8xi1>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %reversed = arith.constant dense<[7, 6, 5, 4, 3, 2, 1, 0]> : vector<8xindex>
  %identity = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : vector<8xindex>
  %true = arith.constant dense<true> : vector<8xi1>
  %false = arith.constant dense<false> : vector<8xi1>
  %v = vector.gather %x[%c0][%reversed], %true, %false : memref<8xi1>, vector<8xindex>, vector<8xi1>, vector<8xi1> into vector<8xi1>
  %n = arith.xori %v, %true : vector<8xi1>
  vector.scatter %y[%c0][%identity], %true, %n : memref<8xi1>, vector<8xindex>, vector<8xi1>, vector<8xi1>
  return
}

// Every other lane: x[0..3] expand into lanes 0, 2, 4, 6 and compress back
// into y[0..3].
func.func @expand_compress(%x: memref<8xi1>, %y: memref<8xi1>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %mask = arith.constant dense<[true, false, true, false, true, false, true, false]> : vector<8xi1>
  %true = arith.constant dense<true> : vector<8xi1>
  %false = arith.constant dense<false> : vector<8xi1>
  %v = vector.expandload %x[%c0], %mask, %false : memref<8xi1>, vector<8xi1>, vector<8xi1> into vector<8xi1>
  %n = arith.xori %v, %true : vector<8xi1>
  vector.compressstore %y[%c0], %mask, %n : memref<8xi1>, vector<8xi1>, vector<8xi1>
  return
}

// Tensors through linalg: a and not b, as a fresh bool tensor.
func.func @and_not(%a: tensor<?xi1>, %b: tensor<?xi1>) -> tensor<?xi1> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xi1>
  %init = tensor.empty(%n) : tensor<?xi1>
  %r = linalg.map ins(%a, %b : tensor<?xi1>, tensor<?xi1>) outs(%init : tensor<?xi1>)
    (%p: i1, %q: i1, %o: i1) {
      %true = arith.constant true
      %nq = arith.xori %q, %true : i1
      %v = arith.andi %p, %nq : i1
      linalg.yield %v : i1
    }
  return %r : tensor<?xi1>
}
)mlir";

constexpr DLDataType kBool = {kDLBool, 8, 1};
/// What the entries must leave alone.
constexpr uint8_t kUntouched = 7;

class BoolsAsBytesTest : public ::testing::Test {
protected:
  /// Calls `entry` on x = `input` and y = sentinel bytes; returns y.
  std::vector<uint8_t> run(const char *entry, std::vector<uint8_t> input) {
    CompileOptions options;
    options.cache = false;
    CompileResult compiled = compile(kSource, entry, options);
    EXPECT_TRUE(compiled) << compiled.error;
    if (!compiled)
      return {};
    std::vector<uint8_t> output(input.size(), kUntouched);
    int64_t size = static_cast<int64_t>(input.size());
    TensorView x(input.data(), kBool, {size});
    TensorView y(output.data(), kBool, {size});
    void *args[] = {x.get(), y.get()};
    dlrt_call_ctx ctx;
    dlrt_call_ctx_init(&ctx, {kDLCPU, 0}, nullptr);
    EXPECT_EQ(compiled.kernel->call(args, nullptr, &ctx), 0) << ctx.error;
    return output;
  }

  /// The bytes of the issue: a vector<8xi1> load read them as the bits of
  /// the first byte, [1 0 0 0 0 0 0 0].
  std::vector<uint8_t> input = {1, 1, 1, 1, 0, 0, 0, 1};
};

TEST_F(BoolsAsBytesTest, ScalarLoadsAndStores) {
  EXPECT_EQ(run("scalar", input),
            (std::vector<uint8_t>{0, 0, 0, 0, 1, 1, 1, 0}));
}

TEST_F(BoolsAsBytesTest, VectorLoadAndStore) {
  EXPECT_EQ(run("vector_load_store", input),
            (std::vector<uint8_t>{0, 0, 0, 0, 1, 1, 1, 0}));
}

TEST_F(BoolsAsBytesTest, MaskedLoadAndStore) {
  EXPECT_EQ(run("masked", input),
            (std::vector<uint8_t>{0, 0, 0, 0, 1, kUntouched, kUntouched,
                                  kUntouched}));
}

TEST_F(BoolsAsBytesTest, TransferReadAndWrite) {
  EXPECT_EQ(run("transfer", {1, 1, 0, 1, 0, 0}),
            (std::vector<uint8_t>{0, 0, 1, 0, 1, 1}));
  EXPECT_EQ(run("transfer", input),
            (std::vector<uint8_t>{0, 0, 0, 0, 1, 1, 1, 0}));
}

TEST_F(BoolsAsBytesTest, GatherAndScatter) {
  EXPECT_EQ(run("gather_scatter", input),
            (std::vector<uint8_t>{0, 1, 1, 1, 0, 0, 0, 0}));
}

TEST_F(BoolsAsBytesTest, ExpandLoadAndCompressStore) {
  EXPECT_EQ(run("expand_compress", {1, 0, 1, 1, 1, 1, 1, 1}),
            (std::vector<uint8_t>{0, 1, 0, 0, kUntouched, kUntouched,
                                  kUntouched, kUntouched}));
}

TEST_F(BoolsAsBytesTest, LinalgOnBoolTensors) {
  CompileOptions options;
  options.cache = false;
  CompileResult compiled = compile(kSource, "and_not", options);
  ASSERT_TRUE(compiled) << compiled.error;
  std::vector<uint8_t> a = {1, 1, 0, 0, 1, 1, 0, 1, 1};
  std::vector<uint8_t> b = {1, 0, 1, 0, 0, 0, 0, 0, 1};
  for (bool contiguous : {true, false}) {
    SCOPED_TRACE(contiguous ? "contiguous" : "strided");
    // The strided call views every element through stride 1 but with
    // explicit strides, which picks the general specialisation.
    std::vector<int64_t> strides =
        contiguous ? std::vector<int64_t>{} : std::vector<int64_t>{1};
    TensorView av(a.data(), kBool, {9}, strides);
    TensorView bv(b.data(), kBool, {9}, strides);
    void *args[] = {av.get(), bv.get()};
    void *results[] = {nullptr};
    dlrt_call_ctx ctx;
    dlrt_call_ctx_init(&ctx, {kDLCPU, 0}, nullptr);
    ASSERT_EQ(compiled.kernel->call(args, results, &ctx), 0) << ctx.error;
    auto *out = static_cast<DLManagedTensorVersioned *>(results[0]);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(out->dl_tensor.dtype.code, kDLBool);
    EXPECT_EQ(out->dl_tensor.dtype.bits, 8);
    auto *bytes = static_cast<const uint8_t *>(out->dl_tensor.data) +
                  out->dl_tensor.byte_offset;
    EXPECT_EQ(std::vector<uint8_t>(bytes, bytes + 9),
              (std::vector<uint8_t>{0, 1, 0, 0, 1, 1, 0, 1, 0}));
    out->deleter(out);
  }
}

} // namespace
