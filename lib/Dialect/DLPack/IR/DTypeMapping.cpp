//===- DTypeMapping.cpp - MLIR element types <-> DLPack dtypes ------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Dialect/DLPack/IR/DTypeMapping.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace dlbridge::dlpack;

namespace {
/// A float type with a DLPack code of its own, or plain `float`/`bfloat`.
struct FloatEntry {
  TypeCode code;
  unsigned bits;
  Type (*get)(MLIRContext *);
};

template <typename T> Type getType(MLIRContext *context) {
  return T::get(context);
}

const FloatEntry kFloatTypes[] = {
    {TypeCode::Float, 16, getType<Float16Type>},
    {TypeCode::Float, 32, getType<Float32Type>},
    {TypeCode::Float, 64, getType<Float64Type>},
    {TypeCode::Bfloat, 16, getType<BFloat16Type>},
    {TypeCode::Float8E3M4, 8, getType<Float8E3M4Type>},
    {TypeCode::Float8E4M3, 8, getType<Float8E4M3Type>},
    {TypeCode::Float8E4M3B11FNUZ, 8, getType<Float8E4M3B11FNUZType>},
    {TypeCode::Float8E4M3FN, 8, getType<Float8E4M3FNType>},
    {TypeCode::Float8E4M3FNUZ, 8, getType<Float8E4M3FNUZType>},
    {TypeCode::Float8E5M2, 8, getType<Float8E5M2Type>},
    {TypeCode::Float8E5M2FNUZ, 8, getType<Float8E5M2FNUZType>},
    {TypeCode::Float8E8M0FNU, 8, getType<Float8E8M0FNUType>},
    {TypeCode::Float6E2M3FN, 6, getType<Float6E2M3FNType>},
    {TypeCode::Float6E3M2FN, 6, getType<Float6E3M2FNType>},
    {TypeCode::Float4E2M1FN, 4, getType<Float4E2M1FNType>},
};

/// The dtype of a scalar (non-vector) element type, or null.
DTypeAttr getScalarDType(Type type) {
  MLIRContext *context = type.getContext();
  if (auto intType = dyn_cast<IntegerType>(type)) {
    unsigned width = intType.getWidth();
    if (width == 1 && intType.isSignless())
      return DTypeAttr::get(context, TypeCode::Bool, 8, 1);
    if (width != 8 && width != 16 && width != 32 && width != 64)
      return {};
    return DTypeAttr::get(context,
                          intType.isUnsigned() ? TypeCode::UInt : TypeCode::Int,
                          width, 1);
  }
  if (auto complexType = dyn_cast<ComplexType>(type)) {
    DTypeAttr part = getScalarDType(complexType.getElementType());
    if (!part || part.getCode() != TypeCode::Float)
      return {};
    return DTypeAttr::get(context, TypeCode::Complex, 2 * part.getBits(), 1);
  }
  for (const FloatEntry &entry : kFloatTypes)
    if (entry.get(context) == type)
      return DTypeAttr::get(context, entry.code, entry.bits, 1);
  return {};
}

/// The scalar element type of a one-lane dtype, or null.
Type getScalarType(MLIRContext *context, TypeCode code, unsigned bits) {
  switch (code) {
  case TypeCode::Bool:
    return bits == 8 ? IntegerType::get(context, 1) : Type();
  case TypeCode::Int:
  case TypeCode::UInt:
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
      return {};
    return IntegerType::get(context, bits,
                            code == TypeCode::UInt ? IntegerType::Unsigned
                                                   : IntegerType::Signless);
  case TypeCode::Complex:
    if (Type part = getScalarType(context, TypeCode::Float, bits / 2);
        part && bits % 2 == 0)
      return ComplexType::get(part);
    return {};
  case TypeCode::OpaqueHandle:
    return {};
  default:
    for (const FloatEntry &entry : kFloatTypes)
      if (entry.code == code && entry.bits == bits)
        return entry.get(context);
    return {};
  }
}
} // namespace

DTypeAttr dlbridge::dlpack::getDefaultDType(Type type) {
  auto vectorType = dyn_cast<VectorType>(type);
  if (!vectorType)
    return getScalarDType(type);
  if (vectorType.getRank() != 1 || vectorType.isScalable())
    return {};
  DTypeAttr lane = getScalarDType(vectorType.getElementType());
  if (!lane)
    return {};
  return DTypeAttr::get(type.getContext(), lane.getCode(), lane.getBits(),
                        vectorType.getDimSize(0));
}

Type dlbridge::dlpack::getElementType(DTypeAttr dtype) {
  Type scalar =
      getScalarType(dtype.getContext(), dtype.getCode(), dtype.getBits());
  if (!scalar || dtype.getLanes() == 1)
    return scalar;
  return VectorType::get({static_cast<int64_t>(dtype.getLanes())}, scalar);
}

