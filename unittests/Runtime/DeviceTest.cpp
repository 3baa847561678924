//===- DeviceTest.cpp - Device names and host accessibility ---------------===//
//
// Part of dlbridge's runtime unit tests.
//
//===----------------------------------------------------------------------===//
//
// dlrt_device_type_name, dlrt_device_name and dlrt_parse_device_type are the
// one spelling of DLPack device types every layer prints and parses; they
// must round-trip for every type DLPack defines.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Runtime/dlrt.h"

#include <gtest/gtest.h>

#include <string>

namespace {

TEST(DeviceTest, NamesEveryDLPackDeviceType) {
  const std::pair<int32_t, const char *> cases[] = {
      {kDLCPU, "cpu"},
      {kDLCUDA, "cuda"},
      {kDLCUDAHost, "cuda_host"},
      {kDLOpenCL, "opencl"},
      {kDLVulkan, "vulkan"},
      {kDLMetal, "metal"},
      {kDLVPI, "vpi"},
      {kDLROCM, "rocm"},
      {kDLROCMHost, "rocm_host"},
      {kDLExtDev, "ext_dev"},
      {kDLCUDAManaged, "cuda_managed"},
      {kDLOneAPI, "oneapi"},
      {kDLWebGPU, "webgpu"},
      {kDLHexagon, "hexagon"},
      {kDLMAIA, "maia"},
      {kDLTrn, "trn"},
  };
  for (const auto &[type, name] : cases) {
    ASSERT_NE(dlrt_device_type_name(type), nullptr) << type;
    EXPECT_STREQ(dlrt_device_type_name(type), name);
    int32_t parsed = -1;
    EXPECT_EQ(dlrt_parse_device_type(name, &parsed), DLRT_OK) << name;
    EXPECT_EQ(parsed, type);
  }
}

TEST(DeviceTest, UnknownTypesHaveNoName) {
  EXPECT_EQ(dlrt_device_type_name(0), nullptr);
  EXPECT_EQ(dlrt_device_type_name(5), nullptr);
  EXPECT_EQ(dlrt_device_type_name(6), nullptr);
  EXPECT_EQ(dlrt_device_type_name(42), nullptr);
  EXPECT_EQ(dlrt_device_type_name(-1), nullptr);
}

TEST(DeviceTest, FormatsTypeAndId) {
  char buf[48];
  EXPECT_STREQ(dlrt_device_name({kDLCUDA, 1}, buf, sizeof(buf)), "cuda:1");
  EXPECT_STREQ(dlrt_device_name({kDLCPU, 0}, buf, sizeof(buf)), "cpu:0");
  EXPECT_STREQ(dlrt_device_name({kDLCUDAManaged, 2}, buf, sizeof(buf)),
               "cuda_managed:2");
  EXPECT_STREQ(
      dlrt_device_name({static_cast<DLDeviceType>(42), 0}, buf, sizeof(buf)),
      "device_type 42:0");
  char small[4];
  EXPECT_STREQ(dlrt_device_name({kDLCUDAHost, 7}, small, sizeof(small)), "cud");
  EXPECT_EQ(dlrt_device_name({kDLCPU, 0}, nullptr, 8), nullptr);
}

TEST(DeviceTest, ParseRefusesUnknownNamesAndNull) {
  int32_t type = 99;
  EXPECT_EQ(dlrt_parse_device_type("tpu", &type), DLRT_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(dlrt_last_error(), "unknown device type 'tpu'");
  EXPECT_EQ(type, 99);
  // Names are exact: no case folding, no ids, no framework aliases.
  EXPECT_EQ(dlrt_parse_device_type("CUDA", &type), DLRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(dlrt_parse_device_type("cuda:0", &type), DLRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(dlrt_parse_device_type("", &type), DLRT_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(dlrt_last_error(), "unknown device type ''");
  EXPECT_EQ(dlrt_parse_device_type(nullptr, &type), DLRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(dlrt_parse_device_type("cpu", nullptr), DLRT_ERR_INVALID_ARGUMENT);
}

TEST(DeviceTest, HostAccessesHostPinnedAndManagedMemory) {
  EXPECT_TRUE(dlrt_host_accessible({kDLCPU, 0}));
  EXPECT_TRUE(dlrt_host_accessible({kDLCPU, 3}));
  EXPECT_TRUE(dlrt_host_accessible({kDLCUDAHost, 0}));
  EXPECT_TRUE(dlrt_host_accessible({kDLCUDAManaged, 1}));
  EXPECT_TRUE(dlrt_host_accessible({kDLROCMHost, 0}));
  EXPECT_FALSE(dlrt_host_accessible({kDLCUDA, 0}));
  EXPECT_FALSE(dlrt_host_accessible({kDLROCM, 0}));
  EXPECT_FALSE(dlrt_host_accessible({kDLVulkan, 0}));
  EXPECT_FALSE(dlrt_host_accessible({static_cast<DLDeviceType>(42), 0}));
}

} // namespace
