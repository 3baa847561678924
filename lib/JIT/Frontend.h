//===- Frontend.h - Source to LLVM-dialect MLIR -----------------*- C++ -*-===//
//
// Part of dlbridge. What compiling and inspecting share: the registry,
// choosing the entry, running a target's pipeline, whole or stage by stage,
// and compiling its result for the host.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_JIT_FRONTEND_H
#define DLBRIDGE_LIB_JIT_FRONTEND_H

#include "dlbridge/JIT/Kernel.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <string>

namespace dlbridge::jit {

/// Every dialect, interface and translation dlbridge compiles.
const mlir::DialectRegistry &getRegistry();

/// A source in a context, and the text of MLIR's located messages about it
/// (from parsing and from whatever later runs on its module) while this
/// lives: users see their source lines, not IR dumps.
class SourceDiagnostics {
public:
  SourceDiagnostics(mlir::MLIRContext &context, const std::string &source,
                    llvm::StringRef name = "<source>");
  SourceDiagnostics(const SourceDiagnostics &) = delete;
  SourceDiagnostics &operator=(const SourceDiagnostics &) = delete;
  ~SourceDiagnostics();

  llvm::SourceMgr &sourceMgr() { return manager; }
  /// The source's module, or null with the reasons in text().
  mlir::OwningOpRef<mlir::ModuleOp> parse();
  const std::string &text() const { return collected; }

private:
  mlir::MLIRContext &context;
  std::string collected;
  llvm::raw_string_ostream stream{collected};
  llvm::SourceMgr manager;
  std::unique_ptr<mlir::SourceMgrDiagnosticHandler> handler;
};

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

/// A target machine for the host at the options' level, with the
/// relocation and code models the JIT's linker (JITLink) wants. Null after
/// writing why into `error`.
std::unique_ptr<llvm::TargetMachine>
createHostTargetMachine(const CompileOptions &options, std::string &error);

/// `module` (LLVM dialect) translated to LLVM IR for `targetMachine` and
/// optimised at the options' level. Null after writing why into `error`.
std::unique_ptr<llvm::Module>
translateAndOptimise(mlir::ModuleOp module, const CompileOptions &options,
                     llvm::TargetMachine &targetMachine,
                     llvm::LLVMContext &context, std::string &error);

/// Compiles `module` into `out`: an object file or assembly.
mlir::LogicalResult emitCode(llvm::Module &module,
                             llvm::TargetMachine &targetMachine,
                             llvm::CodeGenFileType type,
                             llvm::SmallVectorImpl<char> &out,
                             std::string &error);

} // namespace dlbridge::jit

#endif // DLBRIDGE_LIB_JIT_FRONTEND_H
