//===- CPUPipeline.cpp - dlpack.entry functions to LLVM for the host ------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "Bufferization.h"
#include "dlbridge/Conversion/Passes.h"
#include "dlbridge/Dialect/DLPack/Transforms/Passes.h"
#include "dlbridge/Pipelines/Pipelines.h"
#include "dlbridge/Transforms/Passes.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace {

/// Tensors to buffers, after refusing GPU code (which needs the CUDA
/// target): arith and math on whole tensors and linalg.pack/unpack
/// first become linalg and tensor ops that bufferize; indices read from data
/// are checked where they are used, and shape relations between
/// arguments before any buffer exists (and while named ops still
/// have their names, for the messages). Tensor arguments become memrefs with
/// fully dynamic strides, so one compiled function serves every layout a
/// DLPack tensor can have; the contiguous specialisation takes identity
/// layouts instead. A memref-level module is left as it is.
void buildTensorToBuffers(OpPassManager &pm,
                          const dlbridge::CPUPipelineOptions &options) {
  pm.addPass(dlbridge::createDecomposeAggregatedOps());
  pm.addPass(dlbridge::createRefuseGPUCode());
  pm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(dlbridge::createLowerPackUnpack());
  pm.addPass(dlbridge::dlpack::createDLPackCheckDataIndices());
  pm.addPass(dlbridge::dlpack::createDLPackGenerateShapeChecks());
  if (options.bufferize)
    dlbridge::addBufferizationPasses(
        pm, options.identityLayouts
                ? bufferization::LayoutMapOption::IdentityLayoutMap
                : bufferization::LayoutMapOption::FullyDynamicLayoutMap);
  pm.addPass(dlbridge::dlpack::createDLPackOwnResults());
  // After deallocation: the wrappers hand buffers to dlpack.pack, which
  // ownership-based deallocation must not see.
  pm.addPass(dlbridge::dlpack::createDLPackExposeEntryPoints());
}

/// f32 and f64 matmuls to BLAS calls; the other structured ops to loops
/// (parallel dimensions to scf.parallel), and vector code to what
/// convert-vector-to-llvm converts: vector.mask regions (masked transfers
/// become transfers with a mask operand, before they are unrolled) and n-d
/// reductions, which it does not lower itself; n-d transfers to 1-d ones,
/// which become (masked) loads and stores. Fully unrolled: loops would go
/// through a stack buffer of vectors, and one of vectors of i1 is bits to
/// LLVM but bytes to --dlbridge-bools-as-bytes. The outermost parallel loop
/// of each nest then runs on OpenMP threads when it is safe to, the other
/// parallel loops sequentially. Stack buffers in loops are allocated once.
void buildLoopsAndVectors(OpPassManager &pm) {
  pm.addPass(dlbridge::createContractionsToBlas());
  pm.addPass(dlbridge::createMatmulLoopOrder());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  // Foralls on buffers too (scans: a row walked per index of the other
  // dimensions); scans down columns walk a row of columns at a time.
  pm.addNestedPass<func::FuncOp>(createForallToParallelLoopPass());
  pm.addNestedPass<func::FuncOp>(dlbridge::createInterchangeScans());
  pm.addNestedPass<func::FuncOp>(vector::createLowerVectorMaskPass());
  pm.addNestedPass<func::FuncOp>(vector::createLowerVectorMultiReductionPass());
  VectorTransferToSCFOptions vectorOptions;
  vectorOptions.enableFullUnroll();
  pm.addPass(createConvertVectorToSCFPass(vectorOptions));
  pm.addPass(dlbridge::createParallelizeOuterLoops());
  pm.addPass(dlbridge::createHoistLoopAllocas());
}

/// Element arithmetic LLVM has no instruction for: complex to real; 8-bit
/// floats, which LLVM has no type for, through f32 and integers; f32 tanh,
/// erf, exp, log to vectorisable polynomials; integer powers to loops; expm1
/// and log1p, which math-to-llvm would cancel away, to libm; then what LLVM
/// has intrinsics for; the rest (f64 tanh, erf, ...) calls libm.
void buildElementMath(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createConvertComplexToStandardPass());
  pm.addPass(dlbridge::createExpandSmallFloats());
  pm.addNestedPass<func::FuncOp>(dlbridge::createApproximateMath());
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(dlbridge::createExactMathToLibm());
  pm.addNestedPass<func::FuncOp>(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
}

/// Control flow to a CFG, where failed checks return early, from loops too;
/// then everything to the LLVM dialect, checked for anything left unlowered:
/// buffers come from libdlrt (64-byte aligned, and from the call's allocator
/// hooks when it has some); OpenMP regions stay, on LLVM types, and translate
/// to calls of libomp's __kmpc_* functions.
void buildToLLVM(OpPassManager &pm) {
  pm.addPass(dlbridge::createExpandShapesToReinterpretCasts());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(dlbridge::dlpack::createDLPackCheckAllocations());
  pm.addPass(dlbridge::dlpack::createDLPackLowerAssertions());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(dlbridge::createConvertDLPackToLLVM());
  FinalizeMemRefToLLVMConversionPassOptions memrefOptions;
  memrefOptions.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefOptions));
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(dlbridge::createBoolsAsBytes());
  pm.addPass(createCanonicalizerPass());
  dlbridge::VerifyLoweredOptions verifyOptions;
  verifyOptions.target = "cpu";
  pm.addPass(dlbridge::createVerifyLowered(verifyOptions));
}

} // namespace

void dlbridge::buildDLPackCPUPipeline(const CPUPipelineOptions &options,
                                      StagePassManager stagePM) {
  OpPassManager &first = stagePM("tensors-to-buffers");
  if (!options.entry.empty())
    first.addPass(dlpack::createDLPackSelectEntry({options.entry}));
  buildTensorToBuffers(first, options);
  buildLoopsAndVectors(stagePM("loops-and-vectors"));
  buildElementMath(stagePM("element-math"));
  buildToLLVM(stagePM("to-llvm"));
}

void dlbridge::buildDLPackCPUPipeline(OpPassManager &pm,
                                      const CPUPipelineOptions &options) {
  buildDLPackCPUPipeline(
      options, [&](llvm::StringRef) -> OpPassManager & { return pm; });
}