bool dlbridge::dlpack::isCompatible(DTypeAttr dtype, Type type) {
  DTypeAttr natural = getDefaultDType(type);
  if (!natural)
    return false;
  if (natural == dtype)
    return true;
  Type scalar = type;
  if (auto vectorType = dyn_cast<VectorType>(type))
    scalar = vectorType.getElementType();
  return scalar.isSignlessInteger() && natural.getCode() == TypeCode::Int &&
         dtype.getCode() == TypeCode::UInt &&
         dtype.getBits() == natural.getBits() &&
         dtype.getLanes() == natural.getLanes();
}

/// What to use instead of `type`, an element type with no DLPack dtype.
static StringRef getElementTypeAdvice(Type type) {
  if (type.isIndex())
    return "use i64 or i32 (index has no fixed width)";
  if (isa<FloatType>(type))
    return "use f16, bf16, f32, f64 or an f8 type";
  if (isa<IntegerType>(type))
    return "use i1 (bool) or an integer of 8, 16, 32 or 64 bits";
  if (isa<ComplexType>(type))
    return "use complex<f16>, complex<f32> or complex<f64>";
  return "use an integer, float, complex or bool element type";
}

/// Checks that `elementType` has a whole-byte dtype compatible with `dtype`
/// (null: its default).
static LogicalResult
verifyBoundaryElementType(function_ref<InFlightDiagnostic()> emitError,
                          Type elementType, DTypeAttr dtype) {
  DTypeAttr natural = getDefaultDType(elementType);
  if (!natural) {
    if (auto vectorType = dyn_cast<VectorType>(elementType)) {
      if (vectorType.getRank() != 1)
        return emitError() << "vector element type " << elementType
                           << " has no DLPack dtype: DLPack lanes are "
                              "one-dimensional; use a 1-d vector element "
                              "type or fold the other dims into the shape";
      elementType = vectorType.getElementType();
    }
    return emitError() << "element type " << elementType
                       << " has no DLPack dtype: "
                       << getElementTypeAdvice(elementType);
  }
  if (natural.getBits() % 8 != 0)
    return emitError() << "sub-byte element type " << elementType
                       << " cannot cross the DLPack boundary: pass the "
                          "packed data as i8 and unpack it in the function";
  if (dtype && !isCompatible(dtype, elementType))
    return emitError() << "dtype " << dtype
                       << " does not describe element type " << elementType;
  return success();
}

LogicalResult dlbridge::dlpack::verifyBoundaryMemRefType(
    function_ref<InFlightDiagnostic()> emitError, MemRefType type,
    DTypeAttr dtype) {
  if (failed(
          verifyBoundaryElementType(emitError, type.getElementType(), dtype)))
    return failure();
  if (!type.getLayout().isIdentity() &&
      !isa<StridedLayoutAttr>(type.getLayout()))
    return emitError() << "layout " << type.getLayout()
                       << " cannot cross the DLPack boundary: expected the "
                          "identity or a strided layout; take a strided "
                          "memref and apply the map in the function's "
                          "indexing";
  if (type.getMemorySpace())
    return emitError() << "memory space " << type.getMemorySpace()
                       << " cannot cross the DLPack boundary: remove it (a "
                          "DLPack tensor's device says where its memory is; "
                          "compile for CUDA for GPU memory)";
  return success();
}

LogicalResult dlbridge::dlpack::verifyBoundaryType(
    function_ref<InFlightDiagnostic()> emitError, Type type) {
  if (auto memrefType = dyn_cast<MemRefType>(type))
    return verifyBoundaryMemRefType(emitError, memrefType, /*dtype=*/nullptr);
  if (auto tensorType = dyn_cast<RankedTensorType>(type)) {
    if (tensorType.getEncoding())
      return emitError() << "tensor type " << type
                         << " has an encoding, which DLPack cannot describe: "
                            "DLPack tensors are dense; pass dense tensors "
                            "(a sparse tensor's storage arrays, one each)";
    return verifyBoundaryElementType(emitError, tensorType.getElementType(),
                                     /*dtype=*/nullptr);
  }
  if (isa<UnrankedTensorType, UnrankedMemRefType>(type))
    return emitError() << "unranked type " << type
                       << " cannot cross the DLPack boundary: give it a "
                          "rank (sizes may be dynamic, e.g. tensor<?x?xf32>)";
  if (type.isIndex())
    return success();
  if (isa<IntegerType, FloatType>(type)) {
    if (!getDefaultDType(type))
      return emitError() << "scalar type " << type << " has no DLPack dtype: "
                         << getElementTypeAdvice(type);
    return success();
  }
  InFlightDiagnostic diag = emitError()
                            << "type " << type
                            << " cannot cross the DLPack boundary, which "
                               "takes ranked tensors, memrefs and integer, "
                               "float or index scalars: ";
  if (auto vectorType = dyn_cast<VectorType>(type))
    diag << "pass a tensor or memref of the vector's shape and read it with "
            "vector.transfer_read";
  else if (isa<TupleType>(type))
    diag << "pass each element of the tuple as its own value";
  else if (isa<LLVM::LLVMPointerType>(type))
    diag << "pass the buffer as a memref";
  else if (isa<ComplexType>(type))
    diag << "pass a 0-d tensor or memref of " << type;
  else
    diag << "pass it as one of those";
  return diag;
}
