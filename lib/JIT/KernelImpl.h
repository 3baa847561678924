//===- KernelImpl.h - What a Kernel holds -----------------------*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_JIT_KERNELIMPL_H
#define DLBRIDGE_LIB_JIT_KERNELIMPL_H

#include "dlbridge/JIT/Kernel.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace dlbridge::jit {

/// The entry ABI of dlrt.h.
using EntryFunction = int32_t (*)(void **, void **, dlrt_call_ctx *);

/// One loaded specialisation; `owner` keeps its JIT'ed code alive.
struct LoadedVariant {
  std::shared_ptr<void> owner;
  EntryFunction entry = nullptr;
  const dlrt_signature *signature = nullptr;
};

class KernelImpl {
public:
  /// `name` is the entry's name as the source spells it, which the
  /// signature reports; the compiled symbols may carry a portable spelling
  /// of it (see SymbolNames.h).
  KernelImpl(std::string name, LoadedVariant general, LoadedVariant contiguous,
             KernelStages stages, bool fromDiskCache);

  static Kernel wrap(std::shared_ptr<const KernelImpl> impl) {
    return Kernel(std::move(impl));
  }
  static const std::shared_ptr<const KernelImpl> &unwrap(const Kernel &kernel) {
    return kernel.impl;
  }

  Signature signature;
  KernelStages stages;
  /// As written (memref sources) or with fully dynamic layouts (tensors).
  LoadedVariant general;
  /// Identity layouts; absent for memref sources.
  LoadedVariant contiguous;
  bool fromDiskCache;
};

/// Links an object file compiled by compile() into a fresh ORC JIT with the
/// runtime's symbols, runs its constructors, and finds `function`'s entry
/// point and signature record.
llvm::Expected<LoadedVariant> loadObject(llvm::StringRef object,
                                         llvm::StringRef function);

/// The names compile() gives a function's entry point and signature record.
std::string getEntryPointName(llvm::StringRef function);
std::string getSignatureName(llvm::StringRef function);

} // namespace dlbridge::jit

#endif // DLBRIDGE_LIB_JIT_KERNELIMPL_H
