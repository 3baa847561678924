//===- MessageGuard.h - What reaches MLIR's language server ------*- C++
//-*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//
//
// MLIR's language server reads JSON-RPC from stdin and trusts it: a message
// that is not a JSON object ends the server, and deep nesting (in the JSON or
// in an MLIR document) overflows the stack of its recursive parsers. The
// guard stands between the editor and the server: it answers what the
// server would die of with a JSON-RPC error or a diagnostic, and forwards
// the rest unchanged.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_TOOLS_DL_LSP_SERVER_MESSAGEGUARD_H
#define DLBRIDGE_TOOLS_DL_LSP_SERVER_MESSAGEGUARD_H

#include "llvm/ADT/STLFunctionalExtras.h"

namespace dlbridge::lsp {

struct GuardOptions {
  /// Messages delimited by `// -----` lines (`-lit-test`), not LSP headers.
  bool delimitedInput = false;
  /// Replies indented as the server's are (`-pretty`, `-lit-test`).
  bool prettyOutput = false;
  /// The deepest JSON message parsed; deeper ones get a parse error.
  unsigned maxJsonDepth = 512;
  /// The deepest MLIR document (regions, parentheses, brackets) handed to
  /// the server; a deeper one gets a diagnostic instead.
  unsigned maxDocumentDepth = 1000;
};

/// The options of the guard for the server's command line.
GuardOptions getGuardOptions(int argc, char **argv);

/// Runs `server` (which reads stdin and writes stdout until the editor says
/// `exit`) behind the guard, on a thread with a large stack, and returns
/// its exit code.
int runGuarded(const GuardOptions &options, llvm::function_ref<int()> server);

} // namespace dlbridge::lsp

#endif // DLBRIDGE_TOOLS_DL_LSP_SERVER_MESSAGEGUARD_H
