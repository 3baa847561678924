//===- DLPackOps.h - dlpack operations --------------------------*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_DIALECT_DLPACK_IR_DLPACKOPS_H
#define DLBRIDGE_DIALECT_DLPACK_IR_DLPACKOPS_H

#include "dlbridge/Dialect/DLPack/IR/DLPackDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "dlbridge/Dialect/DLPack/IR/DLPackOps.h.inc"

#endif // DLBRIDGE_DIALECT_DLPACK_IR_DLPACKOPS_H
