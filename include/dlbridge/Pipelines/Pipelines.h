//===- Pipelines.h - Named dlbridge pass pipelines --------------*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_PIPELINES_PIPELINES_H
#define DLBRIDGE_PIPELINES_PIPELINES_H

#include "dlbridge/Pipelines/Options.h"
#include "dlbridge/Transforms/GPU/CUDATarget.h"
#include "mlir/Pass/PassOptions.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace dlbridge {

/// Options of `--dlbridge-cpu-pipeline`: names, descriptions and defaults
/// from Options.h.
struct CPUPipelineOptions
    : public mlir::PassPipelineOptions<CPUPipelineOptions> {
  Option<std::string> entry{*this, option::entry.name,
                            llvm::cl::desc(option::entry.description),
                            llvm::cl::init("")};
  Option<bool> bufferize{*this, option::bufferize.name,
                         llvm::cl::desc(option::bufferize.description),
                         llvm::cl::init(CompileOptions().bufferize)};
  Option<bool> identityLayouts{
      *this, option::identityLayouts.name,
      llvm::cl::desc(option::identityLayouts.description),
      llvm::cl::init(false)};
};

/// Gives each named stage of a pipeline the pass manager it adds its passes
/// to: the same one for the whole pipeline, or a fresh one per stage to see
/// the IR between stages (dlbridge::jit::inspect).
using StagePassManager =
    llvm::function_ref<mlir::OpPassManager &(llvm::StringRef stage)>;

/// Lowers `dlpack.entry` functions over tensors (linalg, arith, math, tensor)
/// or memrefs to the LLVM dialect with their DLPack entry points, ready for
/// translation to LLVM IR and execution on the host.
/// Fails with an error at each operation it could not lower (e.g. GPU
/// code), never leaving one behind.
void buildDLPackCPUPipeline(mlir::OpPassManager &pm,
                            const CPUPipelineOptions &options);
/// The same, stage by stage: "tensors-to-buffers", "loops-and-vectors",
/// "element-math", "to-llvm".
void buildDLPackCPUPipeline(const CPUPipelineOptions &options,
                            StagePassManager stagePM);

/// Options of `--dlbridge-cuda-pipeline`: names, descriptions and defaults
/// from Options.h.
struct CUDAPipelineOptions
    : public mlir::PassPipelineOptions<CUDAPipelineOptions> {
  Option<std::string> entry{*this, option::entry.name,
                            llvm::cl::desc(option::entry.description),
                            llvm::cl::init("")};
  Option<bool> bufferize{*this, option::bufferize.name,
                         llvm::cl::desc(option::bufferize.description),
                         llvm::cl::init(CompileOptions().bufferize)};
  Option<std::string> chip{*this, option::chip.name,
                           llvm::cl::desc(option::chip.description),
                           llvm::cl::init(CompileOptions().chip)};
  Option<std::string> ptxVersion{*this, option::ptxVersion.name,
                                 llvm::cl::desc(option::ptxVersion.description),
                                 llvm::cl::init(CompileOptions().ptxVersion)};
  Option<std::string> format{
      *this, option::format.name, llvm::cl::desc(option::format.description),
      llvm::cl::init(dlbridge::getName(CompileOptions().format))};
  Option<unsigned> optLevel{*this, option::optLevel.name,
                            llvm::cl::desc(option::optLevel.description),
                            llvm::cl::init(CompileOptions().optLevel)};
  Option<std::string> toolkit{*this, option::toolkit.name,
                              llvm::cl::desc(option::toolkit.description),
                              llvm::cl::init(CompileOptions().toolkit)};
  Option<bool> identityLayouts{
      *this, option::identityLayouts.name,
      llvm::cl::desc(option::identityLayouts.description),
      llvm::cl::init(false)};
};

/// Lowers `dlpack.entry` functions over tensors or memrefs to the LLVM
/// dialect with DLPack entry points for CUDA devices: kernels in a
/// `gpu.binary`, host code launching them and allocating device buffers on
/// the stream of the entry's call context. Invalid options (an unknown chip,
/// a PTX version the chip cannot use, an unknown format) make the pipeline
/// fail with a diagnostic before anything runs. Operations it could not
/// lower are errors at their location, as on the CPU.
void buildDLPackCUDAPipeline(mlir::OpPassManager &pm,
                             const CUDAPipelineOptions &options);
/// The same, stage by stage: "tensors-to-buffers", "loops-to-kernels",
/// "entries-and-common-lowering", "kernels-to-nvvm", "host-to-llvm",
/// "binary" (only the first, which fails, when the options are invalid).
void buildDLPackCUDAPipeline(const CUDAPipelineOptions &options,
                             StagePassManager stagePM);

/// Registers the named pipelines with the global pass registry.
void registerDLPackPipelines();

} // namespace dlbridge

#endif // DLBRIDGE_PIPELINES_PIPELINES_H
