//===- CheckTest.cpp - dlrt_check_tensor and dtype names
//-------------------===//
//
// Part of dlbridge's runtime unit tests.
//
//===----------------------------------------------------------------------===//
//
// Every rule of dlrt_check_tensor rejects once with its status and full
// message, and every layout DLPack producers hand out is accepted where the
// parameter's memref type can view it.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Runtime/dlrt.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>

namespace {

constexpr int64_t kDyn = DLRT_DYNAMIC;
constexpr DLDataType kF32 = {kDLFloat, 32, 1};
constexpr DLDevice kCpu0 = {kDLCPU, 0};

std::string dtypeName(DLDataType dtype) {
  char buf[64];
  return dlrt_dtype_name(dtype, buf, sizeof(buf));
}

DLTensor makeTensor(void *data, int32_t ndim, int64_t *shape, int64_t *strides,
                    DLDataType dtype = kF32, DLDevice device = kCpu0,
                    uint64_t byteOffset = 0) {
  DLTensor tensor;
  tensor.data = data;
  tensor.device = device;
  tensor.ndim = ndim;
  tensor.dtype = dtype;
  tensor.shape = shape;
  tensor.strides = strides;
  tensor.byte_offset = byteOffset;
  return tensor;
}

dlrt_param_desc identityParam(const char *name, int32_t rank,
                              const int64_t *shape, DLDataType dtype = kF32,
                              int32_t access = DLRT_ACCESS_READ) {
  return dlrt_param_desc{name,
                         DLRT_PARAM_TENSOR,
                         DLRT_LAYOUT_IDENTITY,
                         access,
                         rank,
                         dtype,
                         0,
                         shape,
                         nullptr,
                         0};
}

dlrt_param_desc stridedParam(const char *name, int32_t rank,
                             const int64_t *shape, const int64_t *strides,
                             int64_t offset) {
  return dlrt_param_desc{name,
                         DLRT_PARAM_TENSOR,
                         DLRT_LAYOUT_STRIDED,
                         DLRT_ACCESS_READ,
                         rank,
                         kF32,
                         0,
                         shape,
                         strides,
                         offset};
}

class CheckTest : public ::testing::Test {
protected:
  /// Runs the check in a fresh call on `device` with `argFlags`.
  int32_t check(int32_t index, const DLTensor *tensor,
                const dlrt_param_desc *desc) {
    dlrt_call_ctx_init(&ctx, device, nullptr);
    ctx.arg_flags = argFlags;
    return dlrt_check_tensor(&ctx, index, tensor, desc);
  }

  ::testing::AssertionResult accepted(int32_t index, const DLTensor &tensor,
                                      const dlrt_param_desc &desc) {
    int32_t status = check(index, &tensor, &desc);
    if (status != DLRT_OK)
      return ::testing::AssertionFailure()
             << "rejected with " << dlrt_status_name(status) << ": "
             << ctx.error;
    if (ctx.status != DLRT_OK || ctx.error[0] != '\0')
      return ::testing::AssertionFailure() << "success left an error behind";
    return ::testing::AssertionSuccess();
  }

  ::testing::AssertionResult rejected(int32_t index, const DLTensor *tensor,
                                      const dlrt_param_desc *desc,
                                      int32_t expectedStatus,
                                      const std::string &expectedMessage) {
    int32_t status = check(index, tensor, desc);
    if (status != expectedStatus || ctx.status != expectedStatus ||
        expectedMessage != ctx.error || expectedMessage != dlrt_last_error())
      return ::testing::AssertionFailure()
             << "got status " << status << " (" << dlrt_status_name(status)
             << ") \"" << ctx.error << "\", expected " << expectedStatus << " ("
             << dlrt_status_name(expectedStatus) << ") \"" << expectedMessage
             << "\"";
    return ::testing::AssertionSuccess();
  }

