//===- MapParallelLoops.cpp - Loop dimensions to blocks and threads -------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/GPU/Passes.h"

#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace dlbridge {
#define GEN_PASS_DEF_MAPPARALLELLOOPS
#include "dlbridge/Transforms/GPU/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {

using gpu::Processor;

constexpr int64_t kMaxThreadsPerBlock = 1024;
constexpr int64_t kMaxBlockDimZ = 64;

/// Blocks in order (dimension 0 to x, whose grid size is largest), threads
/// from the innermost dimension (to x, along which warps are formed);
/// dimensions beyond three, and loops nested deeper, run sequentially.
SmallVector<Processor> getProcessors(unsigned rank, bool threads) {
  SmallVector<Processor> processors(rank, Processor::Sequential);
  const Processor blocks[] = {Processor::BlockX, Processor::BlockY,
                              Processor::BlockZ};
  const Processor threadIds[] = {Processor::ThreadX, Processor::ThreadY,
                                 Processor::ThreadZ};
  for (unsigned i = 0; i < std::min(rank, 3u); ++i) {
    if (threads)
      processors[rank - 1 - i] = threadIds[i];
    else
      processors[i] = blocks[i];
  }
  return processors;
}

/// Whether `loop`'s iterations fit one block, each dimension mapped by
/// `getProcessors(rank, /*threads=*/true)`: its trip counts are static and
/// within CUDA's limits.
bool fitsOneBlock(scf::ParallelOp loop) {
  unsigned rank = loop.getNumLoops();
  int64_t total = 1;
  for (unsigned d = 0; d < rank; ++d) {
    std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound()[d]);
    std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound()[d]);
    std::optional<int64_t> step = getConstantIntValue(loop.getStep()[d]);
    if (!lower || !upper || !step || *step <= 0)
      return false;
    int64_t trips =
        llvm::divideCeil(std::max<int64_t>(*upper - *lower, 0), *step);
    if (d + 3 == rank && trips > kMaxBlockDimZ)
      return false;
    // Sequential dimensions do not count towards the block.
    if (d + 3 < rank)
      continue;
    total *= std::min(trips, kMaxThreadsPerBlock + 1);
  }
  return total <= kMaxThreadsPerBlock;
}

void setMapping(scf::ParallelOp loop, ArrayRef<Processor> processors) {
  MLIRContext *context = loop.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(1, context);
  SmallVector<gpu::ParallelLoopDimMappingAttr> mapping;
  for (Processor processor : processors)
    mapping.push_back(gpu::ParallelLoopDimMappingAttr::get(context, processor,
                                                           identity, identity));
  // Each processor appears at most once: this cannot fail.
  (void)gpu::setMappingAttr(loop, mapping);
}

/// Maps `loop`, at `level` of a nest, and the loops directly in its body at
/// the next level. As upstream, loops nested in other operations (an
/// `scf.for` of a reduction) keep no mapping: they run sequentially in the
/// threads of the kernel around them.
void mapNest(scf::ParallelOp loop, unsigned level) {
  unsigned rank = loop.getNumLoops();
  if (level == 0) {
    // A lone loop is the threads of a tiled loop whose single block
    // canonicalisation folded away: it stays one block of threads.
    bool hasNested = false;
    loop.getBody()->walk([&](scf::ParallelOp) { hasNested = true; });
    setMapping(loop, getProcessors(rank, !hasNested && fitsOneBlock(loop)));
  } else if (level == 1) {
    setMapping(loop, getProcessors(rank, /*threads=*/true));
  } else {
    setMapping(loop, SmallVector<Processor>(rank, Processor::Sequential));
  }
  for (Operation &op : *loop.getBody())
    if (auto nested = dyn_cast<scf::ParallelOp>(op))
      mapNest(nested, level + 1);
}

struct MapParallelLoopsPass
    : public dlbridge::impl::MapParallelLoopsBase<MapParallelLoopsPass> {
  void runOnOperation() override {
    getOperation()->walk([](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>())
        mapNest(loop, 0);
    });
  }
};

} // namespace
