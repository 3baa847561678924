//===- Frontend.cpp - Source to LLVM-dialect MLIR -------------------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "Frontend.h"

#include "KernelImpl.h"
#include "ScopeBlockAllocas.h"

#include "dlbridge/Dialect/DLPack/IR/DLPackDialect.h"
#include "dlbridge/InitAll.h"
#include "dlbridge/JIT/CrashGuard.h"
#include "dlbridge/Pipelines/Pipelines.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <mutex>
#include <optional>
#include <vector>

using namespace mlir;
using namespace dlbridge;
using namespace dlbridge::jit;

const DialectRegistry &dlbridge::jit::getRegistry() {
  static const DialectRegistry *registry = [] {
    auto *registry = new DialectRegistry();
    registerAllDialects(*registry);
    return registry;
  }();
  return *registry;
}

SourceDiagnostics::SourceDiagnostics(MLIRContext &context,
                                     const std::string &source,
                                     llvm::StringRef name)
    : context(context) {
  manager.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(source, name),
                             llvm::SMLoc());
  handler =
      std::make_unique<SourceMgrDiagnosticHandler>(manager, &context, stream);
  context.printOpOnDiagnostic(false);
}

SourceDiagnostics::~SourceDiagnostics() = default;

OwningOpRef<ModuleOp> SourceDiagnostics::parse() {
  return parseSourceFile<ModuleOp>(manager, ParserConfig(&context));
}

void dlbridge::jit::initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

std::string dlbridge::jit::selectEntry(ModuleOp module,
                                       const std::string &requested,
                                       std::string &error) {
  SmallVector<func::FuncOp> entries;
  for (auto func : module.getOps<func::FuncOp>())
    if (func->hasAttr(dlpack::DLPackDialect::kEntryAttrName))
      entries.push_back(func);
  std::string names;
  for (func::FuncOp func : entries)
    names += (names.empty() ? "@" : ", @") + func.getSymName().str();
  func::FuncOp chosen;
  if (entries.empty()) {
    error = "no function is marked 'dlpack.entry'";
  } else if (requested.empty()) {
    if (entries.size() == 1)
      chosen = entries.front();
    else
      error = "the module has several entries (" + names + "); name one";
  } else {
    for (func::FuncOp func : entries)
      if (func.getSymName() == requested)
        chosen = func;
    if (!chosen)
      error = "no 'dlpack.entry' function named @" + requested +
              "; entries: " + names;
  }
  if (!chosen)
    return {};
  return chosen.getSymName().str();
}

bool dlbridge::jit::takesTensors(ModuleOp module, llvm::StringRef name) {
  auto func = module.lookupSymbol<func::FuncOp>(name);
  auto isTensor = [](Type type) { return isa<RankedTensorType>(type); };
  return llvm::any_of(func.getArgumentTypes(), isTensor) ||
         llvm::any_of(func.getResultTypes(), isTensor);
}

LogicalResult dlbridge::jit::runPipeline(ModuleOp module,
                                         llvm::StringRef function,
                                         const CompileOptions &options,
                                         bool contiguous,
                                         InspectResult::Stages *stages) {
  // One pass manager for the whole pipeline, or one per stage to print the
  // module between them.
  std::vector<std::pair<std::string, std::unique_ptr<PassManager>>> managers;
  auto stagePM = [&](llvm::StringRef stage) -> OpPassManager & {
    if (managers.empty() || stages) {
      managers.emplace_back(stage.str(),
                            std::make_unique<PassManager>(module.getContext()));
      managers.back().second->addInstrumentation(
          createCrashStageInstrumentation());
    }
    return *managers.back().second;
  };
  if (options.target == Target::CUDA) {
    // Host code calls the mgpu* functions of libdlrt (registered with the
    // other runtime symbols); dlrt_call_begin selects the context's device.
    CUDAPipelineOptions pipelineOptions;
    pipelineOptions.entry = function.str();
    pipelineOptions.bufferize = options.bufferize;
    pipelineOptions.chip = options.chip;
    pipelineOptions.ptxVersion = options.ptxVersion;
    pipelineOptions.format = getName(options.format);
    pipelineOptions.optLevel = options.optLevel;
    pipelineOptions.toolkit = options.toolkit;
    pipelineOptions.identityLayouts = contiguous;
    buildDLPackCUDAPipeline(pipelineOptions, stagePM);
  } else {
    CPUPipelineOptions pipelineOptions;
    pipelineOptions.entry = function.str();
    pipelineOptions.bufferize = options.bufferize;
    pipelineOptions.identityLayouts = contiguous;
    buildDLPackCPUPipeline(pipelineOptions, stagePM);
  }
  for (auto &[stage, pm] : managers) {
    if (failed(pm->run(module)))
      return failure();
    if (stages) {
      std::string text;
      llvm::raw_string_ostream os(text);
      module.print(os);
      stages->emplace_back(stage, std::move(text));
    }
  }
  return success();
}

