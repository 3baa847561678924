//===- Bufferization.h - The tensor half both pipelines share ---*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_PIPELINES_BUFFERIZATION_H
#define DLBRIDGE_LIB_PIPELINES_BUFFERIZATION_H

#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace dlbridge {

/// Tensor programs to memrefs: elementwise chains fused (one loop nest or
/// kernel per chain), entry arguments read-only unless marked writable,
/// function boundaries bufferized with `boundaryLayout`, deallocations
/// inserted; a memref-level module (no tensor values) is left as it is.
void addBufferizationPasses(
    mlir::OpPassManager &pm,
    mlir::bufferization::LayoutMapOption boundaryLayout);

} // namespace dlbridge

#endif // DLBRIDGE_LIB_PIPELINES_BUFFERIZATION_H
