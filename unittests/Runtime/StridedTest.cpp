//===- StridedTest.cpp - The compactness rule and strided copies ----------===//
//
// Part of dlbridge's runtime unit tests.
//
//===----------------------------------------------------------------------===//
//
// dlrt_is_compact must agree with what identity layouts accept
// (dlrt_check_tensor), and dlrt_copy_strided must move every element of any
// layout to any other.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Runtime/dlrt.h"

#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr DLDataType kF32 = {kDLFloat, 32, 1};

DLTensor view(void *data, std::vector<int64_t> &shape,
              std::vector<int64_t> *strides = nullptr, DLDataType dtype = kF32,
              uint64_t byteOffset = 0, DLDevice device = {kDLCPU, 0}) {
  return DLTensor{data,
                  device,
                  static_cast<int32_t>(shape.size()),
                  dtype,
                  shape.empty() ? nullptr : shape.data(),
                  strides ? strides->data() : nullptr,
                  byteOffset};
}

/// Whether an identity-layout parameter of the tensor's rank and dtype
/// accepts it: the rule dlrt_is_compact states on its own.
bool identityAccepts(const DLTensor &tensor) {
  dlrt_param_desc desc{};
  desc.name = "x";
  desc.kind = DLRT_PARAM_TENSOR;
  desc.layout = DLRT_LAYOUT_IDENTITY;
  desc.access = DLRT_ACCESS_READ;
  desc.rank = tensor.ndim;
  desc.dtype = tensor.dtype;
  desc.offset = DLRT_DYNAMIC;
  dlrt_call_ctx ctx;
  dlrt_call_ctx_init(&ctx, {kDLCPU, 0}, nullptr);
  return dlrt_check_tensor(&ctx, 0, &tensor, &desc) == DLRT_OK;
}

struct CompactCase {
  std::vector<int64_t> shape, strides;
  bool compact;
};

TEST(StridedTest, CompactRuleMatchesIdentityLayouts) {
  float data[64] = {};
  const CompactCase cases[] = {
      {{2, 3}, {3, 1}, true},
      {{2, 3}, {1, 2}, false},
      {{2, 3}, {-3, 1}, false},
      {{2, 3}, {3, -1}, false},
      {{2, 3}, {0, 1}, false},
      // Size-1 dims take any stride.
      {{1, 3}, {-7, 1}, true},
      {{2, 1, 3}, {3, 0, 1}, true},
      {{3, 1}, {1, 123456789}, true},
      {{1, 1}, {0, -5}, true},
      // A zero-size dim makes any strides compact.
      {{0, 3}, {5, 7}, true},
      {{4, 0}, {-1, 0}, true},
      // Rank 0 and rank 1.
      {{}, {}, true},
      {{5}, {1}, true},
      {{5}, {2}, false},
  };
  for (const CompactCase &c : cases) {
    std::vector<int64_t> shape = c.shape, strides = c.strides;
    DLTensor t = view(data, shape, &strides);
    EXPECT_EQ(dlrt_is_compact(&t), c.compact)
        << ::testing::PrintToString(c.shape) << " "
        << ::testing::PrintToString(c.strides);
    EXPECT_EQ(identityAccepts(t), c.compact) << dlrt_last_error();
  }
}

TEST(StridedTest, CompactIgnoresOffsetAndDtypeAndTakesNullStrides) {
  std::vector<int64_t> shape = {2, 3};
  int32_t data[8] = {};
  DLTensor t = view(data, shape, nullptr, {kDLInt, 32, 1}, 8);
  EXPECT_TRUE(dlrt_is_compact(&t));
  std::vector<int64_t> strides = {6, 2};
  DLTensor lanes = view(data, shape, &strides, {kDLFloat, 32, 2});
  // Strides count elements, whatever their lanes.
  EXPECT_FALSE(dlrt_is_compact(&lanes));
  strides = {3, 1};
  EXPECT_TRUE(dlrt_is_compact(&lanes));
}

TEST(StridedTest, MalformedTensorsAreNotCompact) {
  EXPECT_FALSE(dlrt_is_compact(nullptr));
  float data[4] = {};
  std::vector<int64_t> shape = {2, 2};
  DLTensor noShape = view(data, shape);
  noShape.shape = nullptr;
  EXPECT_FALSE(dlrt_is_compact(&noShape));
  DLTensor negativeRank = view(data, shape);
  negativeRank.ndim = -1;
  EXPECT_FALSE(dlrt_is_compact(&negativeRank));
  std::vector<int64_t> negative = {-2, 2};
  DLTensor negativeDim = view(data, negative);
  EXPECT_FALSE(dlrt_is_compact(&negativeDim));
}

