//===- Passes.h - dlbridge's general transforms -----------------*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_TRANSFORMS_PASSES_H
#define DLBRIDGE_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace dlbridge {

#define GEN_PASS_DECL
#include "dlbridge/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dlbridge/Transforms/Passes.h.inc"

} // namespace dlbridge

#endif // DLBRIDGE_TRANSFORMS_PASSES_H
