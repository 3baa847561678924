//===- LayoutTest.cpp - ABI layout of the parameter records
//----------------===//
//
// Part of dlbridge's runtime unit tests.
//
//===----------------------------------------------------------------------===//
//
// Generated LLVM IR emits dlrt_param_desc and dlrt_signature as constants, so
// their offsets are ABI. These are the offsets dlrt.h documents.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Runtime/dlrt.h"

#include <gtest/gtest.h>

#include <cstddef>

static_assert(offsetof(dlrt_param_desc, name) == 0, "");
static_assert(offsetof(dlrt_param_desc, kind) == 8, "");
static_assert(offsetof(dlrt_param_desc, layout) == 12, "");
static_assert(offsetof(dlrt_param_desc, access) == 16, "");
static_assert(offsetof(dlrt_param_desc, rank) == 20, "");
static_assert(offsetof(dlrt_param_desc, dtype) == 24, "");
static_assert(offsetof(dlrt_param_desc, reserved) == 28, "");
static_assert(offsetof(dlrt_param_desc, shape) == 32, "");
static_assert(offsetof(dlrt_param_desc, strides) == 40, "");
static_assert(offsetof(dlrt_param_desc, offset) == 48, "");
static_assert(sizeof(dlrt_param_desc) == 56, "");

static_assert(offsetof(dlrt_signature, name) == 0, "");
static_assert(offsetof(dlrt_signature, device_type) == 8, "");
static_assert(offsetof(dlrt_signature, num_args) == 12, "");
static_assert(offsetof(dlrt_signature, num_results) == 16, "");
static_assert(offsetof(dlrt_signature, reserved) == 20, "");
static_assert(offsetof(dlrt_signature, args) == 24, "");
static_assert(offsetof(dlrt_signature, results) == 32, "");
static_assert(sizeof(dlrt_signature) == 40, "");

namespace {

// The same facts at run time, so a failure names the field in the test log.
TEST(LayoutTest, ParamDescMatchesTheEmittedStruct) {
  EXPECT_EQ(offsetof(dlrt_param_desc, name), 0u);
  EXPECT_EQ(offsetof(dlrt_param_desc, kind), 8u);
  EXPECT_EQ(offsetof(dlrt_param_desc, layout), 12u);
  EXPECT_EQ(offsetof(dlrt_param_desc, access), 16u);
  EXPECT_EQ(offsetof(dlrt_param_desc, rank), 20u);
  EXPECT_EQ(offsetof(dlrt_param_desc, dtype), 24u);
  EXPECT_EQ(offsetof(dlrt_param_desc, reserved), 28u);
  EXPECT_EQ(offsetof(dlrt_param_desc, shape), 32u);
  EXPECT_EQ(offsetof(dlrt_param_desc, strides), 40u);
  EXPECT_EQ(offsetof(dlrt_param_desc, offset), 48u);
  EXPECT_EQ(sizeof(dlrt_param_desc), 56u);
  // The dtype is emitted as i8 code, i8 bits, i16 lanes.
  EXPECT_EQ(offsetof(DLDataType, code), 0u);
  EXPECT_EQ(offsetof(DLDataType, bits), 1u);
  EXPECT_EQ(offsetof(DLDataType, lanes), 2u);
  EXPECT_EQ(sizeof(DLDataType), 4u);
}

TEST(LayoutTest, SignatureMatchesTheEmittedStruct) {
  EXPECT_EQ(offsetof(dlrt_signature, name), 0u);
  EXPECT_EQ(offsetof(dlrt_signature, device_type), 8u);
  EXPECT_EQ(offsetof(dlrt_signature, num_args), 12u);
  EXPECT_EQ(offsetof(dlrt_signature, num_results), 16u);
  EXPECT_EQ(offsetof(dlrt_signature, reserved), 20u);
  EXPECT_EQ(offsetof(dlrt_signature, args), 24u);
  EXPECT_EQ(offsetof(dlrt_signature, results), 32u);
  EXPECT_EQ(sizeof(dlrt_signature), 40u);
}

TEST(LayoutTest, DynamicMarkerIsMLIRsKDynamic) {
  EXPECT_EQ(DLRT_DYNAMIC, INT64_MIN);
}

} // namespace