TEST(StridedTest, CopiesAnyLayoutToCompactAndBack) {
  // A 3x4 view of a 6x8 buffer: every other row reversed, every other column.
  std::vector<float> buffer(48);
  for (size_t i = 0; i < buffer.size(); ++i)
    buffer[i] = static_cast<float>(i);
  std::vector<int64_t> shape = {3, 4}, strides = {-16, 2};
  DLTensor source = view(buffer.data(), shape, &strides, kF32, 32 * 4);
  std::vector<float> compact(12);
  DLTensor target = view(compact.data(), shape);
  ASSERT_EQ(dlrt_copy_strided(&source, &target), DLRT_OK) << dlrt_last_error();
  const std::vector<float> expected = {32, 34, 36, 38, 16, 18,
                                       20, 22, 0,  2,  4,  6};
  EXPECT_EQ(compact, expected);

  std::vector<float> back(48, -1);
  DLTensor restored = view(back.data(), shape, &strides, kF32, 32 * 4);
  ASSERT_EQ(dlrt_copy_strided(&target, &restored), DLRT_OK);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j)
      EXPECT_EQ(back[32 - 16 * i + 2 * j], buffer[32 - 16 * i + 2 * j]);
  EXPECT_EQ(back[1], -1);
}

TEST(StridedTest, CopiesSizeOneDimsWithArbitraryStridesAndBroadcasts) {
  float data[3] = {1, 2, 3};
  std::vector<int64_t> shape = {1, 2, 3}, strides = {999, 0, 1};
  DLTensor source = view(data, shape, &strides);
  std::vector<float> out(6);
  DLTensor target = view(out.data(), shape);
  ASSERT_EQ(dlrt_copy_strided(&source, &target), DLRT_OK);
  EXPECT_EQ(out, (std::vector<float>{1, 2, 3, 1, 2, 3}));
}

TEST(StridedTest, CopiesEveryElementWidth) {
  // bool, bf16, complex128 and 4-lane vectors: only their byte size matters.
  uint8_t bools[4] = {1, 0, 0, 1};
  uint16_t bf16[4] = {0x3f80, 0x4000, 0x4040, 0x4080};
  std::complex<double> complex[4] = {{1, 2}, {3, 4}, {5, 6}, {7, 8}};
  float lanes[16];
  for (int i = 0; i < 16; ++i)
    lanes[i] = static_cast<float>(i);
  struct Case {
    void *data;
    DLDataType dtype;
    size_t elementBytes;
  } cases[] = {
      {bools, {kDLBool, 8, 1}, 1},
      {bf16, {kDLBfloat, 16, 1}, 2},
      {complex, {kDLComplex, 128, 1}, 16},
      {lanes, {kDLFloat, 32, 4}, 16},
  };
  for (const Case &c : cases) {
    // The transpose of a 2x2 array.
    std::vector<int64_t> shape = {2, 2}, strides = {1, 2};
    DLTensor source = view(c.data, shape, &strides, c.dtype);
    std::vector<char> out(4 * c.elementBytes);
    DLTensor target = view(out.data(), shape, nullptr, c.dtype);
    ASSERT_EQ(dlrt_copy_strided(&source, &target), DLRT_OK)
        << dlrt_last_error();
    const char *in = static_cast<const char *>(c.data);
    const size_t order[4] = {0, 2, 1, 3};
    for (size_t i = 0; i < 4; ++i)
      EXPECT_EQ(std::memcmp(out.data() + i * c.elementBytes,
                            in + order[i] * c.elementBytes, c.elementBytes),
                0)
          << i;
  }
}

TEST(StridedTest, EmptyTensorsCopyNothingAndNeedNoData) {
  std::vector<int64_t> shape = {0, 3}, strides = {5, -7};
  DLTensor source = view(nullptr, shape, &strides, kF32, 12);
  DLTensor target = view(nullptr, shape);
  EXPECT_EQ(dlrt_copy_strided(&source, &target), DLRT_OK) << dlrt_last_error();
  std::vector<int64_t> scalarShape;
  float one = 1, two = 0;
  DLTensor a = view(&one, scalarShape), b = view(&two, scalarShape);
  EXPECT_EQ(dlrt_copy_strided(&a, &b), DLRT_OK);
  EXPECT_EQ(two, 1);
}