std::unique_ptr<llvm::TargetMachine>
dlbridge::jit::createHostTargetMachine(const CompileOptions &options,
                                       std::string &error) {
  auto machineBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machineBuilder) {
    error = llvm::toString(machineBuilder.takeError());
    return nullptr;
  }
  machineBuilder->setCodeGenOptLevel(
      static_cast<llvm::CodeGenOptLevel>(options.optLevel));
  // What LLJIT asks of objects it links with JITLink: code and data may
  // land anywhere in the address space.
  machineBuilder->setRelocationModel(llvm::Reloc::PIC_);
  machineBuilder->setCodeModel(llvm::CodeModel::Small);
  auto targetMachine = machineBuilder->createTargetMachine();
  if (!targetMachine) {
    error = llvm::toString(targetMachine.takeError());
    return nullptr;
  }
  return std::move(*targetMachine);
}

namespace {

/// Defines the function `name` calling the entries of `list`
/// (llvm.global_ctors or llvm.global_dtors, when the module has it) in
/// priority order, and removes the list (see kInitializerName).
void defineHook(llvm::Module &module, llvm::StringRef listName,
                llvm::StringRef name) {
  llvm::GlobalVariable *list = module.getNamedGlobal(listName);
  std::vector<llvm::orc::CtorDtorIterator::Element> ordered;
  if (list)
    for (llvm::orc::CtorDtorIterator it(list, /*End=*/false),
         end(list, /*End=*/true);
         it != end; ++it)
      ordered.push_back(*it);
  std::stable_sort(
      ordered.begin(), ordered.end(),
      [](const auto &a, const auto &b) { return a.Priority < b.Priority; });
  llvm::LLVMContext &context = module.getContext();
  auto *function = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(context), false),
      llvm::GlobalValue::ExternalLinkage, name, module);
  llvm::IRBuilder<> builder(
      llvm::BasicBlock::Create(context, "entry", function));
  for (const auto &entry : ordered)
    if (entry.Func)
      builder.CreateCall(entry.Func);
  builder.CreateRetVoid();
  if (list)
    list->eraseFromParent();
}

void exposeStaticInitializers(llvm::Module &module) {
  defineHook(module, "llvm.global_ctors", kInitializerName);
  defineHook(module, "llvm.global_dtors", kFinalizerName);
}

} // namespace

std::unique_ptr<llvm::Module> dlbridge::jit::translateAndOptimise(
    ModuleOp module, const CompileOptions &options,
    llvm::TargetMachine &targetMachine, llvm::LLVMContext &context,
    std::string &error) {
  std::optional<CrashStage> stage(std::in_place, "translating to LLVM IR");
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, context);
  if (!llvmModule) {
    error = "the module does not translate to LLVM IR";
    return nullptr;
  }
  exposeStaticInitializers(*llvmModule);
  scopeBlockLocalAllocas(*llvmModule);
  llvmModule->setDataLayout(targetMachine.createDataLayout());
  llvmModule->setTargetTriple(targetMachine.getTargetTriple());
  stage.emplace("optimising LLVM IR");
  if (llvm::Error failed = makeOptimizingTransformer(
          options.optLevel, 0, &targetMachine)(llvmModule.get())) {
    error = llvm::toString(std::move(failed));
    return nullptr;
  }
  return llvmModule;
}

LogicalResult dlbridge::jit::emitCode(llvm::Module &module,
                                      llvm::TargetMachine &targetMachine,
                                      llvm::CodeGenFileType type,
                                      llvm::SmallVectorImpl<char> &out,
                                      std::string &error) {
  CrashStage stage("generating machine code");
  llvm::raw_svector_ostream stream(out);
  llvm::legacy::PassManager codegen;
  if (targetMachine.addPassesToEmitFile(codegen, stream, nullptr, type)) {
    error = "the host target cannot emit this kind of file";
    return failure();
  }
  codegen.run(module);
  return success();
}
