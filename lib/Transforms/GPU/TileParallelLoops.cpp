//===- TileParallelLoops.cpp - Blocks of threads by loop rank -------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/GPU/Passes.h"

#include "mlir/Dialect/SCF/Transforms/Transforms.h"

namespace dlbridge {
#define GEN_PASS_DEF_TILEPARALLELLOOPS
#include "dlbridge/Transforms/GPU/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {

/// CUDA's limits on the shape of a block.
constexpr int64_t kMaxThreadsPerBlock = 1024;
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
  if (sizes.size() == 3 && sizes[2] > kMaxBlockDimZ) {
    fail() << ": a block has at most " << kMaxBlockDimZ
           << " threads along z (the third size)";
    return failure();
  }
  return SmallVector<int64_t>(sizes);
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
        getBlockSizes(root, "block-sizes-3d", blockSizes3d, {1, 1, 64});
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
      scf::tileParallelLoop(loop, sizes, noMinMaxBounds);
    }
  }
};

} // namespace
