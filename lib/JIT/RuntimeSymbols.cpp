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

/// The libomp functions OpenMP regions translate to (OpenMPIRBuilder's
/// parallel, worksharing-loop and reduction code). libomp installs no
/// header declaring them; only their addresses are taken here, so the
/// prototypes do not matter. libomp is linked to the JIT's library, which a
/// Python extension loads with RTLD_LOCAL: generated code finds them here,
/// not in the process's global scope.
#define DLBRIDGE_OPENMP_SYMBOLS(X)                                             \
  X(__kmpc_barrier)                                                            \
  X(__kmpc_critical)                                                           \
  X(__kmpc_end_critical)                                                       \
  X(__kmpc_end_reduce)                                                         \
  X(__kmpc_end_reduce_nowait)                                                  \
  X(__kmpc_end_serialized_parallel)                                            \
  X(__kmpc_for_static_fini)                                                    \
  X(__kmpc_for_static_init_4)                                                  \
  X(__kmpc_for_static_init_4u)                                                 \
  X(__kmpc_for_static_init_8)                                                  \
  X(__kmpc_for_static_init_8u)                                                 \
  X(__kmpc_fork_call)                                                          \
  X(__kmpc_fork_call_if)                                                       \
  X(__kmpc_global_thread_num)                                                  \
  X(__kmpc_push_num_threads)                                                   \
  X(__kmpc_reduce)                                                             \
  X(__kmpc_reduce_nowait)                                                      \
  X(__kmpc_serialized_parallel)
#define DLBRIDGE_DECLARE_OPENMP_SYMBOL(name) void name();
extern "C" {
DLBRIDGE_OPENMP_SYMBOLS(DLBRIDGE_DECLARE_OPENMP_SYMBOL)
}
#undef DLBRIDGE_DECLARE_OPENMP_SYMBOL

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
  // What OpenMP regions call (--dlbridge-parallelize-outer-loops).
#define DLBRIDGE_ADD_OPENMP_SYMBOL(name) DLBRIDGE_RUNTIME_SYMBOL(name);
  DLBRIDGE_OPENMP_SYMBOLS(DLBRIDGE_ADD_OPENMP_SYMBOL)
#undef DLBRIDGE_ADD_OPENMP_SYMBOL
#undef DLBRIDGE_RUNTIME_SYMBOL
  return symbols;
}
