//===- ScanLoops.h - The loop nest a traced scan is -------------*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//
//
// What the scan passes of both pipelines recognise first: a unit-step
// parallel loop over the indices a scan does not walk, whose body is pure
// index arithmetic around one sequential walk (`scf.for`) along the scanned
// axis, as the tracer writes `cumsum`/`cumprod` after bufferization.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_TRANSFORMS_SCANLOOPS_H
#define DLBRIDGE_TRANSFORMS_SCANLOOPS_H

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace dlbridge {

/// The only `scf.for` in `loop`'s body, where `loop` has unit steps and no
/// reductions and everything else in its body is a pure op without regions;
/// null otherwise.
mlir::scf::ForOp getSoleWalk(mlir::scf::ParallelOp loop);

} // namespace dlbridge

#endif // DLBRIDGE_TRANSFORMS_SCANLOOPS_H
