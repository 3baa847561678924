//===- CrashGuard.cpp - Contain crashes of MLIR and LLVM ------------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/JIT/CrashGuard.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/PrettyStackTrace.h"

#include <csignal>
#include <cstring>
#include <memory>
#include <mutex>
#include <unistd.h>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

using namespace llvm;

namespace {

/// Where the innermost guard of this thread collects an LLVM fatal error;
/// NULL outside guards.
thread_local std::string *guardFatalError = nullptr;

/// What this thread is doing, innermost last (CrashStage). A crash unwinds
/// past the stages' destructors: a guard cuts the stack back to its size.
thread_local std::vector<std::string> stages;

/// The innermost entry of LLVM's pretty stack trace (the parser pushes
/// them), printed as LLVM's stack dump does; empty when there is none.
/// SavePrettyStackState() returns the thread's innermost entry.
std::string innermostPrettyStackEntry() {
  const auto *entry =
      static_cast<const PrettyStackTraceEntry *>(SavePrettyStackState());
  if (!entry)
    return "";
  std::string text;
  raw_string_ostream os(text);
  entry->print(os);
  // Formatted entries print their terminating NUL.
  return StringRef(text).trim(StringRef(" \t\n\r\0", 5)).str();
}

class CrashStageInstrumentation : public mlir::PassInstrumentation {
  void runBeforePass(mlir::Pass *pass, mlir::Operation *op) override {
    std::string what = "pass '" + pass->getArgument().str() + "' on '" +
                       op->getName().getStringRef().str();
    if (auto symbol = op->getAttrOfType<mlir::StringAttr>(
            mlir::SymbolTable::getSymbolAttrName()))
      what += " @" + symbol.getValue().str();
    stages.push_back(what + "'");
  }
  void runAfterPass(mlir::Pass *, mlir::Operation *) override {
    stages.pop_back();
  }
  void runAfterPassFailed(mlir::Pass *, mlir::Operation *) override {
    stages.pop_back();
  }
};

/// Inside a guard: records `reason` and unwinds to the guard. Elsewhere:
/// prints it as LLVM's default handler does, after which LLVM ends the
/// process as it always has.
void handleFatalError(void *, const char *reason, bool) {
  if (guardFatalError)
    if (CrashRecoveryContext *context = CrashRecoveryContext::GetCurrent()) {
      *guardFatalError = std::string("LLVM ERROR: ") + reason;
      context->HandleExit(1);
    }
  // Async-signal-safe and allocation-free, as LLVM's own default.
  const char prefix[] = "LLVM ERROR: ";
  (void)::write(2, prefix, sizeof(prefix) - 1);
  (void)::write(2, reason, std::strlen(reason));
  (void)::write(2, "\n", 1);
}

void enableRecovery() {
  static std::once_flag once;
  std::call_once(once, [] {
    CrashRecoveryContext::Enable();
    install_fatal_error_handler(handleFatalError);
    // A stack overflow (deeply nested IR recurses in MLIR's parser) faults
    // with no stack left to run a handler on: let LLVM's handler run on
    // the alternate stack a guard provides.
    for (int signal : {SIGSEGV, SIGBUS}) {
      struct sigaction action;
      if (::sigaction(signal, nullptr, &action) == 0) {
        action.sa_flags |= SA_ONSTACK;
        ::sigaction(signal, &action, nullptr);
      }
    }
  });
}

/// Gives the calling thread an alternate signal stack while it lives,
/// unless it has one (Python's faulthandler, ASan and LLVM's own handlers
/// install theirs).
class AlternateStack {
public:
  AlternateStack() {
    stack_t current;
    if (::sigaltstack(nullptr, &current) != 0 ||
        !(current.ss_flags & SS_DISABLE))
      return;
    memory.reset(new char[kSize]);
    stack_t mine{};
    mine.ss_sp = memory.get();
    mine.ss_size = kSize;
    if (::sigaltstack(&mine, &previous) != 0)
      memory.reset();
  }
  ~AlternateStack() {
    if (memory)
      ::sigaltstack(&previous, nullptr);
  }
  AlternateStack(const AlternateStack &) = delete;
  AlternateStack &operator=(const AlternateStack &) = delete;

private:
  static constexpr size_t kSize = 256 * 1024;
  std::unique_ptr<char[]> memory;
  stack_t previous{};
};

} // namespace

bool dlbridge::jit::runContained(function_ref<void()> work,
                                 std::string &crash) {
  enableRecovery();
  std::string fatalError;
  std::string *outer = guardFatalError;
  guardFatalError = &fatalError;
  size_t outerStages = stages.size();
  // Pretty stack trace entries pushed by the crashed code were never popped.
  const void *prettyStack = SavePrettyStackState();
  AlternateStack alternateStack;
  CrashRecoveryContext context;
#if defined(__SANITIZE_ADDRESS__)
  // A recovered crash leaks what `work` allocated, by design: LeakSanitizer
  // is not to report it.
  __lsan_disable();
#endif
  bool finished = context.RunSafely(work);
#if defined(__SANITIZE_ADDRESS__)
  __lsan_enable();
#endif
  guardFatalError = outer;
  if (finished)
    return true;
  std::string where = stages.size() > outerStages ? stages.back()
                      : prettyStack != SavePrettyStackState()
                          ? innermostPrettyStackEntry()
                          : std::string();
  stages.resize(outerStages);
  RestorePrettyStackState(prettyStack);
  if (!fatalError.empty()) {
    crash = fatalError;
  } else if (context.RetCode > 128) {
    int signal = context.RetCode - 128;
    crash = "signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  } else {
    crash = "exit code " + std::to_string(context.RetCode);
  }
  if (!where.empty())
    crash += " in " + where;
  return false;
}

dlbridge::jit::CrashStage::CrashStage(std::string what) {
  stages.push_back(std::move(what));
}

dlbridge::jit::CrashStage::~CrashStage() { stages.pop_back(); }

std::unique_ptr<mlir::PassInstrumentation>
dlbridge::jit::createCrashStageInstrumentation() {
  return std::make_unique<CrashStageInstrumentation>();
}
