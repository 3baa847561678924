//===- TileParallelLoops.cpp - Blocks of threads by loop rank -------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/GPU/Passes.h"

#include "GridStride.h"

#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/MathExtras.h"

namespace dlbridge {
#define GEN_PASS_DEF_TILEPARALLELLOOPS
#include "dlbridge/Transforms/GPU/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

using dlbridge::kMaxThreadsPerBlock;

namespace {

/// CUDA's limits on the shape of a block.
constexpr int64_t kMaxBlockDimZ = 64;

/// `sizes`, or `defaults` when empty; an error naming `option` when they do
/// not make a block of `rank` dimensions.
FailureOr<SmallVector<int64_t>> getBlockSizes(Operation *op, StringRef option,
                                              ArrayRef<int64_t> sizes,
                                              ArrayRef<int64_t> defaults) {
  if (sizes.empty())
    sizes = defaults;
  auto fail = [&]() {
    InFlightDiagnostic diag = op->emitError() << option << "=";
    llvm::interleave(sizes, diag, ",");
    return diag;
  };
  if (sizes.size() != defaults.size()) {
    fail() << ": expected " << defaults.size() << " sizes, one per dimension";
    return failure();
  }
  int64_t threads = 1;
  for (int64_t size : sizes) {
    if (size <= 0) {
      fail() << ": sizes must be positive";
      return failure();
    }
    threads *= std::min(size, kMaxThreadsPerBlock + 1);
  }
  if (threads > kMaxThreadsPerBlock) {
    fail() << ": a block has at most " << kMaxThreadsPerBlock << " threads";
    return failure();
  }
  if (sizes.size() == 3 && sizes[0] > kMaxBlockDimZ) {
    fail() << ": a block has at most " << kMaxBlockDimZ
           << " threads along z (the first size)";
    return failure();
  }
  return SmallVector<int64_t>(sizes);
}

/// The tile sizes for `loop`: `sizes` for its innermost dimensions (1 for
/// the others), where threads a dimension of static extent would leave idle
/// go to the next dimension out. A block stays full whatever the static
/// shape: `tensor<1000x4xf32>` gets 64x4 threads, not 1x4.
SmallVector<int64_t> getTileSizes(scf::ParallelOp loop,
                                  ArrayRef<int64_t> sizes) {
  unsigned rank = loop.getNumLoops();
  SmallVector<int64_t> tile(rank, 1);
  llvm::copy(sizes.take_back(std::min<size_t>(rank, sizes.size())),
             tile.end() - std::min<size_t>(rank, sizes.size()));
  int64_t spare = 1;
  for (unsigned d = rank; d-- > 0;) {
    tile[d] *= spare;
    spare = 1;
    std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound()[d]);
    std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound()[d]);
    std::optional<int64_t> step = getConstantIntValue(loop.getStep()[d]);
    // Threads x, y and z go to the innermost three dimensions.
    int64_t limit = tile[d];
    if (d + 3 == rank)
      limit = kMaxBlockDimZ;
    else if (d + 3 < rank)
      limit = 1;
    if (lower && upper && step && *step > 0) {
      int64_t trips = std::max<int64_t>(
          1, llvm::divideCeil(std::max<int64_t>(*upper - *lower, 0), *step));
      limit = std::min<int64_t>(limit, llvm::PowerOf2Ceil(trips));
    }
    if (tile[d] > limit) {
      spare = tile[d] / limit;
      tile[d] = limit;
    }
  }
  return tile;
}

struct TileParallelLoopsPass
    : public dlbridge::impl::TileParallelLoopsBase<TileParallelLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    FailureOr<SmallVector<int64_t>> sizes1d =
        getBlockSizes(root, "block-sizes-1d", blockSizes1d, {256});
    FailureOr<SmallVector<int64_t>> sizes2d =
        getBlockSizes(root, "block-sizes-2d", blockSizes2d, {1, 256});
    FailureOr<SmallVector<int64_t>> sizes3d =
        getBlockSizes(root, "block-sizes-3d", blockSizes3d, {1, 1, 256});
    if (failed(sizes1d) || failed(sizes2d) || failed(sizes3d))
      return signalPassFailure();

    SmallVector<scf::ParallelOp> innermost;
    root->walk([&](scf::ParallelOp loop) {
      bool hasNested = false;
      loop.getBody()->walk([&](scf::ParallelOp) { hasNested = true; });
      if (!hasNested)
        innermost.push_back(loop);
    });
    for (scf::ParallelOp loop : innermost) {
      unsigned rank = loop.getNumLoops();
      ArrayRef<int64_t> sizes =
          rank == 1 ? *sizes1d : (rank == 2 ? *sizes2d : *sizes3d);
      scf::tileParallelLoop(loop, getTileSizes(loop, sizes), noMinMaxBounds);
    }
  }
};

} // namespace
