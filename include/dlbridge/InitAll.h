//===- InitAll.h - Register everything dlbridge's tools use -----*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_INITALL_H
#define DLBRIDGE_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace dlbridge {

/// Adds every upstream dialect, extension and LLVM IR translation interface,
/// and the dlpack dialect, to `registry`.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers every upstream pass and every dlbridge pass and pipeline with
/// the global pass registry (what `--help` and `--pass-pipeline` see).
void registerAllPasses();

} // namespace dlbridge

#endif // DLBRIDGE_INITALL_H
