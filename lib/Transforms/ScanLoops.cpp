//===- ScanLoops.cpp - The loop nest a traced scan is ---------------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/ScanLoops.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

scf::ForOp dlbridge::getSoleWalk(scf::ParallelOp loop) {
  if (!loop.getInitVals().empty() ||
      llvm::any_of(loop.getStep(),
                   [](Value step) { return getConstantIntValue(step) != 1; }))
    return nullptr;
  scf::ForOp walk;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      if (walk)
        return nullptr;
      walk = forOp;
      continue;
    }
    if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op))
      return nullptr;
  }
  return walk;
}
