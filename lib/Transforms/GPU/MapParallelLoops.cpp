//===- MapParallelLoops.cpp - Loop dimensions to blocks and threads -------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/GPU/Passes.h"

#include "GridStride.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/MathExtras.h"

namespace dlbridge {
#define GEN_PASS_DEF_MAPPARALLELLOOPS
#include "dlbridge/Transforms/GPU/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {

using dlbridge::kMaxThreadsPerBlock;
using dlbridge::kWarpSize;
using gpu::Processor;

constexpr int64_t kMaxBlockDimZ = 64;
/// Threads per block of a loop numbered in one sequence, and the warp size,
/// the granule of a smaller block.
constexpr int64_t kBlockSize = 256;

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
/// `getProcessors(rank, /*threads=*/true)`: its trip counts are static, at
/// least one iteration in all, within CUDA's limits, and 1 in the
/// dimensions beyond three, which would run sequentially.
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
    if ((d + 3 == rank && trips > kMaxBlockDimZ) || (d + 3 < rank && trips > 1))
      return false;
    total *= std::min(trips, kMaxThreadsPerBlock + 1);
  }
  return total >= 1 && total <= kMaxThreadsPerBlock;
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

/// The number of iterations of dimension `d` of `loop`, built before it.
Value buildTripCount(OpBuilder &b, scf::ParallelOp loop, unsigned d) {
  Location loc = loop.getLoc();
  Value extent = b.createOrFold<arith::SubIOp>(loc, loop.getUpperBound()[d],
                                               loop.getLowerBound()[d]);
  Value trips =
      b.createOrFold<arith::CeilDivSIOp>(loc, extent, loop.getStep()[d]);
  return b.createOrFold<arith::MaxSIOp>(
      loc, trips, arith::ConstantIndexOp::create(b, loc, 0));
}

/// Replaces `loop` by a loop over blocks and one over the threads of each:
/// its iterations numbered in row-major order (the innermost dimension
/// fastest, so that consecutive threads walk the contiguous dimension), each
/// block taking `kBlockSize` consecutive numbers (a static count below it,
/// the warps that cover it), each thread one, its indices recovered by
/// division, the body guarded where the count is not a multiple of the
/// block. Every bound of the new loops is defined before them, the thread
/// loop's a constant: the block size `convert-parallel-loops-to-gpu` needs.
void mapToBlocksOfThreads(scf::ParallelOp loop) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  unsigned rank = loop.getNumLoops();
  SmallVector<Value> trips;
  Value count = arith::ConstantIndexOp::create(b, loc, 1);
  for (unsigned d = 0; d < rank; ++d) {
    trips.push_back(buildTripCount(b, loop, d));
    count = b.createOrFold<arith::MulIOp>(loc, count, trips.back());
  }
  std::optional<int64_t> staticCount = getConstantIntValue(count);
  int64_t blockSize = kBlockSize;
  if (staticCount)
    blockSize = std::clamp<int64_t>(llvm::alignTo(*staticCount, kWarpSize),
                                    kWarpSize, kBlockSize);

  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value block = arith::ConstantIndexOp::create(b, loc, blockSize);
  auto blocks = scf::ParallelOp::create(b, loc, zero, count, block);
  setMapping(blocks, Processor::BlockX);
  b.setInsertionPointToStart(blocks.getBody());
  auto threads = scf::ParallelOp::create(b, loc, zero, block, one);
  setMapping(threads, Processor::ThreadX);
  b.setInsertionPointToStart(threads.getBody());
  Value number = arith::AddIOp::create(b, loc, blocks.getInductionVars()[0],
                                       threads.getInductionVars()[0]);
  Operation *end = threads.getBody()->getTerminator();
  if (!staticCount || *staticCount % blockSize != 0) {
    Value inBounds =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, number, count);
    auto guard = scf::IfOp::create(b, loc, inBounds, /*withElseRegion=*/false);
    end = guard.thenBlock()->getTerminator();
    b.setInsertionPoint(end);
  }

  Block *body = loop.getBody();
  Value rest = number;
  for (unsigned d = rank; d-- > 0;) {
    Value index = rest;
    if (d > 0) {
      index = b.createOrFold<arith::RemUIOp>(loc, rest, trips[d]);
      rest = b.createOrFold<arith::DivUIOp>(loc, rest, trips[d]);
    }
    Value iv = b.createOrFold<arith::AddIOp>(
        loc, loop.getLowerBound()[d],
        b.createOrFold<arith::MulIOp>(loc, index, loop.getStep()[d]));
    body->getArgument(d).replaceAllUsesWith(iv);
  }
  body->getTerminator()->erase();
  end->getBlock()->getOperations().splice(end->getIterator(),
                                          body->getOperations());
  loop.erase();
}

/// Maps `loop`, at `level` of a nest, and the loops directly in its body at
/// the next level. As upstream, loops nested in other operations (an
/// `scf.for` of a reduction) keep no mapping: they run sequentially in the
/// threads of the kernel around them.
void mapNest(scf::ParallelOp loop, unsigned level) {
  unsigned rank = loop.getNumLoops();
  if (level == 0) {
    // Canonicalisation folds a tiled loop's single tile away, and merges a
    // tile loop with its threads where their bounds are independent (every
    // static shape whose tiles divide it): such a loop, like one written
    // without tiles, becomes one block, or blocks of full threads.
    bool hasNested = llvm::any_of(*loop.getBody(), [](Operation &op) {
      return isa<scf::ParallelOp>(op);
    });
    if (!hasNested && fitsOneBlock(loop))
      return setMapping(loop, getProcessors(rank, /*threads=*/true));
    if (!hasNested && loop.getInitVals().empty())
      return mapToBlocksOfThreads(loop);
    setMapping(loop, getProcessors(rank, /*threads=*/false));
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
    SmallVector<scf::ParallelOp> outermost;
    getOperation()->walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>())
        outermost.push_back(loop);
    });
    for (scf::ParallelOp loop : outermost)
      mapNest(loop, 0);
  }
};

} // namespace
