//===- Inspect.cpp - The IR between a compilation's stages ----------------===//
//
// Part of dlbridge. What dlbridge.inspect() and JitFunction.inspect() show:
// the module after each pipeline stage, the optimised LLVM IR, the host's
// assembly and, for CUDA, the kernels' PTX.
//
//===----------------------------------------------------------------------===//

#include "ExternalSymbols.h"
#include "Frontend.h"
#include "SymbolNames.h"
#include "dlbridge/JIT/CrashGuard.h"

#include "dlbridge/JIT/Kernel.h"
#include "dlbridge/Transforms/GPU/CUDATarget.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace dlbridge;
using namespace dlbridge::jit;

namespace {

/// Appends "llvm-ir" and "asm": `module` translated, optimised and compiled
/// for the host as the JIT does.
LogicalResult addLLVMStages(ModuleOp module, const CompileOptions &options,
                            InspectResult::Stages &stages, std::string &error) {
  std::unique_ptr<llvm::TargetMachine> targetMachine =
      createHostTargetMachine(options, error);
  if (!targetMachine)
    return failure();
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> llvmModule =
      translateAndOptimise(module, options, *targetMachine, context, error);
  if (!llvmModule)
    return failure();
  std::string ir;
  llvm::raw_string_ostream irStream(ir);
  llvmModule->print(irStream, nullptr);
  stages.emplace_back("llvm-ir", std::move(ir));

  llvm::SmallString<0> assembly;
  if (failed(emitCode(*llvmModule, *targetMachine,
                      llvm::CodeGenFileType::AssemblyFile, assembly, error)))
    return failure();
  stages.emplace_back("asm", assembly.str().str());
  return success();
}

/// Appends "ptx": the kernels of `module`, a module before the CUDA
/// pipeline's "binary" stage, serialised as PTX whatever the binary format.
LogicalResult addPTXStage(ModuleOp module, const CompileOptions &options,
                          InspectResult::Stages &stages) {
  PassManager pm(module.getContext());
  GpuModuleToBinaryPassOptions binaryOptions;
  binaryOptions.compilationTarget = "isa";
  // Math in kernels links libdevice, as the pipeline's "binary" stage does.
  std::string toolkit = findCUDAToolkit(options.toolkit);
  if (!toolkit.empty() &&
      llvm::sys::fs::is_regular_file(getLibdevicePath(toolkit)))
    binaryOptions.toolkitPath = toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binaryOptions));
  if (failed(pm.run(module)))
    return failure();
  std::string ptx;
  module.walk([&](gpu::BinaryOp binary) {
    for (Attribute object : binary.getObjects())
      ptx += cast<gpu::ObjectAttr>(object).getObject().getValue().str();
  });
  stages.emplace_back("ptx", std::move(ptx));
  return success();
}

InspectResult inspectUnguarded(const std::string &source,
                               const std::string &requestedEntry,
                               const CompileOptions &options) {
  InspectResult result;
  MLIRContext context(getRegistry(), MLIRContext::Threading::DISABLED);
  SourceDiagnostics sourceDiagnostics(context, source);
  const std::string &diagnostics = sourceDiagnostics.text();
  OwningOpRef<ModuleOp> module = sourceDiagnostics.parse();
  if (!module) {
    result.error = diagnostics;
    return result;
  }
  std::string error;
  std::string name = selectEntry(*module, requestedEntry, error);
  if (name.empty()) {
    result.error = "<source>: " + error;
    return result;
  }
  if (failed(verifyExternalFunctions(*module))) {
    result.error = diagnostics;
    return result;
  }
  std::string function = makeSymbolsPortable(*module, name);

  result.stages.emplace_back("input", source);
  if (failed(runPipeline(*module, function, options, /*contiguous=*/false,
                         &result.stages))) {
    result.error = diagnostics.empty() ? "the pipeline failed" : diagnostics;
    return result;
  }
  if (failed(addLLVMStages(*module, options, result.stages, error))) {
    result.error = error;
    return result;
  }
  if (options.target == Target::CUDA) {
    // The kernels as they were before "binary" serialised them.
    auto hostToLLVM = llvm::find_if(result.stages, [](const auto &stage) {
      return stage.first == "host-to-llvm";
    });
    OwningOpRef<ModuleOp> kernels =
        parseSourceString<ModuleOp>(hostToLLVM->second, ParserConfig(&context));
    if (!kernels || failed(addPTXStage(*kernels, options, result.stages)))
      result.error = diagnostics.empty() ? "the kernels do not compile to PTX"
                                         : diagnostics;
  }
  return result;
}

} // namespace

InspectResult dlbridge::jit::inspect(const std::string &source,
                                     const std::string &entry,
                                     const CompileOptions &options) {
  InspectResult result;
  if (std::string error = checkOptions(options, Spelling::Cpp);
      !error.empty()) {
    result.error = error;
    return result;
  }
  initializeNativeTarget();
  std::string crash;
  if (!runContained([&] { result = inspectUnguarded(source, entry, options); },
                    crash))
    result = {{},
              "<source>: internal compiler error while inspecting: " + crash +
                  " inside MLIR/LLVM (contained)"};
  return result;
}
