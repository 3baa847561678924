//===- Passes.h - dlbridge conversion passes --------------------*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_CONVERSION_PASSES_H
#define DLBRIDGE_CONVERSION_PASSES_H

#include "dlbridge/Conversion/DLPackToLLVM/DLPackToLLVM.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace dlbridge {

#define GEN_PASS_DECL
#include "dlbridge/Conversion/Passes.h.inc"

/// Registers every dlbridge conversion pass with the global pass registry.
#define GEN_PASS_REGISTRATION
#include "dlbridge/Conversion/Passes.h.inc"

} // namespace dlbridge

#endif // DLBRIDGE_CONVERSION_PASSES_H
