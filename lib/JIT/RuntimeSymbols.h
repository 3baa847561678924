//===- RuntimeSymbols.h - libdlrt symbols for JIT'ed code -------*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_JIT_RUNTIMESYMBOLS_H
#define DLBRIDGE_LIB_JIT_RUNTIMESYMBOLS_H

#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"

namespace dlbridge::jit {

/// Every runtime function generated code may call (entry checks, results,
/// memref allocation, the mgpu* launch ABI), bound to this process's
/// libdlrt, so compiled kernels never depend on symbol search order.
llvm::orc::SymbolMap getRuntimeSymbols(llvm::orc::MangleAndInterner interner);

} // namespace dlbridge::jit

#endif // DLBRIDGE_LIB_JIT_RUNTIMESYMBOLS_H
