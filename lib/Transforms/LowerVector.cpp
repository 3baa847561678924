//===- LowerVector.cpp - Vector ops a conversion to LLVM or NVVM takes ----===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/Passes.h"

#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dlbridge {
#define GEN_PASS_DEF_LOWERVECTOR
#include "dlbridge/Transforms/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {
struct LowerVectorPass
    : public dlbridge::impl::LowerVectorBase<LowerVectorPass> {
  void runOnOperation() override {
    // Masks and n-d ops first: the rewrites below expect unmasked 1-d
    // transfers.
    RewritePatternSet structure(&getContext());
    vector::populateVectorMaskLoweringPatternsForSideEffectingOps(structure);
    vector::populateVectorMultiReductionLoweringPatterns(
        structure, vector::VectorMultiReductionLowering::InnerParallel);
    VectorTransferToSCFOptions unrolled;
    unrolled.enableFullUnroll();
    populateVectorToSCFConversionPatterns(structure, unrolled);
    // As convert-vector-to-llvm, not insisting on a fixpoint: what is left
    // over is diagnosed by the conversion that follows.
    (void)applyPatternsGreedily(getOperation(), std::move(structure));

    // What convert-vector-to-llvm applies before converting.
    RewritePatternSet patterns(&getContext());
    vector::populateVectorToVectorCanonicalizationPatterns(patterns);
    vector::populateVectorBroadcastLoweringPatterns(patterns);
    vector::populateVectorContractLoweringPatterns(
        patterns, vector::VectorContractLowering::Dot);
    vector::populateVectorMaskOpLoweringPatterns(patterns);
    vector::populateVectorShapeCastLoweringPatterns(patterns);
    vector::populateVectorTransposeLoweringPatterns(
        patterns, vector::VectorTransposeLowering::EltWise);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorTransferLoweringPatterns(patterns,
                                                   /*maxTransferRank=*/1);
    vector::populateVectorMaskMaterializationPatterns(
        patterns, /*force32BitVectorIndices=*/true);
    vector::populateVectorInsertExtractStridedSliceTransforms(patterns);
    vector::populateVectorGatherLoweringPatterns(patterns);
    vector::populateVectorRankReducingFMAPattern(patterns);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};
} // namespace
