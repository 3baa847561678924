//===- Passes.h - dlpack dialect passes -------------------------*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_DIALECT_DLPACK_TRANSFORMS_PASSES_H
#define DLBRIDGE_DIALECT_DLPACK_TRANSFORMS_PASSES_H

#include "dlbridge/Dialect/DLPack/IR/DLPackDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Pass/Pass.h"

namespace dlbridge::dlpack {

#define GEN_PASS_DECL
#include "dlbridge/Dialect/DLPack/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dlbridge/Dialect/DLPack/Transforms/Passes.h.inc"

} // namespace dlbridge::dlpack

#endif // DLBRIDGE_DIALECT_DLPACK_TRANSFORMS_PASSES_H
