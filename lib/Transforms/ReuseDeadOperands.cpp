//===- ReuseDeadOperands.cpp - Elementwise results into dead operands -----===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/Passes.h"

namespace dlbridge {
#define GEN_PASS_DEF_REUSEDEADOPERANDS
#include "dlbridge/Transforms/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {

/// Whether `value` is the result of a linalg op whose destination is a
/// tensor of its own: a tensor.empty, or a fill of one.
bool isFreshLinalgResult(Value value) {
  auto producer = value.getDefiningOp<linalg::LinalgOp>();
  if (!producer || producer->getNumResults() != 1)
    return false;
  Value init = producer.getDpsInits()[0];
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    init = fill.getDpsInits()[0];
  return init.getDefiningOp<tensor::EmptyOp>() != nullptr;
}

/// Whether `input` is `op`'s only reader of its value: other uses may only
/// ask for its sizes, which writing into it leaves as they are.
bool isLastRead(OpOperand *input, Operation *op) {
  for (OpOperand &use : input->get().getUses())
    if (&use != input && !isa<tensor::DimOp>(use.getOwner()))
      return false;
  return true;
}

/// The input `op` can write its result into, or null.
OpOperand *findReusableInput(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops())
    return nullptr;
  OpOperand *init = op.getDpsInitOperand(0);
  if (!init->get().getDefiningOp<tensor::EmptyOp>() ||
      op.payloadUsesValueFromOperand(init))
    return nullptr;
  AffineMap initMap = op.getMatchingIndexingMap(init);
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value value = input->get();
    if (value.getType() == init->get().getType() && isLastRead(input, op) &&
        op.getMatchingIndexingMap(input) == initMap &&
        isFreshLinalgResult(value))
      return input;
  }
  return nullptr;
}

struct ReuseDeadOperandsPass
    : public dlbridge::impl::ReuseDeadOperandsBase<ReuseDeadOperandsPass> {
  void runOnOperation() override {
    getOperation()->walk([](linalg::GenericOp op) {
      if (OpOperand *input = findReusableInput(op))
        op.getDpsInitOperand(0)->set(input->get());
    });
  }
};

} // namespace
