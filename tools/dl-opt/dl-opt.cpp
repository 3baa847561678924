//===- dl-opt.cpp - mlir-opt with the dlpack dialect and passes -----------===//
//
// Part of dlbridge. Every upstream dialect, extension, pass and LLVM IR
// translation interface, plus dlbridge's dialect, passes and pipelines.
//
// Upstream's MlirOptMain(argc, argv, ...) with two differences: a crash
// inside MLIR or LLVM is contained and reported in one line naming the pass
// (or parser) it happened in, and LLVM's stack dump is printed only when
// asked for (--stack-trace, DLBRIDGE_STACK_TRACE=1).
//
//===----------------------------------------------------------------------===//

#include "dlbridge/InitAll.h"
#include "dlbridge/JIT/CrashGuard.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <string>

namespace dlbridge {
void registerTestCrashPass();
} // namespace dlbridge

static llvm::cl::opt<bool>
    stackTrace("stack-trace",
               llvm::cl::desc("On a crash inside MLIR or LLVM, print LLVM's "
                              "stack dump too (also DLBRIDGE_STACK_TRACE=1)"));

/// Parses, runs the pipeline and writes the output, as upstream's driver.
static mlir::LogicalResult optimize(const std::string &inputFilename,
                                    const std::string &outputFilename,
                                    mlir::DialectRegistry &registry) {
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects()) {
    llvm::outs() << "Available Dialects: ";
    llvm::interleave(registry.getDialectNames(), llvm::outs(), ",");
    llvm::outs() << "\n";
    return mlir::success();
  }
  if (config.shouldListPasses()) {
    mlir::printRegisteredPasses();
    return mlir::success();
  }
  mlir::MlirOptMainConfig pipeline = config;
  config.setPassPipelineSetupFn([pipeline](mlir::PassManager &pm) {
    pm.addInstrumentation(dlbridge::jit::createCrashStageInstrumentation());
    return pipeline.setupPassPipeline(pm);
  });
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return mlir::failure();
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return mlir::failure();
  }
  if (failed(
          mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return mlir::failure();
  output->keep();
  return mlir::success();
}

int main(int argc, char **argv) {
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "dl-opt (dlbridge " DLBRIDGE_VERSION "; LLVM " LLVM_VERSION_STRING
          ")\n";
  });
  mlir::DialectRegistry registry;
  dlbridge::registerAllDialects(registry);
  dlbridge::registerAllPasses();
  dlbridge::registerTestCrashPass();
  // Errors are located messages, without upstream's generic-form dump of
  // the operation after each ("see current operation: ..."), which names
  // our lowering's intermediate IR, not the user's; that dump stays one
  // flag away (--mlir-print-op-on-diagnostic).
  mlir::registerMLIRContextCLOptions();
  static_cast<llvm::cl::opt<bool> *>(
      llvm::cl::getRegisteredOptions()["mlir-print-op-on-diagnostic"])
      ->setInitialValue(false);
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "dlbridge modular optimizer driver\n", registry);
  const char *environment = std::getenv("DLBRIDGE_STACK_TRACE");
  bool dumpStack =
      stackTrace || (environment && llvm::StringRef(environment) == "1");
  if (dumpStack) {
    llvm::sys::PrintStackTraceOnErrorSignal(argv[0]);
    static llvm::PrettyStackTraceProgram program(argc, argv);
  }
  // MLIR 22's parsers crash on some malformed input (a truncated
  // `dimensions = [1`): such a crash ends dl-opt with an error, as any
  // other bad input does, instead of a signal. Asked for the stack dump,
  // dl-opt lets the crash happen as mlir-opt does.
  if (dumpStack)
    return mlir::asMainReturnCode(
        optimize(inputFilename, outputFilename, registry));
  mlir::LogicalResult result = mlir::failure();
  std::string crash;
  if (!dlbridge::jit::runContained(
          [&] { result = optimize(inputFilename, outputFilename, registry); },
          crash)) {
    llvm::errs() << "dl-opt: internal error: " << crash
                 << " inside MLIR/LLVM (contained; nothing was written); "
                    "rerun with --stack-trace for LLVM's stack dump\n";
    return 1;
  }
  return mlir::asMainReturnCode(result);
}
