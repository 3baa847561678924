//===- InitAll.cpp - Register everything dlbridge's tools use -------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/InitAll.h"

#include "dlbridge/Conversion/Passes.h"
#include "dlbridge/Dialect/DLPack/IR/DLPackDialect.h"
#include "dlbridge/Dialect/DLPack/Transforms/Passes.h"
#include "dlbridge/Dialect/DLPack/Transforms/TensorRuntimeVerification.h"
#include "dlbridge/Pipelines/Pipelines.h"
#include "dlbridge/Transforms/GPU/Passes.h"
#include "dlbridge/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void dlbridge::registerAllDialects(mlir::DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  registry.insert<dlpack::DLPackDialect>();
  registerConvertDLPackToLLVMInterface(registry);
  dlpack::registerTensorRuntimeVerification(registry);
}

void dlbridge::registerAllPasses() {
  mlir::registerAllPasses();
  dlpack::registerDLPackPasses();
  registerDLBridgeConversionPasses();
  registerDLPackPipelines();
  registerDLBridgeTransformsPasses();
  registerDLBridgeGPUTransformsPasses();
}
