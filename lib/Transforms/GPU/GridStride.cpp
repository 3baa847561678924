//===- GridStride.cpp - Kernels of a thread per index ---------------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "GridStride.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

LogicalResult dlbridge::checkBlockSize(Operation *root, int64_t blockSize,
                                       StringRef option) {
  if (blockSize >= kWarpSize && blockSize <= kMaxThreadsPerBlock &&
      blockSize % kWarpSize == 0)
    return success();
  return root->emitError() << option << "=" << blockSize
                           << ": expected a multiple of " << kWarpSize
                           << " from " << kWarpSize << " to "
                           << kMaxThreadsPerBlock;
}

void dlbridge::emitGridStrideLoop(
    OpBuilder &b, Location loc, Value count, int64_t blockSize,
    function_ref<void(OpBuilder &, Location, Value)> build) {
  Value threads = arith::ConstantIndexOp::create(b, loc, blockSize);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value grid = arith::MinUIOp::create(
      b, loc, arith::CeilDivUIOp::create(b, loc, count, threads),
      arith::ConstantIndexOp::create(b, loc, kMaxGridBlocks));
  auto launch =
      gpu::LaunchOp::create(b, loc, grid, one, one, threads, one, one);
  OpBuilder body = OpBuilder::atBlockBegin(&launch.getBody().front());
  Value blockSizeInKernel = launch.getBlockSize().x;
  Value first = arith::AddIOp::create(
      body, loc,
      arith::MulIOp::create(body, loc, launch.getBlockIds().x,
                            blockSizeInKernel),
      launch.getThreadIds().x);
  Value step = arith::MulIOp::create(body, loc, launch.getGridSize().x,
                                     blockSizeInKernel);
  scf::ForOp::create(
      body, loc, first, count, step, ValueRange{},
      [&](OpBuilder &loop, Location loc, Value index, ValueRange) {
        build(loop, loc, index);
        scf::YieldOp::create(loop, loc);
      });
  gpu::TerminatorOp::create(body, loc);
}
