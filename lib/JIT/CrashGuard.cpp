//===- CrashGuard.cpp - Contain crashes of MLIR and LLVM ------------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "CrashGuard.h"

#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/PrettyStackTrace.h"

#include <cstring>
#include <mutex>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

using namespace llvm;

namespace {

/// Where the innermost guard of this thread collects an LLVM fatal error;
/// NULL outside guards.
thread_local std::string *guardFatalError = nullptr;

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
  });
}

} // namespace

bool dlbridge::jit::runContained(function_ref<void()> work,
                                 std::string &crash) {
  enableRecovery();
  std::string fatalError;
  std::string *outer = guardFatalError;
  guardFatalError = &fatalError;
  // Pretty stack trace entries pushed by the crashed code were never popped.
  const void *prettyStack = SavePrettyStackState();
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
  RestorePrettyStackState(prettyStack);
  if (!fatalError.empty()) {
    crash = fatalError;
  } else if (context.RetCode > 128) {
    int signal = context.RetCode - 128;
    crash = "signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  } else {
    crash = "exit code " + std::to_string(context.RetCode);
  }
  return false;
}
