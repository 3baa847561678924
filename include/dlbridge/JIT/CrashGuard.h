//===- CrashGuard.h - Contain crashes of MLIR and LLVM ----------*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_JIT_CRASHGUARD_H
#define DLBRIDGE_JIT_CRASHGUARD_H

#include "mlir/Pass/PassInstrumentation.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <string>

namespace dlbridge::jit {

/// Runs `work` in an llvm::CrashRecoveryContext, as libclang runs a parse:
/// a signal raised on this thread (SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL,
/// SIGTRAP; a stack overflow too: the thread gets an alternate signal stack
/// for the guard's duration) or an LLVM fatal error (report_fatal_error and
/// friends, which would otherwise abort or exit the process) unwinds back here
/// with longjmp. Returns true when `work` finished; false after a crash, with
/// what happened in `crash` ("signal 11 (Segmentation fault)", "LLVM
/// ERROR: ...").
///
/// After a crash nothing `work` created may be used or destroyed: its
/// destructors did not run, so an MLIRContext or JIT it made may be half
/// updated. Such objects are leaked on purpose; the caller starts afresh
/// (a new MLIRContext per compilation). Objects outside `work` are only
/// safe if `work` does not mutate them.
///
/// The first call enables crash recovery for the whole process (the
/// signal handlers are process-wide; a signal on a thread outside a guard
/// restores the previous handlers and is re-raised, so it still ends the
/// process as before) and installs an LLVM fatal error handler that prints
/// as LLVM's default one does outside a guard. Guards on several threads
/// at once are independent: the recovery state is per thread.
///
/// `crash` also says where it happened: the innermost CrashStage of the
/// thread (" in pass 'canonicalize' on 'func.func @f'"), else the innermost
/// of LLVM's pretty stack trace entries (" in MLIR Parser: custom op parser
/// 'linalg.reduce'").
bool runContained(llvm::function_ref<void()> work, std::string &crash);

/// Names what the calling thread does, while it lives, for the report of a
/// crash inside a guard ("translating to LLVM IR").
class CrashStage {
public:
  explicit CrashStage(std::string what);
  ~CrashStage();
  CrashStage(const CrashStage &) = delete;
  CrashStage &operator=(const CrashStage &) = delete;
};

/// An instrumentation that names each pass a pass manager runs, and the op
/// it runs on, as a CrashStage.
std::unique_ptr<mlir::PassInstrumentation> createCrashStageInstrumentation();

} // namespace dlbridge::jit

#endif // DLBRIDGE_JIT_CRASHGUARD_H