  dlrt_call_ctx ctx;
  DLDevice device = kCpu0;
  const uint64_t *argFlags = nullptr;
  float storage[64] = {};
};

//===----------------------------------------------------------------------===//
// Accepted tensors
//===----------------------------------------------------------------------===//

TEST_F(CheckTest, AcceptsContiguous) {
  int64_t shape[] = {2, 3}, strides[] = {3, 1};
  const int64_t expected[] = {2, 3};
  EXPECT_TRUE(accepted(0, makeTensor(storage, 2, shape, strides),
                       identityParam("a", 2, expected)));
}

TEST_F(CheckTest, AcceptsNullStridesAsCompact) {
  int64_t shape[] = {2, 3};
  const int64_t dynamic[] = {kDyn, kDyn}, compact[] = {3, 1};
  EXPECT_TRUE(accepted(0, makeTensor(storage, 2, shape, nullptr),
                       identityParam("a", 2, dynamic)));
  EXPECT_TRUE(accepted(0, makeTensor(storage, 2, shape, nullptr),
                       stridedParam("a", 2, dynamic, compact, 0)));
}

TEST_F(CheckTest, AcceptsTransposedWhenStrided) {
  int64_t shape[] = {3, 2}, strides[] = {1, 3};
  const int64_t dynamic[] = {kDyn, kDyn};
  EXPECT_TRUE(accepted(0, makeTensor(storage, 2, shape, strides),
                       stridedParam("a", 2, dynamic, dynamic, kDyn)));
}

TEST_F(CheckTest, AcceptsSlicesWithByteOffset) {
  // Rows 1..2, columns 1..2 of a 4x4 matrix: offset 5 elements.
  int64_t shape[] = {2, 2}, strides[] = {4, 1};
  const int64_t dynamic[] = {kDyn, kDyn}, rowMajor4[] = {4, 1};
  DLTensor slice = makeTensor(storage, 2, shape, strides, kF32, kCpu0, 20);
  EXPECT_TRUE(accepted(0, slice, stridedParam("a", 2, dynamic, dynamic, kDyn)));
  EXPECT_TRUE(accepted(0, slice, stridedParam("a", 2, dynamic, rowMajor4, 5)));
  // A contiguous row past the first: identity memrefs start at data +
  // byte_offset.
  int64_t rowShape[] = {4};
  const int64_t four[] = {4};
  EXPECT_TRUE(
      accepted(0, makeTensor(storage, 1, rowShape, nullptr, kF32, kCpu0, 16),
               identityParam("a", 1, four)));
}

TEST_F(CheckTest, AcceptsNegativeStrides) {
  int64_t shape[] = {3, 2}, strides[] = {-2, -1};
  const int64_t dynamic[] = {kDyn, kDyn}, reversed[] = {-2, -1};
  DLTensor flipped =
      makeTensor(storage, 2, shape, strides, kF32, kCpu0, 5 * sizeof(float));
  EXPECT_TRUE(
      accepted(0, flipped, stridedParam("a", 2, dynamic, dynamic, kDyn)));
  EXPECT_TRUE(accepted(0, flipped, stridedParam("a", 2, dynamic, reversed, 5)));
}

TEST_F(CheckTest, AcceptsZeroStrides) {
  int64_t shape[] = {4, 3}, strides[] = {0, 1};
  const int64_t dynamic[] = {kDyn, kDyn};
  EXPECT_TRUE(accepted(0, makeTensor(storage, 2, shape, strides),
                       stridedParam("a", 2, dynamic, dynamic, kDyn)));
  // A huge broadcast addresses one element, so it does not overflow.
  int64_t hugeShape[] = {INT64_MAX, INT64_MAX}, zeros[] = {0, 0};
  EXPECT_TRUE(accepted(0, makeTensor(storage, 2, hugeShape, zeros),
                       stridedParam("a", 2, dynamic, dynamic, kDyn)));
}

TEST_F(CheckTest, AcceptsZeroDimensionalWithNullShape) {
  EXPECT_TRUE(accepted(0, makeTensor(storage, 0, nullptr, nullptr),
                       identityParam("s", 0, nullptr)));
  EXPECT_TRUE(accepted(0, makeTensor(storage, 0, nullptr, nullptr),
                       stridedParam("s", 0, nullptr, nullptr, 0)));
}

TEST_F(CheckTest, AcceptsEmptyWithNullDataAndAnyStrides) {
  int64_t shape[] = {0, 3}, oddStrides[] = {7, 9};
  const int64_t expected[] = {0, 3}, rowMajor[] = {3, 1};
  EXPECT_TRUE(accepted(0, makeTensor(nullptr, 2, shape, oddStrides),
                       identityParam("e", 2, expected)));
  EXPECT_TRUE(accepted(0, makeTensor(nullptr, 2, shape, oddStrides),
                       stridedParam("e", 2, expected, rowMajor, kDyn)));
}

TEST_F(CheckTest, IgnoresStridesOfSizeOneDims) {
  int64_t shape[] = {1, 3, 1}, strides[] = {99, 1, -5};
  const int64_t expected[] = {1, 3, 1}, staticStrides[] = {3, 1, 1};
  EXPECT_TRUE(accepted(0, makeTensor(storage, 3, shape, strides),
                       identityParam("a", 3, expected)));
  EXPECT_TRUE(accepted(0, makeTensor(storage, 3, shape, strides),
                       stridedParam("a", 3, expected, staticStrides, 0)));
}

TEST_F(CheckTest, AcceptsHostReadableDevicesOnTheCpu) {
  int64_t shape[] = {4};
  const int64_t four[] = {4};
  const dlrt_param_desc desc = identityParam("a", 1, four);
  for (DLDevice host : {DLDevice{kDLCUDAHost, 0}, DLDevice{kDLCUDAManaged, 1},
                        DLDevice{kDLROCMHost, 0}})
    EXPECT_TRUE(
        accepted(0, makeTensor(storage, 1, shape, nullptr, kF32, host), desc))
        << host.device_type;
}

TEST_F(CheckTest, AcceptsTheCallsCudaDeviceAndManagedMemory) {
  device = DLDevice{kDLCUDA, 1};
  int64_t shape[] = {4};
  const int64_t four[] = {4};
  const dlrt_param_desc desc = identityParam("a", 1, four);
  EXPECT_TRUE(accepted(
      0, makeTensor(storage, 1, shape, nullptr, kF32, DLDevice{kDLCUDA, 1}),
      desc));
  EXPECT_TRUE(accepted(
      0,
      makeTensor(storage, 1, shape, nullptr, kF32, DLDevice{kDLCUDAManaged, 1}),
      desc));
}

TEST_F(CheckTest, AcceptsReadOnlyTensorsForReadParameters) {
  const uint64_t flags[] = {0, DLPACK_FLAG_BITMASK_READ_ONLY};
  argFlags = flags;
  int64_t shape[] = {4};
  const int64_t four[] = {4};
  DLTensor tensor = makeTensor(storage, 1, shape, nullptr);
  EXPECT_TRUE(accepted(1, tensor, identityParam("x", 1, four)));
  EXPECT_TRUE(accepted(
      0, tensor, identityParam("out", 1, four, kF32, DLRT_ACCESS_READ_WRITE)));
}

//===----------------------------------------------------------------------===//
// Rejected tensors: one test per rule, status and message
//===----------------------------------------------------------------------===//

TEST_F(CheckTest, RejectsMalformedCalls) {
  int64_t shape[] = {4};
  const int64_t four[] = {4};
  DLTensor tensor = makeTensor(storage, 1, shape, nullptr);
  dlrt_param_desc desc = identityParam("a", 1, four);

  EXPECT_EQ(dlrt_check_tensor(nullptr, 0, &tensor, &desc),
            DLRT_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(dlrt_last_error(), "argument 0: no call context");

  EXPECT_TRUE(rejected(-1, &tensor, &desc, DLRT_ERR_INVALID_ARGUMENT,
                       "argument -1 'a': expected a non-negative argument "
                       "index, got -1"));
  EXPECT_TRUE(rejected(0, &tensor, nullptr, DLRT_ERR_INVALID_ARGUMENT,
                       "argument 0: expected a parameter descriptor, got "
                       "NULL"));
  dlrt_param_desc scalar = desc;
  scalar.name = "n";
  scalar.kind = DLRT_PARAM_SCALAR;
  EXPECT_TRUE(rejected(2, &tensor, &scalar, DLRT_ERR_INVALID_ARGUMENT,
                       "argument 2 'n': expected a tensor parameter, got "
                       "parameter kind 1"));
  dlrt_param_desc badLayout = desc;
  badLayout.layout = 7;
  EXPECT_TRUE(rejected(0, &tensor, &badLayout, DLRT_ERR_INVALID_ARGUMENT,
                       "argument 0 'a': expected an identity or strided "
                       "layout, got layout 7"));
  EXPECT_TRUE(rejected(0, nullptr, &desc, DLRT_ERR_INVALID_ARGUMENT,
                       "argument 0 'a': expected a DLTensor, got NULL"));
  dlrt_param_desc unnamed = desc;
  unnamed.name = nullptr;
  EXPECT_TRUE(rejected(3, nullptr, &unnamed, DLRT_ERR_INVALID_ARGUMENT,
                       "argument 3: expected a DLTensor, got NULL"));
}

TEST_F(CheckTest, RejectsRankMismatch) {
  int64_t shape[] = {2, 3, 4};
  const int64_t expected[] = {kDyn, kDyn};
  DLTensor tensor = makeTensor(storage, 3, shape, nullptr);
  dlrt_param_desc desc = identityParam("a", 2, expected);
  EXPECT_TRUE(rejected(0, &tensor, &desc, DLRT_ERR_RANK,
                       "argument 0 'a': expected rank 2, got rank 3"));
}

TEST_F(CheckTest, RejectsMissingShapeForRankedTensor) {
  const int64_t expected[] = {kDyn, kDyn};
  DLTensor tensor = makeTensor(storage, 2, nullptr, nullptr);
  dlrt_param_desc desc = identityParam("a", 2, expected);
  EXPECT_TRUE(rejected(0, &tensor, &desc, DLRT_ERR_INVALID_ARGUMENT,
                       "argument 0 'a': expected a shape for rank 2, got "
                       "NULL"));
}

TEST_F(CheckTest, RejectsDtypeCodeBitsAndLanes) {
  int64_t shape[] = {4};
  const int64_t four[] = {4};
  dlrt_param_desc desc = identityParam("x", 1, four);
  DLTensor int64Tensor =
      makeTensor(storage, 1, shape, nullptr, DLDataType{kDLInt, 64, 1});
  EXPECT_TRUE(rejected(1, &int64Tensor, &desc, DLRT_ERR_DTYPE,
                       "argument 1 'x': expected float32, got int64"));
  DLTensor f64Tensor =
      makeTensor(storage, 1, shape, nullptr, DLDataType{kDLFloat, 64, 1});
  EXPECT_TRUE(rejected(1, &f64Tensor, &desc, DLRT_ERR_DTYPE,
                       "argument 1 'x': expected float32, got float64"));
  DLTensor vectorTensor =
      makeTensor(storage, 1, shape, nullptr, DLDataType{kDLFloat, 32, 4});
  EXPECT_TRUE(rejected(1, &vectorTensor, &desc, DLRT_ERR_DTYPE,
                       "argument 1 'x': expected float32, got float32x4"));
  DLTensor unknownTensor =
      makeTensor(storage, 1, shape, nullptr, DLDataType{42, 32, 1});
  EXPECT_TRUE(rejected(1, &unknownTensor, &desc, DLRT_ERR_DTYPE,
                       "argument 1 'x': expected float32, got unknown dtype "
                       "code 42 (32 bits)"));
}

TEST_F(CheckTest, RefusesSubByteElements) {
  const DLDataType fp4 = {kDLFloat4_e2m1fn, 4, 1};
  int64_t shape[] = {4};
  const int64_t four[] = {4};
  DLTensor tensor = makeTensor(storage, 1, shape, nullptr, fp4);
  dlrt_param_desc desc = identityParam("q", 1, four, fp4);
  EXPECT_TRUE(rejected(0, &tensor, &desc, DLRT_ERR_UNSUPPORTED,
                       "argument 0 'q': expected a whole-byte element type, "
                       "got float4_e2m1fn"));
}

TEST_F(CheckTest, RejectsStaticDimMismatch) {
  int64_t shape[] = {3, 5};
  const int64_t expected[] = {kDyn, 4};
  DLTensor tensor = makeTensor(storage, 2, shape, nullptr);
  dlrt_param_desc desc = identityParam("a", 2, expected);
  EXPECT_TRUE(rejected(0, &tensor, &desc, DLRT_ERR_SHAPE,
                       "argument 0 'a': dim 1 expected 4, got 5"));
}

TEST_F(CheckTest, RejectsNegativeDims) {
  int64_t shape[] = {3, -2};
  const int64_t expected[] = {kDyn, kDyn};
  DLTensor tensor = makeTensor(storage, 2, shape, nullptr);
  dlrt_param_desc desc = identityParam("a", 2, expected);
  EXPECT_TRUE(rejected(0, &tensor, &desc, DLRT_ERR_SHAPE,
                       "argument 0 'a': dim 1 expected a non-negative size, "
                       "got -2"));
}

TEST_F(CheckTest, RejectsDeviceTypeMismatch) {
  int64_t shape[] = {4};
  const int64_t four[] = {4};
  dlrt_param_desc desc = identityParam("a", 1, four);
  DLTensor onGpu =
      makeTensor(storage, 1, shape, nullptr, kF32, DLDevice{kDLCUDA, 0});
  EXPECT_TRUE(rejected(0, &onGpu, &desc, DLRT_ERR_DEVICE,
                       "argument 0 'a': expected device cpu:0, got cuda:0"));
  DLTensor onUnknown = makeTensor(storage, 1, shape, nullptr, kF32,
                                  DLDevice{DLDeviceType(99), 0});
  EXPECT_TRUE(rejected(0, &onUnknown, &desc, DLRT_ERR_DEVICE,
                       "argument 0 'a': expected device cpu:0, got "
                       "device_type 99:0"));

  device = DLDevice{kDLCUDA, 1};
  DLTensor onHost = makeTensor(storage, 1, shape, nullptr);
  EXPECT_TRUE(rejected(0, &onHost, &desc, DLRT_ERR_DEVICE,
                       "argument 0 'a': expected device cuda:1, got cpu:0"));
  DLTensor pinned =
      makeTensor(storage, 1, shape, nullptr, kF32, DLDevice{kDLCUDAHost, 0});
  EXPECT_TRUE(rejected(0, &pinned, &desc, DLRT_ERR_DEVICE,
                       "argument 0 'a': expected device cuda:1, got "
                       "cuda_host:0"));
}

TEST_F(CheckTest, RejectsDeviceIdMismatch) {
  int64_t shape[] = {4};
  const int64_t four[] = {4};
  dlrt_param_desc desc = identityParam("a", 1, four);
  DLTensor cpuOne =
      makeTensor(storage, 1, shape, nullptr, kF32, DLDevice{kDLCPU, 1});
  EXPECT_TRUE(rejected(0, &cpuOne, &desc, DLRT_ERR_DEVICE,
                       "argument 0 'a': expected device cpu:0, got cpu:1"));
  device = DLDevice{kDLCUDA, 1};
  DLTensor otherGpu =
      makeTensor(storage, 1, shape, nullptr, kF32, DLDevice{kDLCUDA, 0});
  EXPECT_TRUE(rejected(0, &otherGpu, &desc, DLRT_ERR_DEVICE,
                       "argument 0 'a': expected device cuda:1, got cuda:0"));
  DLTensor otherManaged =
      makeTensor(storage, 1, shape, nullptr, kF32, DLDevice{kDLCUDAManaged, 2});
  EXPECT_TRUE(rejected(0, &otherManaged, &desc, DLRT_ERR_DEVICE,
                       "argument 0 'a': expected device cuda:1, got "
                       "cuda_managed:2"));
}

TEST_F(CheckTest, RejectsByteOffsetNotAMultipleOfTheElement) {
  int64_t shape[] = {4};
  const int64_t four[] = {4};
  DLTensor tensor = makeTensor(storage, 1, shape, nullptr, kF32, kCpu0, 6);
  dlrt_param_desc desc = identityParam("a", 1, four);
  EXPECT_TRUE(rejected(0, &tensor, &desc, DLRT_ERR_ALIGNMENT,
                       "argument 0 'a': expected byte_offset a multiple of "
                       "4, got 6"));
}

TEST_F(CheckTest, RejectsNullDataForNonEmptyTensors) {
  int64_t shape[] = {2, 3};
  const int64_t expected[] = {2, 3};
  DLTensor tensor = makeTensor(nullptr, 2, shape, nullptr);
  dlrt_param_desc desc = identityParam("a", 2, expected);
  EXPECT_TRUE(rejected(0, &tensor, &desc, DLRT_ERR_NULL_DATA,
                       "argument 0 'a': expected data for a non-empty "
                       "tensor, got NULL"));
}

TEST_F(CheckTest, RejectsByteOffsetBeyondInt64) {
  int64_t shape[] = {4};
  const int64_t four[] = {4};
  DLTensor tensor =
      makeTensor(storage, 1, shape, nullptr, kF32, kCpu0, uint64_t(1) << 63);
  dlrt_param_desc desc = identityParam("a", 1, four);
  EXPECT_TRUE(rejected(0, &tensor, &desc, DLRT_ERR_OVERFLOW,
                       "argument 0 'a': expected byte_offset within int64, "
                       "got 9223372036854775808"));
}

TEST_F(CheckTest, RejectsOverflowingExtentInADim) {
  int64_t shape[] = {3, 2}, strides[] = {int64_t(1) << 62, 1};
  const int64_t dynamic[] = {kDyn, kDyn};
  DLTensor tensor = makeTensor(storage, 2, shape, strides);
  dlrt_param_desc desc = stridedParam("a", 2, dynamic, dynamic, kDyn);
  EXPECT_TRUE(rejected(0, &tensor, &desc, DLRT_ERR_OVERFLOW,
                       "argument 0 'a': expected addressed bytes within "
                       "int64, got an overflow in dim 0"));
}

TEST_F(CheckTest, RejectsCompactStridesThatOverflow) {
  // The compact stride of dim 0 is 2^63; the elements before it still fit.
  int64_t shape[] = {2, int64_t(1) << 32, int64_t(1) << 31};
  const int64_t dynamic[] = {kDyn, kDyn, kDyn};
  DLTensor tensor = makeTensor(storage, 3, shape, nullptr);
  dlrt_param_desc desc = identityParam("a", 3, dynamic);
  EXPECT_TRUE(rejected(0, &tensor, &desc, DLRT_ERR_OVERFLOW,
                       "argument 0 'a': expected addressed bytes within "
                       "int64, got an overflow in dim 0"));
}

TEST_F(CheckTest, RejectsOverflowingBytesBelowNegativeStrides) {
  // Element offsets reach exactly INT64_MIN, their byte offsets do not fit.
  int64_t shape[] = {3}, strides[] = {-(int64_t(1) << 62)};
  const int64_t dynamic[] = {kDyn};
  DLTensor tensor = makeTensor(storage, 1, shape, strides);
  dlrt_param_desc desc = stridedParam("a", 1, dynamic, dynamic, kDyn);
  EXPECT_TRUE(rejected(0, &tensor, &desc, DLRT_ERR_OVERFLOW,
                       "argument 0 'a': expected addressed bytes within "
                       "int64, got elements -9223372036854775808 to 0 of 4 "
                       "bytes past byte_offset 0"));
}

TEST_F(CheckTest, RejectsNonCompactStridesForIdentityLayouts) {
  int64_t shape[] = {2, 3}, padded[] = {4, 1}, transposed[] = {1, 2};
  const int64_t expected[] = {2, 3};
  dlrt_param_desc desc = identityParam("a", 2, expected);
  DLTensor paddedRows = makeTensor(storage, 2, shape, padded);
  EXPECT_TRUE(rejected(0, &paddedRows, &desc, DLRT_ERR_LAYOUT,
                       "argument 0 'a': dim 0 expected stride 3 (compact "
                       "row-major), got 4"));
  DLTensor columnMajor = makeTensor(storage, 2, shape, transposed);
  EXPECT_TRUE(rejected(0, &columnMajor, &desc, DLRT_ERR_LAYOUT,
                       "argument 0 'a': dim 1 expected stride 1 (compact "
                       "row-major), got 2"));
}

TEST_F(CheckTest, RejectsStaticStrideMismatch) {
  int64_t shape[] = {2, 3}, strides[] = {4, 1};
  const int64_t dynamic[] = {kDyn, kDyn}, expected[] = {3, kDyn};
  DLTensor tensor = makeTensor(storage, 2, shape, strides);
  dlrt_param_desc desc = stridedParam("a", 2, dynamic, expected, kDyn);
  EXPECT_TRUE(rejected(0, &tensor, &desc, DLRT_ERR_LAYOUT,
                       "argument 0 'a': dim 0 expected stride 3, got 4"));
}

TEST_F(CheckTest, RejectsStaticOffsetMismatch) {
  int64_t shape[] = {4};
  const int64_t dynamic[] = {kDyn};
  DLTensor tensor = makeTensor(storage, 1, shape, nullptr, kF32, kCpu0, 8);
  dlrt_param_desc desc = stridedParam("a", 1, dynamic, dynamic, 0);
  EXPECT_TRUE(rejected(0, &tensor, &desc, DLRT_ERR_LAYOUT,
                       "argument 0 'a': expected offset 0, got 2 "
                       "(byte_offset 8)"));
}

TEST_F(CheckTest, RejectsReadOnlyTensorsForWrittenParameters) {
  const uint64_t flags[] = {0, DLPACK_FLAG_BITMASK_READ_ONLY};
  argFlags = flags;
  int64_t shape[] = {4};
  const int64_t four[] = {4};
  DLTensor tensor = makeTensor(storage, 1, shape, nullptr);
  dlrt_param_desc desc = identityParam("out", 1, four, kF32, DLRT_ACCESS_WRITE);
  EXPECT_TRUE(rejected(1, &tensor, &desc, DLRT_ERR_READ_ONLY,
                       "argument 1 'out': expected a writable tensor, got a "
                       "READ_ONLY one"));
}

TEST_F(CheckTest, RejectsWrittenTensorsWhoseElementsMayOverlap) {
  const int64_t dynamic[] = {kDyn, kDyn};
  dlrt_param_desc desc = stridedParam("out", 2, dynamic, dynamic, kDyn);
  desc.access = DLRT_ACCESS_READ | DLRT_ACCESS_WRITE;
  const char *message = "argument 0 'out': expected a written tensor whose "
                        "elements do not overlap, got strides under which two "
                        "elements may share an address (pass a copy)";
  // A broadcast row, rows overlapping by one element, a diagonal walk.
  for (auto [rows, cols, rowStride, colStride] :
       {std::array<int64_t, 4>{3, 4, 0, 1}, {3, 4, 3, 1}, {4, 4, 1, 1}}) {
    int64_t shape[] = {rows, cols}, strides[] = {rowStride, colStride};
    DLTensor tensor = makeTensor(storage, 2, shape, strides);
    EXPECT_TRUE(rejected(0, &tensor, &desc, DLRT_ERR_LAYOUT, message))
        << rowStride << ", " << colStride;
    // Only written parameters: a read one may overlap itself.
    dlrt_param_desc read = desc;
    read.access = DLRT_ACCESS_READ;
    EXPECT_TRUE(accepted(0, tensor, read));
  }
}

TEST_F(CheckTest, AcceptsWrittenTensorsWhoseElementsAreDistinct) {
  const int64_t dynamic[] = {kDyn, kDyn};
  dlrt_param_desc desc = stridedParam("out", 2, dynamic, dynamic, kDyn);
  desc.access = DLRT_ACCESS_WRITE;
  // Row-major, column-major, padded rows, reversed, every other column, a
  // broadcast size-1 dim, an interleaving of two columns.
  for (auto [rows, cols, rowStride, colStride, offset] :
       {std::array<int64_t, 5>{3, 4, 4, 1, 0},
        {3, 4, 1, 3, 0},
        {3, 4, 5, 1, 0},
        {3, 4, -4, -1, 11},
        {3, 2, 4, 2, 0},
        {1, 4, 0, 1, 0},
        {2, 3, 1, 2, 0}}) {
    int64_t shape[] = {rows, cols}, strides[] = {rowStride, colStride};
    DLTensor tensor = makeTensor(storage, 2, shape, strides, kF32, kCpu0,
                                 offset * sizeof(float));
    EXPECT_TRUE(accepted(0, tensor, desc)) << rowStride << ", " << colStride;
  }
}

TEST_F(CheckTest, KeepsTheFirstFailureOfTheCall) {
  int64_t shape[] = {4};
  const int64_t two[] = {kDyn, kDyn}, four[] = {4};
  DLTensor tensor = makeTensor(storage, 1, shape, nullptr);
  dlrt_param_desc rank2 = identityParam("a", 2, two);
  dlrt_param_desc fine = identityParam("b", 1, four);
  dlrt_call_ctx_init(&ctx, kCpu0, nullptr);
  EXPECT_EQ(dlrt_check_tensor(&ctx, 0, &tensor, &rank2), DLRT_ERR_RANK);
  EXPECT_EQ(dlrt_check_tensor(&ctx, 1, &tensor, &fine), DLRT_OK);
  EXPECT_EQ(dlrt_check_tensor(&ctx, 2, nullptr, &fine),
            DLRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(dlrt_status(&ctx), DLRT_ERR_RANK);
  EXPECT_STREQ(ctx.error, "argument 0 'a': expected rank 2, got rank 1");
}

//===----------------------------------------------------------------------===//
// dtype names
//===----------------------------------------------------------------------===//

TEST(DTypeNameTest, NamesEveryDLPackDtype) {
  struct Case {
    DLDataType dtype;
    const char *name;
  };
  const Case cases[] = {
      {{kDLBool, 8, 1}, "bool"},
      {{kDLInt, 8, 1}, "int8"},
      {{kDLInt, 16, 1}, "int16"},
      {{kDLInt, 32, 1}, "int32"},
      {{kDLInt, 64, 1}, "int64"},
      {{kDLUInt, 8, 1}, "uint8"},
      {{kDLUInt, 16, 1}, "uint16"},
      {{kDLUInt, 32, 1}, "uint32"},
      {{kDLUInt, 64, 1}, "uint64"},
      {{kDLFloat, 16, 1}, "float16"},
      {{kDLFloat, 32, 1}, "float32"},
      {{kDLFloat, 64, 1}, "float64"},
      {{kDLBfloat, 16, 1}, "bfloat16"},
      {{kDLComplex, 64, 1}, "complex64"},
      {{kDLComplex, 128, 1}, "complex128"},
      {{kDLFloat8_e3m4, 8, 1}, "float8_e3m4"},
      {{kDLFloat8_e4m3, 8, 1}, "float8_e4m3"},
      {{kDLFloat8_e4m3b11fnuz, 8, 1}, "float8_e4m3b11fnuz"},
      {{kDLFloat8_e4m3fn, 8, 1}, "float8_e4m3fn"},
      {{kDLFloat8_e4m3fnuz, 8, 1}, "float8_e4m3fnuz"},
      {{kDLFloat8_e5m2, 8, 1}, "float8_e5m2"},
      {{kDLFloat8_e5m2fnuz, 8, 1}, "float8_e5m2fnuz"},
      {{kDLFloat8_e8m0fnu, 8, 1}, "float8_e8m0fnu"},
      {{kDLFloat6_e2m3fn, 6, 1}, "float6_e2m3fn"},
      {{kDLFloat6_e3m2fn, 6, 1}, "float6_e3m2fn"},
      {{kDLFloat4_e2m1fn, 4, 1}, "float4_e2m1fn"},
      {{kDLOpaqueHandle, 64, 1}, "opaque_handle64"},
  };
  for (const Case &c : cases)
    EXPECT_EQ(dtypeName(c.dtype), c.name);
}

TEST(DTypeNameTest, SuffixesLanes) {
  EXPECT_EQ(dtypeName({kDLFloat, 32, 4}), "float32x4");
  EXPECT_EQ(dtypeName({kDLInt, 8, 16}), "int8x16");
  EXPECT_EQ(dtypeName({kDLFloat8_e4m3fn, 8, 2}), "float8_e4m3fnx2");
}

TEST(DTypeNameTest, NamesMalformedDtypesClearly) {
  EXPECT_EQ(dtypeName({42, 32, 1}), "unknown dtype code 42 (32 bits)");
  EXPECT_EQ(dtypeName({200, 8, 2}), "unknown dtype code 200 (8 bits)x2");
  EXPECT_EQ(dtypeName({kDLBool, 1, 1}), "bool(1 bits)");
  EXPECT_EQ(dtypeName({kDLFloat8_e4m3fn, 16, 1}), "float8_e4m3fn(16 bits)");
}

TEST(DTypeNameTest, TruncatesToTheBuffer) {
  char small[5];
  EXPECT_STREQ(dlrt_dtype_name({kDLFloat, 32, 4}, small, sizeof(small)),
               "floa");
  char exact[8];
  EXPECT_STREQ(dlrt_dtype_name({kDLFloat, 32, 4}, exact, sizeof(exact)),
               "float32");
  EXPECT_EQ(dlrt_dtype_name({kDLFloat, 32, 1}, nullptr, 0), nullptr);
}

} // namespace
