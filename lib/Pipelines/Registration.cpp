//===- Registration.cpp - Register the named pipelines --------------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Pipelines/Pipelines.h"
#include "mlir/Pass/PassRegistry.h"

void dlbridge::registerDLPackPipelines() {
  mlir::PassPipelineRegistration<CPUPipelineOptions>(
      "dlbridge-cpu-pipeline",
      "Lower dlpack.entry functions over tensors or memrefs to the LLVM "
      "dialect with DLPack entry points, for the host",
      [](mlir::OpPassManager &pm, const CPUPipelineOptions &options) {
        buildDLPackCPUPipeline(pm, options);
      });
  mlir::PassPipelineRegistration<CUDAPipelineOptions>(
      "dlbridge-cuda-pipeline",
      "Lower dlpack.entry functions over tensors or memrefs to the LLVM "
      "dialect with DLPack entry points for CUDA devices: kernels in a "
      "gpu.binary, launched on the stream of the entry's call context",
      [](mlir::OpPassManager &pm, const CUDAPipelineOptions &options) {
        buildDLPackCUDAPipeline(pm, options);
      });
}
