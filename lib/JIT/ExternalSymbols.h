//===- ExternalSymbols.h - Calls the JIT can link ---------------*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_JIT_EXTERNALSYMBOLS_H
#define DLBRIDGE_LIB_JIT_EXTERNALSYMBOLS_H

#include "mlir/IR/BuiltinOps.h"

namespace dlbridge::jit {

/// Whether the JIT binds `name`: to libdlrt, or as ExecutionEngine does
/// for the rest, to a symbol of the process's global scope.
bool isLinkable(llvm::StringRef name);

/// Checks that every function `module` declares without defining it and
/// uses can be linked: a libdlrt function or a symbol of this process (libc,
/// libm, a library loaded with RTLD_GLOBAL). Emits an error at each use of
/// one that cannot, saying to define it, instead of the linker's "Symbols
/// not found" after the whole pipeline, which names no operation.
mlir::LogicalResult verifyExternalFunctions(mlir::ModuleOp module);

} // namespace dlbridge::jit

#endif // DLBRIDGE_LIB_JIT_EXTERNALSYMBOLS_H
