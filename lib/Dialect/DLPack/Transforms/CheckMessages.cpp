//===- CheckMessages.cpp - Messages of run-time checks --------------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "CheckMessages.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace dlbridge::dlpack;

std::string dlbridge::dlpack::escapeBraces(StringRef text) {
  std::string escaped;
  for (char c : text) {
    if (c == '{' || c == '}')
      escaped.push_back(c);
    escaped.push_back(c);
  }
  return escaped;
}

std::string dlbridge::dlpack::describeOp(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "'" << op->getName() << "'";
  if (auto file = op->getLoc()->findInstanceOf<FileLineColLoc>())
    os << " at " << file.getFilename().getValue() << ":" << file.getLine()
       << ":" << file.getColumn();
  return text;
}

CheckMessage &CheckMessage::operator<<(StringRef text) {
  format += escapeBraces(text);
  return *this;
}

CheckMessage &CheckMessage::operator<<(Value value) {
  format += "{" + std::to_string(values.size()) + "}";
  values.push_back(value);
  return *this;
}

void CheckMessage::appendShape(OpBuilder &builder, Location loc, Value shaped) {
  auto type = cast<ShapedType>(shaped.getType());
  SmallVector<Value> dynamicSizes;
  for (int64_t dim = 0, rank = type.getRank(); dim < rank; ++dim) {
    if (!type.isDynamicDim(dim))
      continue;
    if (isa<mlir::TensorType>(type))
      dynamicSizes.push_back(
          builder.createOrFold<tensor::DimOp>(loc, shaped, dim));
    else
      dynamicSizes.push_back(
          builder.createOrFold<memref::DimOp>(loc, shaped, dim));
  }
  appendShape(type, dynamicSizes);
}

void CheckMessage::appendShape(ShapedType type, ValueRange dynamicSizes) {
  *this << "(";
  for (int64_t dim = 0, rank = type.getRank(); dim < rank; ++dim) {
    if (dim)
      *this << ", ";
    if (type.isDynamicDim(dim))
      *this << dynamicSizes[type.getDynamicDimIndex(dim)];
    else
      *this << std::to_string(type.getDimSize(dim));
  }
  *this << (type.getRank() == 1 ? ",)" : ")");
}
