//===- DLPackDialect.h - dlpack dialect, attributes, types ------*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_DIALECT_DLPACK_IR_DLPACKDIALECT_H
#define DLBRIDGE_DIALECT_DLPACK_IR_DLPACKDIALECT_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

#include "dlbridge/Dialect/DLPack/IR/DLPackOpsDialect.h.inc"

#include "dlbridge/Dialect/DLPack/IR/DLPackEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dlbridge/Dialect/DLPack/IR/DLPackAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dlbridge/Dialect/DLPack/IR/DLPackOpsTypes.h.inc"

#endif // DLBRIDGE_DIALECT_DLPACK_IR_DLPACKDIALECT_H
