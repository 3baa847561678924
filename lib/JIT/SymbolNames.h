//===- SymbolNames.h - Function names every target can assemble -*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_JIT_SYMBOLNAMES_H
#define DLBRIDGE_LIB_JIT_SYMBOLNAMES_H

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace dlbridge::jit {

/// Whether every target's assembler takes `name` as a symbol, also with
/// the suffixes the pipelines append (`_kernel`, `__dlpack_signature`):
/// `[A-Za-z_][A-Za-z0-9_]*`, at most 64 characters. PTX rejects anything
/// else (a Python `<lambda>`, spaces, non-ASCII) with a fatal error.
bool isPortableSymbol(llvm::StringRef name);

/// Renames every function defined in `module` whose name is not portable, or
/// is a symbol the JIT links (a Python `def exp(x)`: libm's `exp`, which the
/// lowering of `math.exp` calls, would otherwise resolve to the function
/// itself), and every use of it, to a portable name: the name's portable
/// characters,
/// '_' for the others, cut at 48 characters, then a hash of the whole name
/// (`<lambda>` becomes `_lambda__3f9a1c2e`), unique in the module.
/// Declarations keep their names: they are resolved by name when linking.
/// Returns `entry`'s name after renaming.
std::string makeSymbolsPortable(mlir::ModuleOp module, llvm::StringRef entry);

} // namespace dlbridge::jit

#endif // DLBRIDGE_LIB_JIT_SYMBOLNAMES_H
