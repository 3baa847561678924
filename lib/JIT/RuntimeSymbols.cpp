//===- RuntimeSymbols.cpp - libdlrt symbols for JIT'ed code ---------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "RuntimeSymbols.h"

#include "dlbridge/Runtime/dlrt.h"
#include "dlbridge/Runtime/dlrt_cuda.h"

using namespace llvm;
using namespace llvm::orc;

orc::SymbolMap dlbridge::jit::getRuntimeSymbols(MangleAndInterner interner) {
  SymbolMap symbols;
  auto add = [&](StringRef name, auto *function) {
    symbols[interner(name)] = {ExecutorAddr::fromPtr(function),
                               JITSymbolFlags::Exported |
                                   JITSymbolFlags::Callable};
  };
  // Every libdlrt function generated code calls, from the table the
  // emitters use, so none can be left unregistered.
#define DLRT_FUNCTION(enumerator, name, result, params) add(#name, &name);
#include "dlbridge/Conversion/DLPackToLLVM/RuntimeCalls.def"
  // What upstream's memref and GPU lowerings call.
#define DLBRIDGE_RUNTIME_SYMBOL(name) add(#name, &name)
  DLBRIDGE_RUNTIME_SYMBOL(_mlir_memref_to_llvm_alloc);
  DLBRIDGE_RUNTIME_SYMBOL(_mlir_memref_to_llvm_aligned_alloc);
  DLBRIDGE_RUNTIME_SYMBOL(_mlir_memref_to_llvm_free);
  DLBRIDGE_RUNTIME_SYMBOL(memrefCopy);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuModuleLoad);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuModuleLoadJIT);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuModuleUnload);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuModuleGetFunction);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuLaunchKernel);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuStreamCreate);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuStreamSynchronize);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuStreamDestroy);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuStreamWaitEvent);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuEventCreate);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuEventDestroy);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuEventSynchronize);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuEventRecord);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuMemAlloc);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuMemFree);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuMemcpy);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuMemset32);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuMemset16);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuSetDefaultDevice);
#undef DLBRIDGE_RUNTIME_SYMBOL
  return symbols;
}
