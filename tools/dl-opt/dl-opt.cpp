//===- dl-opt.cpp - mlir-opt with the dlpack dialect and passes -----------===//
//
// Part of dlbridge. Every upstream dialect, extension, pass and LLVM IR
// translation interface, plus dlbridge's dialect, passes and pipelines.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/InitAll.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "dl-opt (dlbridge " DLBRIDGE_VERSION "; LLVM " LLVM_VERSION_STRING
          ")\n";
  });
  mlir::DialectRegistry registry;
  dlbridge::registerAllDialects(registry);
  dlbridge::registerAllPasses();
  // Errors are located messages, without upstream's generic-form dump of
  // the operation after each ("see current operation: ..."), which names
  // our lowering's intermediate IR, not the user's; that dump stays one
  // flag away (--mlir-print-op-on-diagnostic).
  mlir::registerMLIRContextCLOptions();
  static_cast<llvm::cl::opt<bool> *>(
      llvm::cl::getRegisteredOptions()["mlir-print-op-on-diagnostic"])
      ->setInitialValue(false);
  // MLIR 22's parsers crash on some malformed input (a truncated
  // `dimensions = [1`): such a crash ends dl-opt with an error, as any
  // other bad input does, instead of a signal.
  llvm::CrashRecoveryContext::Enable();
  llvm::CrashRecoveryContext recovery;
  mlir::LogicalResult result = mlir::failure();
  if (!recovery.RunSafely([&] {
        result = mlir::MlirOptMain(
            argc, argv, "dlbridge modular optimizer driver\n", registry);
      })) {
    llvm::errs() << "dl-opt: internal error: MLIR or LLVM crashed on this "
                    "input (contained; nothing was written)\n";
    return 1;
  }
  return mlir::asMainReturnCode(result);
}
