//===- FuseElementwiseOps.cpp - Elementwise fusion that spares matmuls ----===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dlbridge {
#define GEN_PASS_DEF_FUSEELEMENTWISEOPS
#include "dlbridge/Transforms/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {

bool isContraction(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && linalg::isaContractionOpInterface(linalgOp);
}

/// Whether `producer` is an elementwise op read only by linalg ops it can
/// fuse into: fused into each, its payload is recomputed where it is read,
/// and the full-size tensor it writes (softmax's exponentials, read by the
/// sum and by the division) is never materialised.
bool isRecomputedByEveryReader(Operation *producer) {
  auto generic = dyn_cast<linalg::GenericOp>(producer);
  if (!generic || !linalg::isElementwise(generic))
    return false;
  return llvm::all_of(producer->getUsers(), [](Operation *user) {
    return isa<linalg::GenericOp>(user) && !isContraction(user);
  });
}

/// Whether `value` holds 8-bit floats. Their arithmetic is emulated in f32
/// (--dlbridge-expand-small-floats), which rounds to the small type only
/// where a value is stored: fused, a chain of such ops would round once at
/// its end instead of after every op as NumPy (ml_dtypes) does.
bool holdsEightBitFloats(Value value) {
  auto type = dyn_cast<FloatType>(getElementTypeOrSelf(value.getType()));
  return type && type.getWidth() == 8;
}

/// Upstream's rule (the producer has no other use) or a producer every
/// reader recomputes; neither side of the fusion is a contraction, and the
/// fused value is not made of 8-bit floats.
bool shouldFuse(OpOperand *fusedOperand) {
  Operation *producer = fusedOperand->get().getDefiningOp();
  return producer &&
         (producer->hasOneUse() || isRecomputedByEveryReader(producer)) &&
         !isContraction(producer) && !isContraction(fusedOperand->getOwner()) &&
         !holdsEightBitFloats(fusedOperand->get());
}

struct FuseElementwiseOpsPass
    : public dlbridge::impl::FuseElementwiseOpsBase<FuseElementwiseOpsPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    // The pattern set of upstream's linalg-fuse-elementwise-ops.
    linalg::populateElementwiseOpsFusionPatterns(patterns, shouldFuse);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, shouldFuse);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, shouldFuse);
    // Sizes of linalg results read from their inits instead, so that asking
    // for a size (shape checks do) does not keep a fused producer alive.
    memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns),
                                GreedyRewriteConfig().setUseTopDownTraversal());
  }
};

} // namespace
