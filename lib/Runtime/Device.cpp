//===- Device.cpp - DLPack device names and host accessibility ------------===//
//
// Part of dlbridge's runtime (libdlrt), a plain C ABI without MLIR.
//
//===----------------------------------------------------------------------===//
//
// The names users give DLPack device types ("cuda", "cuda_managed") and which
// devices' memory the host reads directly, for error messages, the Python
// module's `device` strings and every copy to the host.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Runtime/dlrt.h"

#include <cstdio>
#include <cstring>

namespace {
/// Every DLDeviceType of DLPack 1.3 with its name.
struct DeviceTypeName {
  int32_t type;
  const char *name;
};

constexpr DeviceTypeName kDeviceTypes[] = {
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
} // namespace

extern "C" const char *dlrt_device_type_name(int32_t deviceType) {
  for (const DeviceTypeName &entry : kDeviceTypes)
    if (entry.type == deviceType)
      return entry.name;
  return nullptr;
}

extern "C" const char *dlrt_device_name(DLDevice device, char *buf,
                                        size_t size) {
  if (!buf || size == 0)
    return buf;
  if (const char *name = dlrt_device_type_name(device.device_type))
    std::snprintf(buf, size, "%s:%d", name, device.device_id);
  else
    std::snprintf(buf, size, "device_type %d:%d",
                  static_cast<int>(device.device_type), device.device_id);
  return buf;
}

extern "C" int32_t dlrt_parse_device_type(const char *name,
                                          int32_t *deviceType) {
  if (!name || !deviceType)
    return dlrt_set_error(nullptr, DLRT_ERR_INVALID_ARGUMENT,
                          "expected a device type name and a result, got "
                          "NULL");
  for (const DeviceTypeName &entry : kDeviceTypes)
    if (std::strcmp(entry.name, name) == 0) {
      *deviceType = entry.type;
      return DLRT_OK;
    }
  return dlrt_set_error(nullptr, DLRT_ERR_INVALID_ARGUMENT,
                        "unknown device type '%s'", name);
}

extern "C" int32_t dlrt_host_accessible(DLDevice device) {
  switch (device.device_type) {
  case kDLCPU:
  case kDLCUDAHost:
  case kDLCUDAManaged:
  case kDLROCMHost:
    return 1;
  default:
    return 0;
  }
}
