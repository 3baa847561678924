//===- DLPackAttrs.cpp - dlpack attributes --------------------------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Dialect/DLPack/IR/DLPackDialect.h"
#include "dlbridge/Dialect/DLPack/IR/DTypeMapping.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace dlbridge::dlpack;

#include "dlbridge/Dialect/DLPack/IR/DLPackEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dlbridge/Dialect/DLPack/IR/DLPackAttrs.cpp.inc"

void DLPackDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dlbridge/Dialect/DLPack/IR/DLPackAttrs.cpp.inc"
      >();
}

/// Whether DLPack 1.3 defines `bits`-wide values of `code`.
static bool isValidWidth(TypeCode code, unsigned bits) {
  switch (code) {
  case TypeCode::Int:
  case TypeCode::UInt:
    return llvm::is_contained({1u, 2u, 4u, 8u, 16u, 32u, 64u}, bits);
  case TypeCode::Float:
    return llvm::is_contained({16u, 32u, 64u}, bits);
  case TypeCode::OpaqueHandle:
    return bits == 64;
  case TypeCode::Bfloat:
    return bits == 16;
  case TypeCode::Complex:
    return llvm::is_contained({32u, 64u, 128u}, bits);
  case TypeCode::Bool:
    return bits == 8;
  case TypeCode::Float6E2M3FN:
  case TypeCode::Float6E3M2FN:
    return bits == 6;
  case TypeCode::Float4E2M1FN:
    return bits == 4;
  default: // Every fp8 kind.
    return bits == 8;
  }
}

LogicalResult DTypeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                TypeCode code, unsigned bits, unsigned lanes) {
  if (lanes == 0 || lanes > UINT16_MAX)
    return emitError() << "lanes must be in [1, 65535], got " << lanes;
  if (!isValidWidth(code, bits))
    return emitError() << "DLPack has no " << bits << "-bit '"
                       << stringifyTypeCode(code) << "' dtype";
  return success();
}

LogicalResult ParamAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                StringRef name, Type type, Access access,
                                DTypeAttr dtype) {
  if (name.empty())
    return emitError() << "parameter name must not be empty";
  if (auto memrefType = dyn_cast<MemRefType>(type))
    return verifyBoundaryMemRefType(
        [&] { return emitError() << "parameter '" << name << "': "; },
        memrefType, dtype);
  if (!type.isIntOrIndexOrFloat())
    return emitError() << "parameter '" << name
                       << "' must be a memref, integer, float or index, got "
                       << type;
  if (access != Access::None)
    return emitError() << "scalar parameter '" << name
                       << "' must have access 'none', got '"
                       << stringifyAccess(access) << "'";
  if (dtype && !type.isIndex() && !isCompatible(dtype, type))
    return emitError() << "dtype " << dtype << " does not describe scalar "
                       << "parameter '" << name << "' of type " << type;
  return success();
}

DTypeAttr ParamAttr::getEffectiveDType() const {
  if (getDtype())
    return getDtype();
  Type type = getType();
  if (auto memrefType = dyn_cast<MemRefType>(type))
    type = memrefType.getElementType();
  if (type.isIndex())
    return DTypeAttr::get(getContext(), TypeCode::Int, 64, 1);
  return getDefaultDType(type);
}
