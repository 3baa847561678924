//===- ExpandShapesToReinterpretCasts.cpp - Dynamic expand_shape metadata -===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace dlbridge {
#define GEN_PASS_DEF_EXPANDSHAPESTOREINTERPRETCASTS
#include "dlbridge/Transforms/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {

/// Whether a reassociation group of `op` expands into several dynamic sizes.
bool hasGroupOfDynamicSizes(memref::ExpandShapeOp op) {
  ArrayRef<int64_t> shape = op.getResultType().getShape();
  return llvm::any_of(op.getReassociationIndices(),
                      [&](const ReassociationIndices &group) {
                        return llvm::count_if(group, [&](int64_t dim) {
                                 return ShapedType::isDynamic(shape[dim]);
                               }) > 1;
                      });
}

/// `memref.expand_shape` as the view it is: the source's base buffer and
/// offset, the output shape, and in each group the source dimension's stride
/// for the innermost size, multiplied outwards by the sizes inside.
struct ExpandShapeToReinterpretCast
    : public OpRewritePattern<memref::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(memref::ExpandShapeOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasGroupOfDynamicSizes(op))
      return rewriter.notifyMatchFailure(op, "upstream expands it");
    MemRefType resultType = op.getResultType();
    SmallVector<int64_t> staticStrides;
    int64_t staticOffset;
    if (failed(resultType.getStridesAndOffset(staticStrides, staticOffset)))
      return rewriter.notifyMatchFailure(op, "result is not strided");
    Location loc = op.getLoc();
    auto metadata =
        memref::ExtractStridedMetadataOp::create(rewriter, loc, op.getSrc());
    SmallVector<OpFoldResult> sizes = op.getMixedOutputShape();
    SmallVector<OpFoldResult> strides(resultType.getRank());
    for (auto [sourceDim, group] :
         llvm::enumerate(op.getReassociationIndices())) {
      OpFoldResult stride = metadata.getConstifiedMixedStrides()[sourceDim];
      for (int64_t dim : llvm::reverse(group)) {
        strides[dim] = stride;
        if (dim == group.front())
          break;
        Value inner = getValueOrCreateConstantIndexOp(rewriter, loc, stride);
        Value size = getValueOrCreateConstantIndexOp(rewriter, loc, sizes[dim]);
        stride = rewriter.createOrFold<arith::MulIOp>(loc, inner, size);
      }
    }
    // The result type's static strides and offset are facts the verifier
    // checks against the operands: give them as constants.
    for (auto [stride, known] : llvm::zip(strides, staticStrides))
      if (!ShapedType::isDynamic(known))
        stride = rewriter.getIndexAttr(known);
    OpFoldResult offset = ShapedType::isDynamic(staticOffset)
                              ? metadata.getConstifiedMixedOffset()
                              : rewriter.getIndexAttr(staticOffset);
    rewriter.replaceOpWithNewOp<memref::ReinterpretCastOp>(
        op, resultType, metadata.getBaseBuffer(), offset, sizes, strides);
    return success();
  }
};

struct ExpandShapesToReinterpretCastsPass
    : public dlbridge::impl::ExpandShapesToReinterpretCastsBase<
          ExpandShapesToReinterpretCastsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandShapeToReinterpretCast>(&getContext());
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace
