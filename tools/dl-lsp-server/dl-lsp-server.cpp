//===- dl-lsp-server.cpp - MLIR's language server with dlbridge -----------===//
//
// Part of dlbridge. mlir-lsp-server with the dialects dl-opt knows, so an
// editor shows diagnostics, hover, definitions and symbols for modules that
// use the dlpack dialect. It runs behind a guard (MessageGuard.h) that
// answers the messages MLIR's server would die of.
//
//===----------------------------------------------------------------------===//

#include "MessageGuard.h"
#include "dlbridge/InitAll.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  dlbridge::registerAllDialects(registry);
  return dlbridge::lsp::runGuarded(
      dlbridge::lsp::getGuardOptions(argc, argv), [&] {
        return mlir::failed(mlir::MlirLspServerMain(argc, argv, registry)) ? 1
                                                                           : 0;
      });
}
