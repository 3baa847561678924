//===- dl-opt.cpp - mlir-opt with the dlpack dialect and passes -----------===//
//
// Part of dlbridge. Every upstream dialect, extension, pass and LLVM IR
// translation interface, plus dlbridge's dialect, passes and pipelines.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/InitAll.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  dlbridge::registerAllDialects(registry);
  dlbridge::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "dlbridge modular optimizer driver\n",
                        registry));
}
