//===- Frontend.h - Source to LLVM-dialect MLIR -----------------*- C++ -*-===//
//
// Part of dlbridge. What compiling and inspecting share: the registry,
// choosing the entry, and running a target's pipeline, whole or stage by
// stage.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_JIT_FRONTEND_H
#define DLBRIDGE_LIB_JIT_FRONTEND_H

#include "dlbridge/JIT/Kernel.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"

#include <string>

namespace dlbridge::jit {

/// Every dialect, interface and translation dlbridge compiles.
const mlir::DialectRegistry &getRegistry();

/// LLVM's host target and its assembly printer, once per process.
void initializeNativeTarget();

/// Picks the entry to compile (the pipelines then drop the others and what
/// only they use, --dlbridge-select-entry). Returns its name, or an empty
/// string after writing why into `error`.
std::string selectEntry(mlir::ModuleOp module, const std::string &requested,
                        std::string &error);

/// Whether the entry `name` takes or returns tensors (then it has a
/// contiguous specialisation).
bool takesTensors(mlir::ModuleOp module, llvm::StringRef name);

/// Runs the pipeline of `options.target` on `module` for the entry
/// `function`; `contiguous` selects identity layouts (CPU). With `stages`,
/// runs it stage by stage and appends the module's text after each.
mlir::LogicalResult runPipeline(mlir::ModuleOp module, llvm::StringRef function,
                                const CompileOptions &options, bool contiguous,
                                InspectResult::Stages *stages = nullptr);

} // namespace dlbridge::jit

#endif // DLBRIDGE_LIB_JIT_FRONTEND_H
