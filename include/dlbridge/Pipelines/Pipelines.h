//===- Pipelines.h - Named dlbridge pass pipelines --------------*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_PIPELINES_PIPELINES_H
#define DLBRIDGE_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace dlbridge {

/// Options of `--dlpack-cpu-pipeline`.
struct CPUPipelineOptions
    : public mlir::PassPipelineOptions<CPUPipelineOptions> {
  Option<bool> bufferize{
      *this, "bufferize",
      llvm::cl::desc("Bufferize tensor programs and insert deallocations; "
                     "turn off for memref programs that free their own "
                     "buffers (memref.dealloc)"),
      llvm::cl::init(true)};
  Option<bool> identityLayouts{
      *this, "identity-layouts",
      llvm::cl::desc("Give tensor arguments identity layouts instead of "
                     "fully dynamic strides: the contiguous specialisation, "
                     "which LLVM can vectorise, for compact inputs only"),
      llvm::cl::init(false)};
};

/// Lowers `dlpack.entry` functions over tensors (linalg, arith, math, tensor)
/// or memrefs to the LLVM dialect with their DLPack entry points, ready for
/// translation to LLVM IR and execution on the host.
void buildDLPackCPUPipeline(mlir::OpPassManager &pm,
                            const CPUPipelineOptions &options);

/// Registers the named pipelines with the global pass registry.
void registerDLPackPipelines();

} // namespace dlbridge

#endif // DLBRIDGE_PIPELINES_PIPELINES_H
