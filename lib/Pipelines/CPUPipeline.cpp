//===- CPUPipeline.cpp - dlpack.entry functions to LLVM for the host ------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Conversion/Passes.h"
#include "dlbridge/Dialect/DLPack/Transforms/Passes.h"
#include "dlbridge/Pipelines/Pipelines.h"
#include "Bufferization.h"
#include "dlbridge/Transforms/Passes.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void dlbridge::buildDLPackCPUPipeline(OpPassManager &pm,
                                      const CPUPipelineOptions &options) {
  pm.addPass(createDecomposeAggregatedOps());
  pm.addPass(createRefuseGPUCode());
  // Shape relations between arguments, checked before any buffer exists
  // (and while named ops still have their names, for the messages).
  pm.addPass(dlpack::createDLPackGenerateShapeChecks());
  pm.addPass(createMatmulLoopOrder());
  // Tensor arguments become memrefs with fully dynamic strides, so one
  // compiled function serves every layout a DLPack tensor can have; the
  // contiguous specialisation takes identity layouts instead.
  if (options.bufferize)
    addBufferizationPasses(
        pm, options.identityLayouts
                ? bufferization::LayoutMapOption::IdentityLayoutMap
                : bufferization::LayoutMapOption::FullyDynamicLayoutMap);
  pm.addPass(dlpack::createDLPackOwnResults());
  // After deallocation: the wrappers hand buffers to dlpack.pack, which
  // ownership-based deallocation must not see.
  pm.addPass(dlpack::createDLPackExposeEntryPoints());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  // n-d transfers to 1-d ones, which convert-vector-to-llvm lowers to
  // (masked) loads and stores. Fully unrolled: loops would go through a
  // stack buffer of vectors, and one of vectors of i1 is bits to LLVM but
  // bytes to --dlbridge-bools-as-bytes.
  VectorTransferToSCFOptions vectorOptions;
  vectorOptions.enableFullUnroll();
  pm.addPass(createConvertVectorToSCFPass(vectorOptions));
  // Complex arithmetic to real; f32 tanh, erf, exp, log to vectorisable
  // polynomials; integer powers to loops; then what LLVM has intrinsics for;
  // the rest (f64 tanh, erf, ...) calls libm.
  pm.addNestedPass<func::FuncOp>(createConvertComplexToStandardPass());
  pm.addNestedPass<func::FuncOp>(createApproximateMath());
  pm.addPass(createConvertMathToFuncs());
  pm.addNestedPass<func::FuncOp>(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  // Failed checks return early, from loops too, once control flow is a CFG.
  pm.addPass(dlpack::createDLPackCheckAllocations());
  pm.addPass(dlpack::createDLPackLowerAssertions());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertDLPackToLLVM());
  // Buffers come from libdlrt: 64-byte aligned, and from the call's
  // allocator hooks when it has some.
  FinalizeMemRefToLLVMConversionPassOptions memrefOptions;
  memrefOptions.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefOptions));
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createBoolsAsBytes());
  pm.addPass(createCanonicalizerPass());
  VerifyLoweredOptions verifyOptions;
  verifyOptions.target = "cpu";
  pm.addPass(createVerifyLowered(verifyOptions));
}
