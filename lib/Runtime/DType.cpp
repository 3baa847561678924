//===- DType.cpp - DLPack dtype names
//--------------------------------------===//
//
// Part of dlbridge's runtime (libdlrt), a plain C ABI without MLIR.
//
//===----------------------------------------------------------------------===//
//
// Names dtypes the way DLPack and NumPy/PyTorch users spell them, for error
// messages: "float32", "uint8", "bool", "bfloat16", "complex64",
// "float8_e4m3fn", with an "x<lanes>" suffix for vector elements.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Runtime/dlrt.h"

#include <cstdio>

namespace {
/// A dtype code whose name carries its width ("float8_e4m3fn") and so is
/// only complete when `bits` equals `expectedBits`.
struct FixedWidthName {
  const char *name;
  int expectedBits;
};

/// The fixed-width name of `code`, or {nullptr, 0} for codes named by prefix
/// and bits ("int32") or unknown codes.
FixedWidthName fixedWidthName(uint8_t code) {
  switch (code) {
  case kDLFloat8_e3m4:
    return {"float8_e3m4", 8};
  case kDLFloat8_e4m3:
    return {"float8_e4m3", 8};
  case kDLFloat8_e4m3b11fnuz:
    return {"float8_e4m3b11fnuz", 8};
  case kDLFloat8_e4m3fn:
    return {"float8_e4m3fn", 8};
  case kDLFloat8_e4m3fnuz:
    return {"float8_e4m3fnuz", 8};
  case kDLFloat8_e5m2:
    return {"float8_e5m2", 8};
  case kDLFloat8_e5m2fnuz:
    return {"float8_e5m2fnuz", 8};
  case kDLFloat8_e8m0fnu:
    return {"float8_e8m0fnu", 8};
  case kDLFloat6_e2m3fn:
    return {"float6_e2m3fn", 6};
  case kDLFloat6_e3m2fn:
    return {"float6_e3m2fn", 6};
  case kDLFloat4_e2m1fn:
    return {"float4_e2m1fn", 4};
  default:
    return {nullptr, 0};
  }
}

/// The prefix that `bits` completes ("int" + 32), or nullptr.
const char *bitsPrefixedName(uint8_t code) {
  switch (code) {
  case kDLInt:
    return "int";
  case kDLUInt:
    return "uint";
  case kDLFloat:
    return "float";
  case kDLBfloat:
    return "bfloat";
  case kDLComplex:
    return "complex";
  case kDLOpaqueHandle:
    return "opaque_handle";
  default:
    return nullptr;
  }
}

/// Writes the scalar part of `dtype`'s name; returns what snprintf returns.
int writeElementName(DLDataType dtype, char *buf, size_t size) {
  if (dtype.code == kDLBool)
    return dtype.bits == 8
               ? std::snprintf(buf, size, "bool")
               : std::snprintf(buf, size, "bool(%d bits)", dtype.bits);
  if (const char *prefix = bitsPrefixedName(dtype.code))
    return std::snprintf(buf, size, "%s%d", prefix, dtype.bits);
  FixedWidthName fixed = fixedWidthName(dtype.code);
  if (fixed.name)
    return dtype.bits == fixed.expectedBits
               ? std::snprintf(buf, size, "%s", fixed.name)
               : std::snprintf(buf, size, "%s(%d bits)", fixed.name,
                               dtype.bits);
  return std::snprintf(buf, size, "unknown dtype code %d (%d bits)", dtype.code,
                       dtype.bits);
}
} // namespace

extern "C" const char *dlrt_dtype_name(DLDataType dtype, char *buf,
                                       size_t size) {
  if (!buf || size == 0)
    return buf;
  int written = writeElementName(dtype, buf, size);
  if (dtype.lanes != 1 && written >= 0 && static_cast<size_t>(written) < size)
    std::snprintf(buf + written, size - written, "x%d", dtype.lanes);
  return buf;
}
