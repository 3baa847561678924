//===- LowerSubgroupReduce.cpp - Subgroup reductions as shuffles ----------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/GPU/Passes.h"

#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dlbridge {
#define GEN_PASS_DEF_LOWERSUBGROUPREDUCE
#include "dlbridge/Transforms/GPU/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {

constexpr unsigned kWidestShuffle = 64;

struct LowerSubgroupReducePass
    : public dlbridge::impl::LowerSubgroupReduceBase<LowerSubgroupReducePass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateGpuBreakDownSubgroupReducePatterns(patterns, shuffleBitwidth);
    populateGpuLowerSubgroupReduceToShufflePatterns(
        patterns, subgroupSize, shuffleBitwidth, /*benefit=*/2);
    populateGpuLowerClusteredSubgroupReduceToShufflePatterns(
        patterns, subgroupSize, shuffleBitwidth, /*benefit=*/2);
    // Scalars wider than that: 64-bit shuffles, which convert-gpu-to-nvvm
    // splits into two.
    populateGpuLowerSubgroupReduceToShufflePatterns(patterns, subgroupSize,
                                                    kWidestShuffle);
    populateGpuLowerClusteredSubgroupReduceToShufflePatterns(
        patterns, subgroupSize, kWidestShuffle);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
