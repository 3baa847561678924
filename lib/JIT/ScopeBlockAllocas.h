//===- ScopeBlockAllocas.h - Return a block's stack at its end -*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_JIT_SCOPEBLOCKALLOCAS_H
#define DLBRIDGE_LIB_JIT_SCOPEBLOCKALLOCAS_H

#include "llvm/IR/Module.h"

namespace dlbridge::jit {

/// An `alloca` outside a function's entry block takes stack each time its
/// block runs, and gives it back only when the function returns. MLIR's
/// translation of `gpu.launch_func` puts each launch's kernel arguments in
/// such allocas, where the launch is: a host loop that launches kernels per
/// iteration (a scan down 16384 columns) grew the stack by its arguments'
/// size per iteration until it overflowed inside `cuLaunchKernel`. Brackets
/// every block whose allocas are used only inside it with
/// `llvm.stacksave`/`llvm.stackrestore`, as C compilers do for a loop's
/// variable-length arrays, so that each run of the block returns its stack.
/// Returns how many blocks it bracketed.
unsigned scopeBlockLocalAllocas(llvm::Module &module);

} // namespace dlbridge::jit

#endif // DLBRIDGE_LIB_JIT_SCOPEBLOCKALLOCAS_H
