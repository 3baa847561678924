//===- Bufferization.cpp - The tensor half both pipelines share -----------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "Bufferization.h"

#include "dlbridge/Dialect/DLPack/Transforms/Passes.h"
#include "dlbridge/Transforms/Passes.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;

void dlbridge::addBufferizationPasses(
    OpPassManager &pm, bufferization::LayoutMapOption boundaryLayout) {
  pm.addNestedPass<func::FuncOp>(createLinalgElementwiseOpFusionPass());
  pm.addPass(dlpack::createDLPackReadOnlyArguments());
  bufferization::OneShotBufferizePassOptions options;
  options.bufferizeFunctionBoundaries = true;
  options.functionBoundaryTypeConversion = boundaryLayout;
  pm.addPass(createCheckBufferizable());
  pm.addPass(bufferization::createOneShotBufferizePass(options));
  bufferization::buildBufferDeallocationPipeline(pm);
  // Deallocation returns copies (bufferization.clone) of what a function
  // does not own: alloc and copy, which both targets lower.
  pm.addPass(createConvertBufferizationToMemRefPass());
}
