//===- CheckDescriptorTest.cpp - dlrt_check_descriptor
//---------------------===//
//
// Part of dlbridge's runtime unit tests.
//
//===----------------------------------------------------------------------===//
//
// dlrt_check_descriptor refuses what no entry point would take, whatever its
// parameter, with dlrt_check_tensor's statuses and messages, and accepts
// every well-formed tensor on any device.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Runtime/dlrt.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace {

constexpr DLDataType kF32 = {kDLFloat, 32, 1};

DLTensor makeTensor(void *data, int32_t ndim, int64_t *shape,
                    int64_t *strides = nullptr, DLDataType dtype = kF32,
                    DLDevice device = {kDLCPU, 0}, uint64_t byteOffset = 0) {
  return DLTensor{data, device, ndim, dtype, shape, strides, byteOffset};
}

/// The status, and the thread's last error when refused.
::testing::AssertionResult refused(const DLTensor *tensor, int32_t status,
                                   const std::string &message) {
  int32_t actual = dlrt_check_descriptor(tensor);
  if (actual != status)
    return ::testing::AssertionFailure()
           << "status " << dlrt_status_name(actual) << ", expected "
           << dlrt_status_name(status) << " (" << dlrt_last_error() << ")";
  if (dlrt_last_error() != message)
    return ::testing::AssertionFailure()
           << "message '" << dlrt_last_error() << "'";
  return ::testing::AssertionSuccess();
}

TEST(CheckDescriptorTest, AcceptsWellFormedTensorsOnAnyDevice) {
  float data[6] = {};
  int64_t shape[2] = {2, 3}, strides[2] = {-3, 0};
  DLTensor compact = makeTensor(data, 2, shape);
  EXPECT_EQ(dlrt_check_descriptor(&compact), DLRT_OK);
  DLTensor odd = makeTensor(data + 3, 2, shape, strides);
  EXPECT_EQ(dlrt_check_descriptor(&odd), DLRT_OK);
  DLTensor scalar = makeTensor(data, 0, nullptr);
  EXPECT_EQ(dlrt_check_descriptor(&scalar), DLRT_OK);
  DLTensor otherCpu = makeTensor(data, 2, shape, nullptr, kF32, {kDLCPU, 1});
  EXPECT_EQ(dlrt_check_descriptor(&otherCpu), DLRT_OK);
  DLTensor cuda = makeTensor(data, 2, shape, nullptr, kF32, {kDLCUDA, 3});
  EXPECT_EQ(dlrt_check_descriptor(&cuda), DLRT_OK);
  int64_t empty[2] = {0, 3};
  DLTensor noData = makeTensor(nullptr, 2, empty);
  EXPECT_EQ(dlrt_check_descriptor(&noData), DLRT_OK);
}

TEST(CheckDescriptorTest, RefusesMalformedDescriptors) {
  float data[4] = {};
  EXPECT_TRUE(refused(nullptr, DLRT_ERR_INVALID_ARGUMENT,
                      "expected a DLTensor, got NULL"));
  DLTensor negativeRank = makeTensor(data, -1, nullptr);
  EXPECT_TRUE(refused(&negativeRank, DLRT_ERR_INVALID_ARGUMENT,
                      "expected a non-negative ndim, got -1"));
  DLTensor noShape = makeTensor(data, 2, nullptr);
  EXPECT_TRUE(refused(&noShape, DLRT_ERR_INVALID_ARGUMENT,
                      "expected a shape for rank 2, got NULL"));
  int64_t negative[2] = {2, -3};
  DLTensor negativeDim = makeTensor(data, 2, negative);
  EXPECT_TRUE(refused(&negativeDim, DLRT_ERR_SHAPE,
                      "dim 1 expected a non-negative size, got -3"));
  int64_t shape[1] = {4};
  DLTensor noData = makeTensor(nullptr, 1, shape);
  EXPECT_TRUE(refused(&noData, DLRT_ERR_NULL_DATA,
                      "expected data for a non-empty tensor, got NULL"));
  DLTensor subByte = makeTensor(data, 1, shape, nullptr, {kDLInt, 4, 1});
  EXPECT_TRUE(refused(&subByte, DLRT_ERR_UNSUPPORTED,
                      "expected a whole-byte element type, got int4"));
  DLTensor misaligned =
      makeTensor(data, 1, shape, nullptr, kF32, {kDLCPU, 0}, 2);
  EXPECT_TRUE(refused(&misaligned, DLRT_ERR_ALIGNMENT,
                      "expected byte_offset a multiple of 4, got 2"));
}

TEST(CheckDescriptorTest, RefusesExtentsBeyondInt64) {
  float data[1] = {};
  int64_t huge[2] = {int64_t(1) << 40, int64_t(1) << 40};
  DLTensor compact = makeTensor(data, 2, huge);
  EXPECT_TRUE(refused(&compact, DLRT_ERR_OVERFLOW,
                      "expected addressed bytes within int64, got an "
                      "overflow in dim 0"));
  int64_t one[1] = {INT64_MAX / 2}, stride[1] = {3};
  DLTensor strided = makeTensor(data, 1, one, stride);
  EXPECT_EQ(dlrt_check_descriptor(&strided), DLRT_ERR_OVERFLOW);
  // Zero strides address one element however large the dims.
  int64_t broadcast[1] = {0};
  DLTensor zero = makeTensor(data, 1, one, broadcast);
  EXPECT_EQ(dlrt_check_descriptor(&zero), DLRT_OK);
}

} // namespace
