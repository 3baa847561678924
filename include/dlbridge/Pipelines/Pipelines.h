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
  Option<std::string> entry{
      *this, "entry",
      llvm::cl::desc("Compile only this dlpack.entry function and what it "
                     "references (--dlpack-select-entry); empty: all"),
      llvm::cl::init("")};
  Option<bool> bufferize{
      *this, "bufferize",
      llvm::cl::desc("Bufferize modules with tensor values and insert "
                     "deallocations (--dlpack-bufferize; memref-level "
                     "modules are left alone either way); false: never"),
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
/// Fails with an error at each operation it could not lower (e.g. GPU
/// code), never leaving one behind.
void buildDLPackCPUPipeline(mlir::OpPassManager &pm,
                            const CPUPipelineOptions &options);

/// Options of `--dlpack-cuda-pipeline`.
struct CUDAPipelineOptions
    : public mlir::PassPipelineOptions<CUDAPipelineOptions> {
  Option<std::string> entry{
      *this, "entry",
      llvm::cl::desc("Compile only this dlpack.entry function and what it "
                     "references (--dlpack-select-entry); empty: all"),
      llvm::cl::init("")};
  Option<bool> bufferize{
      *this, "bufferize",
      llvm::cl::desc("Bufferize modules with tensor values and insert "
                     "deallocations (--dlpack-bufferize; memref-level "
                     "modules are left alone either way); false: never"),
      llvm::cl::init(true)};
  Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("GPU architecture: sm_75 ... sm_121a (see "
                     "getCUDAMinimumPTXVersion)"),
      llvm::cl::init("sm_80")};
  Option<std::string> ptxVersion{
      *this, "ptx-version",
      llvm::cl::desc("PTX ISA version (ptx78, 78 or 7.8); empty: the "
                     "chip's minimum"),
      llvm::cl::init("")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("What the gpu.binary holds: ptx (loaded by the driver's "
                     "JIT), cubin or fatbin (assembled by the toolkit's "
                     "ptxas)"),
      llvm::cl::init("fatbin")};
  Option<unsigned> optLevel{
      *this, "opt-level",
      llvm::cl::desc("Optimisation level of device code (0-3)"),
      llvm::cl::init(2)};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit with bin/ptxas and "
                     "nvvm/libdevice/libdevice.10.bc; empty: CUDA_HOME, "
                     "CUDA_PATH, CUDA_ROOT, ptxas on PATH, /usr/local/cuda"),
      llvm::cl::init("")};
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

/// The PTX ISA version (e.g. 78 for PTX 7.8) LLVM needs at least for `chip`,
/// or 0 for chips the CUDA pipeline does not support.
unsigned getCUDAMinimumPTXVersion(llvm::StringRef chip);

/// The CUDA toolkit directory the CUDA pipeline uses: `explicitPath` when not
/// empty, else the first of CUDA_HOME, CUDA_PATH, CUDA_ROOT, the parent of
/// the directory holding `ptxas` on PATH, and /usr/local/cuda that exists;
/// empty when none does.
std::string findCUDAToolkit(llvm::StringRef explicitPath);

/// Registers the named pipelines with the global pass registry.
void registerDLPackPipelines();

} // namespace dlbridge

#endif // DLBRIDGE_PIPELINES_PIPELINES_H
