//===- DLPackEnums.td - DLPack enumerations ---------------*- tablegen -*-===//
//
// Part of dlbridge. The numeric values are DLPack 1.3's and the runtime's ABI.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_DIALECT_DLPACK_IR_DLPACKENUMS_TD
#define DLBRIDGE_DIALECT_DLPACK_IR_DLPACKENUMS_TD

include "mlir/IR/EnumAttr.td"

def DLPack_TypeCode : I32EnumAttr<"TypeCode", "DLPack `DLDataTypeCode`", [
    I32EnumAttrCase<"Int", 0, "int">,
    I32EnumAttrCase<"UInt", 1, "uint">,
    I32EnumAttrCase<"Float", 2, "float">,
    I32EnumAttrCase<"OpaqueHandle", 3, "opaque_handle">,
    I32EnumAttrCase<"Bfloat", 4, "bfloat">,
    I32EnumAttrCase<"Complex", 5, "complex">,
    I32EnumAttrCase<"Bool", 6, "bool">,
    I32EnumAttrCase<"Float8E3M4", 7, "float8_e3m4">,
    I32EnumAttrCase<"Float8E4M3", 8, "float8_e4m3">,
    I32EnumAttrCase<"Float8E4M3B11FNUZ", 9, "float8_e4m3b11fnuz">,
    I32EnumAttrCase<"Float8E4M3FN", 10, "float8_e4m3fn">,
    I32EnumAttrCase<"Float8E4M3FNUZ", 11, "float8_e4m3fnuz">,
    I32EnumAttrCase<"Float8E5M2", 12, "float8_e5m2">,
    I32EnumAttrCase<"Float8E5M2FNUZ", 13, "float8_e5m2fnuz">,
    I32EnumAttrCase<"Float8E8M0FNU", 14, "float8_e8m0fnu">,
    I32EnumAttrCase<"Float6E2M3FN", 15, "float6_e2m3fn">,
    I32EnumAttrCase<"Float6E3M2FN", 16, "float6_e3m2fn">,
    I32EnumAttrCase<"Float4E2M1FN", 17, "float4_e2m1fn">,
  ]> {
  let cppNamespace = "::dlbridge::dlpack";
  let genSpecializedAttr = 0;
}

def DLPack_DeviceType : I32EnumAttr<"DeviceType", "DLPack `DLDeviceType`", [
    I32EnumAttrCase<"CPU", 1, "cpu">,
    I32EnumAttrCase<"CUDA", 2, "cuda">,
    I32EnumAttrCase<"CUDAHost", 3, "cuda_host">,
    I32EnumAttrCase<"OpenCL", 4, "opencl">,
    I32EnumAttrCase<"Vulkan", 7, "vulkan">,
    I32EnumAttrCase<"Metal", 8, "metal">,
    I32EnumAttrCase<"VPI", 9, "vpi">,
    I32EnumAttrCase<"ROCM", 10, "rocm">,
    I32EnumAttrCase<"ROCMHost", 11, "rocm_host">,
    I32EnumAttrCase<"ExtDev", 12, "ext_dev">,
    I32EnumAttrCase<"CUDAManaged", 13, "cuda_managed">,
    I32EnumAttrCase<"OneAPI", 14, "oneapi">,
    I32EnumAttrCase<"WebGPU", 15, "webgpu">,
    I32EnumAttrCase<"Hexagon", 16, "hexagon">,
    I32EnumAttrCase<"MAIA", 17, "maia">,
    I32EnumAttrCase<"Trn", 18, "trn">,
  ]> {
  let cppNamespace = "::dlbridge::dlpack";
  let genSpecializedAttr = 0;
}

def DLPack_Access : I32EnumAttr<"Access",
    "how an entry point uses a tensor's memory (runtime `dlrt_access`)", [
    I32EnumAttrCase<"None", 0, "none">,
    I32EnumAttrCase<"Read", 1, "read">,
    I32EnumAttrCase<"Write", 2, "write">,
    I32EnumAttrCase<"ReadWrite", 3, "read_write">,
  ]> {
  let cppNamespace = "::dlbridge::dlpack";
  let genSpecializedAttr = 0;
}

def DLPack_FailureStatus : I32EnumAttr<"FailureStatus",
    "a failure status generated code can report (runtime `dlrt_status_code`)", [
    I32EnumAttrCase<"InvalidArgument", 1, "invalid_argument">,
    I32EnumAttrCase<"OutOfMemory", 11, "out_of_memory">,
    I32EnumAttrCase<"ShapeMismatch", 16, "shape_mismatch">,
    I32EnumAttrCase<"IndexOutOfRange", 17, "index_out_of_range">,
  ]> {
  let cppNamespace = "::dlbridge::dlpack";
}

#endif // DLBRIDGE_DIALECT_DLPACK_IR_DLPACKENUMS_TD
