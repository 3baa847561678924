//===- Passes.h - Transforms for NVIDIA GPUs --------------------*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_TRANSFORMS_GPU_PASSES_H
#define DLBRIDGE_TRANSFORMS_GPU_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace dlbridge {

#define GEN_PASS_DECL
#include "dlbridge/Transforms/GPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dlbridge/Transforms/GPU/Passes.h.inc"

} // namespace dlbridge

#endif // DLBRIDGE_TRANSFORMS_GPU_PASSES_H
