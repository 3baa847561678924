//===- ObjectLoader.cpp - Load cached objects without MLIR ----------------===//
//
// Part of dlbridge. A disk cache hit links the cached object straight into
// an ORC JIT: no parsing, no passes, no code generation.
//
//===----------------------------------------------------------------------===//

#include "KernelImpl.h"
#include "RuntimeSymbols.h"

#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;
using namespace llvm::orc;

std::string dlbridge::jit::getEntryPointName(StringRef function) {
  return (function + "__dlpack").str();
}

std::string dlbridge::jit::getSignatureName(StringRef function) {
  return (function + "__dlpack_signature").str();
}

Expected<dlbridge::jit::LoadedVariant>
dlbridge::jit::loadObject(StringRef object, StringRef function) {
  Expected<std::unique_ptr<LLJIT>> jit = LLJITBuilder().create();
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
  LoadedVariant variant;
  variant.entry = entry->toPtr<EntryFunction>();
  variant.signature = signature->toPtr<const dlrt_signature *>();
  variant.owner = std::shared_ptr<LLJIT>(std::move(*jit));
  return variant;
}
