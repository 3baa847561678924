//===- Bufferization.cpp - The tensor half both pipelines share -----------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "Bufferization.h"

#include "dlbridge/Dialect/DLPack/Transforms/Passes.h"
#include "dlbridge/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;

void dlbridge::addBufferizationPasses(
    OpPassManager &pm, bufferization::LayoutMapOption boundaryLayout) {
  pm.addNestedPass<func::FuncOp>(createFuseElementwiseOps());
  pm.addNestedPass<func::FuncOp>(createReuseDeadOperands());
  pm.addPass(dlpack::createDLPackReadOnlyArguments());
  dlpack::DLPackBufferizeOptions options;
  options.functionBoundaryTypeConversion = boundaryLayout;
  pm.addPass(createCheckBufferizable());
  pm.addPass(dlpack::createDLPackBufferize(options));
}
