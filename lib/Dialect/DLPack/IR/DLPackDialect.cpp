//===- DLPackDialect.cpp - dlpack dialect ---------------------------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Dialect/DLPack/IR/DLPackDialect.h"

#include "dlbridge/Dialect/DLPack/IR/DLPackOps.h"
#include "dlbridge/Dialect/DLPack/IR/DTypeMapping.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace dlbridge::dlpack;

#include "dlbridge/Dialect/DLPack/IR/DLPackOpsDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dlbridge/Dialect/DLPack/IR/DLPackOpsTypes.cpp.inc"

void DLPackDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "dlbridge/Dialect/DLPack/IR/DLPackOps.cpp.inc"
      >();
}

void DLPackDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dlbridge/Dialect/DLPack/IR/DLPackOpsTypes.cpp.inc"
      >();
}

/// Checks that every parameter and result of the `dlpack.entry` function
/// `function` can cross the DLPack boundary, and that it has a body. Errors
/// about a parameter are at its location in the source.
static LogicalResult verifyEntrySignature(FunctionOpInterface function) {
  auto describe = [&](Location loc) {
    return emitError(loc) << "'" << function->getName() << "' @"
                          << function.getName() << " ("
                          << DLPackDialect::kEntryAttrName << ") ";
  };
  if (function.isExternal())
    return describe(function.getLoc())
           << "is a declaration: give it a body (only a function defined in "
              "the module can be an entry)";
  for (auto [index, type] : llvm::enumerate(function.getArgumentTypes())) {
    Location loc = function.getArgument(index).getLoc();
    if (failed(verifyBoundaryType(
            [&] { return describe(loc) << "argument " << index << ": "; },
            type)))
      return failure();
  }
  for (auto [index, type] : llvm::enumerate(function.getResultTypes()))
    if (failed(verifyBoundaryType(
            [&] {
              return describe(function.getLoc()) << "result " << index << ": ";
            },
            type)))
      return failure();
  return success();
}

LogicalResult DLPackDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  if (attr.getName() == kInBoundsAttrName) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << kInBoundsAttrName << "' must be a unit attribute";
    return success();
  }
  if (attr.getName() != kEntryAttrName)
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' is not an operation attribute of the dlpack "
                              "dialect";
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitError() << "'" << kEntryAttrName
                           << "' must be a unit attribute";
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function)
    return op->emitError() << "'" << kEntryAttrName
                           << "' applies to functions only";
  return verifyEntrySignature(function);
}

/// Verifies `dlpack.name` and `dlpack.dtype` on a value of type `type`;
/// `what` is "argument" or "result" for messages.
static LogicalResult verifyValueAttribute(Operation *op, Type type,
                                          StringRef what, unsigned index,
                                          NamedAttribute attr) {
  if (attr.getName() == DLPackDialect::kNameAttrName) {
    auto name = dyn_cast<StringAttr>(attr.getValue());
    if (!name || name.empty())
      return op->emitError()
             << "'" << DLPackDialect::kNameAttrName << "' of " << what << " "
             << index << " must be a non-empty string";
    return success();
  }
  if (attr.getName() == DLPackDialect::kDTypeAttrName) {
    auto dtype = dyn_cast<DTypeAttr>(attr.getValue());
    if (!dtype)
      return op->emitError()
             << "'" << DLPackDialect::kDTypeAttrName << "' of " << what << " "
             << index << " must be a #dlpack.dtype";
    auto emitError = [&] {
      return op->emitError() << what << " " << index << ": ";
    };
    if (auto memrefType = dyn_cast<MemRefType>(type))
      return verifyBoundaryMemRefType(emitError, memrefType, dtype);
    // Tensors become memrefs at bufferization, which checks their layout.
    if (auto tensorType = dyn_cast<RankedTensorType>(type)) {
      if (!isCompatible(dtype, tensorType.getElementType()))
        return emitError() << "dtype " << dtype
                           << " does not describe element type "
                           << tensorType.getElementType();
      return success();
    }
    return op->emitError() << "'" << DLPackDialect::kDTypeAttrName
                           << "' applies to memref and tensor " << what
                           << "s, but " << what << " " << index << " is "
                           << type;
  }
  return op->emitError() << "'" << attr.getName().getValue()
                         << "' is not a dlpack attribute of " << what << "s";
}

LogicalResult DLPackDialect::verifyRegionArgAttribute(Operation *op,
                                                      unsigned regionIndex,
                                                      unsigned argIndex,
                                                      NamedAttribute attr) {
  Region &region = op->getRegion(regionIndex);
  Type type;
  if (auto function = dyn_cast<FunctionOpInterface>(op))
    type = function.getArgumentTypes()[argIndex];
  else if (!region.empty())
    type = region.getArgument(argIndex).getType();
  return verifyValueAttribute(op, type, "argument", argIndex, attr);
}

LogicalResult DLPackDialect::verifyRegionResultAttribute(Operation *op,
                                                         unsigned regionIndex,
                                                         unsigned resultIndex,
                                                         NamedAttribute attr) {
  Type type;
  if (auto function = dyn_cast<FunctionOpInterface>(op))
    type = function.getResultTypes()[resultIndex];
  return verifyValueAttribute(op, type, "result", resultIndex, attr);
}
