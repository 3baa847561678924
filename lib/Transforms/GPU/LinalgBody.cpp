//===- LinalgBody.cpp - A linalg op's body at one iteration ---------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "LinalgBody.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

SmallVector<Value> dlbridge::applyMap(OpBuilder &b, Location loc, AffineMap map,
                                      ArrayRef<Value> ivs) {
  SmallVector<Value> indices;
  for (AffineExpr result : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(result))
      indices.push_back(ivs[dim.getPosition()]);
    else
      indices.push_back(affine::AffineApplyOp::create(
          b, loc, AffineMap::get(map.getNumDims(), 0, result), ivs));
  }
  return indices;
}

SmallVector<Value>
dlbridge::emitLinalgBody(OpBuilder &b, Location loc, linalg::LinalgOp op,
                         ArrayRef<Value> ivs,
                         function_ref<Value(OpOperand &)> read) {
  IRMapping mapping;
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    if (arg.use_empty())
      continue;
    Value value = read(operand);
    if (!value && isa<MemRefType>(operand.get().getType()))
      value = memref::LoadOp::create(
          b, loc, operand.get(),
          applyMap(b, loc, op.getMatchingIndexingMap(&operand), ivs));
    mapping.map(arg, value ? value : operand.get());
  }
  Block &body = op->getRegion(0).front();
  for (Operation &bodyOp : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(bodyOp))
      mapping.map(index.getResult(), ivs[index.getDim()]);
    else
      b.clone(bodyOp, mapping);
  }
  return llvm::map_to_vector(body.getTerminator()->getOperands(), [&](Value v) {
    return mapping.lookupOrDefault(v);
  });
}