TEST(StridedTest, RefusesMismatchesWithNamedSide) {
  float data[6] = {}, out[6] = {};
  std::vector<int64_t> shape = {2, 3}, other = {3, 2}, rank1 = {6};
  DLTensor source = view(data, shape);
  DLTensor transposed = view(out, other);
  EXPECT_EQ(dlrt_copy_strided(&source, &transposed), DLRT_ERR_SHAPE);
  EXPECT_STREQ(dlrt_last_error(), "target: dim 0 expected 2, got 3");
  DLTensor flat = view(out, rank1);
  EXPECT_EQ(dlrt_copy_strided(&source, &flat), DLRT_ERR_RANK);
  EXPECT_STREQ(dlrt_last_error(), "target: expected rank 2, got rank 1");
  DLTensor ints = view(out, shape, nullptr, {kDLInt, 32, 1});
  EXPECT_EQ(dlrt_copy_strided(&source, &ints), DLRT_ERR_DTYPE);
  EXPECT_STREQ(dlrt_last_error(), "target: expected float32, got int32");
  DLTensor unknown = view(out, shape, nullptr, {42, 32, 1});
  DLTensor unknownSource = view(data, shape, nullptr, {42, 32, 1});
  EXPECT_EQ(dlrt_copy_strided(&unknownSource, &unknown), DLRT_OK);
  EXPECT_EQ(dlrt_copy_strided(&source, &unknown), DLRT_ERR_DTYPE);
  EXPECT_STREQ(dlrt_last_error(),
               "target: expected float32, got unknown dtype code 42 (32 bits)");
}

TEST(StridedTest, RefusesWhatCheckDescriptorRefusesAndDeviceMemory) {
  float data[6] = {}, out[6] = {};
  std::vector<int64_t> shape = {2, 3};
  DLTensor target = view(out, shape);
  DLTensor misaligned = view(data, shape, nullptr, kF32, 2);
  EXPECT_EQ(dlrt_copy_strided(&misaligned, &target), DLRT_ERR_ALIGNMENT);
  EXPECT_STREQ(dlrt_last_error(),
               "source: expected byte_offset a multiple of 4, got 2");
  DLTensor subByte = view(data, shape, nullptr, {kDLBool, 1, 1});
  EXPECT_EQ(dlrt_copy_strided(&subByte, &target), DLRT_ERR_UNSUPPORTED);
  DLTensor noData = view(nullptr, shape);
  EXPECT_EQ(dlrt_copy_strided(&target, &noData), DLRT_ERR_NULL_DATA);
  EXPECT_STREQ(dlrt_last_error(),
               "target: expected data for a non-empty tensor, got NULL");
  EXPECT_EQ(dlrt_copy_strided(nullptr, &target), DLRT_ERR_INVALID_ARGUMENT);
  DLTensor device = view(data, shape, nullptr, kF32, 0, {kDLCUDA, 1});
  EXPECT_EQ(dlrt_copy_strided(&device, &target), DLRT_ERR_DEVICE);
  EXPECT_STREQ(dlrt_last_error(),
               "source: expected memory the host can access (cpu, cuda_host, "
               "cuda_managed, rocm_host), got cuda:1");
  DLTensor pinned = view(data, shape, nullptr, kF32, 0, {kDLCUDAHost, 0});
  EXPECT_EQ(dlrt_copy_strided(&pinned, &target), DLRT_OK);
  std::vector<int64_t> huge = {2, 3}, hugeStrides = {INT64_MAX / 2, 1};
  DLTensor overflowing = view(data, huge, &hugeStrides);
  EXPECT_EQ(dlrt_copy_strided(&overflowing, &target), DLRT_ERR_OVERFLOW);
}

TEST(StridedTest, TensorStridesAreOwnOrCompact) {
  std::vector<int64_t> shape = {2, 1, 3}, strides = {-9, 4, 2};
  float data[1] = {};
  int64_t out[3];
  DLTensor own = view(data, shape, &strides);
  ASSERT_EQ(dlrt_tensor_strides(&own, out), DLRT_OK);
  EXPECT_EQ(std::vector<int64_t>(out, out + 3), strides);
  DLTensor compact = view(data, shape);
  ASSERT_EQ(dlrt_tensor_strides(&compact, out), DLRT_OK);
  EXPECT_EQ(std::vector<int64_t>(out, out + 3),
            (std::vector<int64_t>{3, 3, 1}));
  // Dims after a zero-size one stride by 0; the empty tensor addresses nothing.
  std::vector<int64_t> empty = {4, 0, 5};
  DLTensor none = view(nullptr, empty);
  ASSERT_EQ(dlrt_tensor_strides(&none, out), DLRT_OK);
  EXPECT_EQ(std::vector<int64_t>(out, out + 3),
            (std::vector<int64_t>{0, 5, 1}));
  std::vector<int64_t> scalar;
  DLTensor rank0 = view(data, scalar);
  EXPECT_EQ(dlrt_tensor_strides(&rank0, nullptr), DLRT_OK);
  EXPECT_EQ(dlrt_tensor_strides(nullptr, out), DLRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(dlrt_tensor_strides(&compact, nullptr), DLRT_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(dlrt_last_error(), "expected a well-formed tensor and room for "
                                  "its strides, got NULL strides");
  DLTensor noShape = view(data, shape);
  noShape.shape = nullptr;
  EXPECT_EQ(dlrt_tensor_strides(&noShape, out), DLRT_ERR_INVALID_ARGUMENT);
}

} // namespace
