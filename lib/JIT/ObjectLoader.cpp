//===- ObjectLoader.cpp - Link compiled objects without MLIR --------------===//
//
// Part of dlbridge. Every object, freshly compiled or from the disk cache,
// is linked straight into an ORC JIT: no parsing, no passes, no code
// generation.
//
//===----------------------------------------------------------------------===//

#include "KernelImpl.h"
#include "RuntimeSymbols.h"

#include "dlbridge/JIT/CrashGuard.h"

#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Host.h"

using namespace llvm;
using namespace llvm::orc;

std::string dlbridge::jit::getEntryPointName(StringRef function) {
  return (function + "__dlpack").str();
}

std::string dlbridge::jit::getSignatureName(StringRef function) {
  return (function + "__dlpack_signature").str();
}

Expected<dlbridge::jit::LoadedVariant>
dlbridge::jit::loadObject(StringRef object, StringRef function,
                          StringRef dataLayout) {
  CrashStage stage("linking and loading the object");
  Expected<DataLayout> layout = DataLayout::parse(dataLayout);
  if (!layout)
    return layout.takeError();
  // Given the data layout and a target machine builder for the process's
  // triple, LLJIT neither detects the host's CPU nor creates a target
  // machine to learn the layout: 0.25 to 0.35 ms of a disk hit's 1.4. It
  // compiles no code of ours, only its platform's own small IR, which runs
  // on any CPU of the triple.
  // No platform: the objects' static constructors and destructors are
  // called through kInitializerName/kFinalizerName, and the generic IR
  // platform LLJIT would set up costs each kernel about 80 KiB (a
  // JITDylib, an LLVMContext and IR of its own) for nothing.
  Expected<std::unique_ptr<LLJIT>> jit =
      LLJITBuilder()
          .setJITTargetMachineBuilder(
              JITTargetMachineBuilder(Triple(sys::getProcessTriple())))
          .setDataLayout(std::move(*layout))
          .setPlatformSetUp(setUpInactivePlatform)
          .create();
  if (!jit)
    return jit.takeError();
  JITDylib &library = (*jit)->getMainJITDylib();
  MangleAndInterner interner((*jit)->getExecutionSession(),
                             (*jit)->getDataLayout());
  if (Error error =
          library.define(absoluteSymbols(getRuntimeSymbols(interner))))
    return std::move(error);
  Expected<std::unique_ptr<DynamicLibrarySearchGenerator>> process =
      DynamicLibrarySearchGenerator::GetForCurrentProcess(
          (*jit)->getDataLayout().getGlobalPrefix());
  if (!process)
    return process.takeError();
  library.addGenerator(std::move(*process));
  if (Error error = (*jit)->addObjectFile(
          MemoryBuffer::getMemBufferCopy(object, function)))
    return std::move(error);
  if (Error error = (*jit)->initialize(library))
    return std::move(error);

  Expected<ExecutorAddr> entry = (*jit)->lookup(getEntryPointName(function));
  if (!entry)
    return entry.takeError();
  Expected<ExecutorAddr> signature = (*jit)->lookup(getSignatureName(function));
  if (!signature)
    return signature.takeError();
  Expected<ExecutorAddr> initializer = (*jit)->lookup(kInitializerName);
  if (!initializer)
    return initializer.takeError();
  Expected<ExecutorAddr> finalizer = (*jit)->lookup(kFinalizerName);
  if (!finalizer)
    return finalizer.takeError();
  using Hook = void (*)();
  initializer->toPtr<Hook>()();
  LoadedVariant variant;
  variant.entry = entry->toPtr<EntryFunction>();
  variant.signature = signature->toPtr<const dlrt_signature *>();
  variant.owner = std::shared_ptr<LLJIT>(
      jit->release(), [finalize = finalizer->toPtr<Hook>()](LLJIT *owner) {
        finalize();
        delete owner;
      });
  return variant;
}
