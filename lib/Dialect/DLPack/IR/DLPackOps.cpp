//===- DLPackOps.cpp - dlpack operations ----------------------------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Dialect/DLPack/IR/DLPackOps.h"

#include "dlbridge/Dialect/DLPack/IR/DTypeMapping.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace dlbridge::dlpack;

#define GET_OP_CLASSES
#include "dlbridge/Dialect/DLPack/IR/DLPackOps.cpp.inc"

LogicalResult AssertOp::verify() {
  StringRef message = getMessage();
  for (size_t i = 0; i < message.size(); ++i) {
    char c = message[i];
    if ((c == '{' || c == '}') && i + 1 < message.size() &&
        message[i + 1] == c) {
      ++i;
      continue;
    }
    if (c == '}')
      return emitOpError() << "message has a '}' at " << i
                           << " that closes no placeholder; write '}}' for a "
                              "brace";
    if (c != '{')
      continue;
    size_t close = message.find('}', i);
    unsigned index = 0;
    if (close == StringRef::npos ||
        message.slice(i + 1, close).getAsInteger(10, index))
      return emitOpError() << "message has a '{' at " << i
                           << " that starts no placeholder '{<index>}'; "
                              "write '{{' for a brace";
    if (index >= getValues().size())
      return emitOpError() << "message refers to value " << index
                           << ", but the op has " << getValues().size()
                           << " value" << (getValues().size() == 1 ? "" : "s");
    i = close;
  }
  return success();
}

LogicalResult AssertOp::canonicalize(AssertOp op, PatternRewriter &rewriter) {
  if (!matchPattern(op.getCondition(), m_One()))
    return failure();
  rewriter.eraseOp(op);
  return success();
}

LogicalResult CheckOp::verify() {
  if (!getParam().getMemRefType())
    return emitOpError() << "checks tensors, but parameter '"
                         << getParam().getName() << "' is a scalar of type "
                         << getParam().getType();
  return success();
}

LogicalResult UnpackOp::verify() {
  return verifyBoundaryMemRefType([&] { return emitOpError(); }, getType(),
                                  /*dtype=*/nullptr);
}

LogicalResult PackOp::verify() {
  return verifyBoundaryMemRefType([&] { return emitOpError(); },
                                  getMemref().getType(), getDtypeAttr());
}

ParamAttr PackOp::getResultParam() {
  return ParamAttr::get(getContext(), getName().value_or("result"),
                        getMemref().getType(), Access::ReadWrite,
                        getDtypeAttr());
}

LogicalResult
SignatureOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto function = symbolTable.lookupNearestSymbolFrom<FunctionOpInterface>(
      *this, getFunctionAttr());
  if (!function)
    return emitOpError() << "refers to " << getFunctionAttr()
                         << ", which is not a function";
  auto checkParams = [&](ArrayAttr params, ArrayRef<Type> types,
                         StringRef what) -> LogicalResult {
    if (params.size() != types.size())
      return emitOpError() << "has " << params.size() << " " << what
                           << " records, but " << getFunctionAttr() << " has "
                           << types.size() << " " << what << "s";
    for (auto [index, param, type] :
         llvm::enumerate(params.getAsRange<ParamAttr>(), types))
      if (param.getType() != type)
        return emitOpError()
               << what << " record " << index << " has type " << param.getType()
               << ", but " << what << " " << index << " of "
               << getFunctionAttr() << " is " << type;
    return success();
  };
  if (failed(
          checkParams(getArgParams(), function.getArgumentTypes(), "argument")))
    return failure();
  return checkParams(getResultParams(), function.getResultTypes(), "result");
}
