//===- ReductionsToKernels.cpp - Reductions whose threads cooperate -------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//
//
// The pass: row groups first (fuse-rows), then each remaining reduction by
// the lowering its shape calls for. See ReductionPatterns.h.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/GPU/Passes.h"

#include "ReductionEmitter.h"
#include "ReductionPatterns.h"

#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace dlbridge {
#define GEN_PASS_DEF_REDUCTIONSTOKERNELS
#include "dlbridge/Transforms/GPU/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;
using dlbridge::kMaxThreadsPerBlock;
using dlbridge::kWarpSize;

/// The most blocks a launch may have along y.
constexpr int64_t kMaxGridY = 65535;

namespace {

struct ReductionsToKernelsPass
    : public dlbridge::impl::ReductionsToKernelsBase<ReductionsToKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    if (failed(dlbridge::checkBlockSize(root, blockSize)) ||
        failed(dlbridge::checkBlockSize(root, rowBlockSize, "row-block-size")))
      return signalPassFailure();
    if (warpRowLength < 0) {
      root->emitError() << "warp-row-length="
                        << static_cast<int64_t>(warpRowLength)
                        << ": expected 0 or more";
      return signalPassFailure();
    }
    if (rowCacheBytes < 0 || rowCacheBytes > dlbridge::kMaxRowCacheBytes) {
      root->emitError() << "row-cache-bytes="
                        << static_cast<int64_t>(rowCacheBytes)
                        << ": expected 0 to " << dlbridge::kMaxRowCacheBytes;
      return signalPassFailure();
    }
    // A split column reduction has up to that many blocks along y.
    if (columnBlocks < 1 || columnBlocks > kMaxGridY) {
      root->emitError() << "column-blocks="
                        << static_cast<int64_t>(columnBlocks)
                        << ": expected 1 to " << kMaxGridY;
      return signalPassFailure();
    }
    if (splitRows < 0 || splitBlocks < 1) {
      root->emitError() << "split-rows=" << static_cast<int64_t>(splitRows)
                        << " split-blocks=" << static_cast<int64_t>(splitBlocks)
                        << ": expected split-rows >= 0 and split-blocks >= 1";
      return signalPassFailure();
    }

    if (fuseRows)
      dlbridge::fuseRowGroups(root, {blockSize, rowBlockSize, splitRows,
                                     warpRowLength, rowCacheBytes});

    RewritePatternSet patterns(&getContext());
    dlbridge::populateReduceColumnsPatterns(patterns, blockSize, columnBlocks);
    dlbridge::populateReduceByRowsPatterns(patterns, blockSize, splitRows);
    dlbridge::populateReduceBySplitRowsPatterns(patterns, blockSize, splitRows,
                                                splitBlocks);
    walkAndApplyPatterns(root, std::move(patterns));
  }
};

} // namespace
