//===- ResultShapes.h - Result sizes as expressions of the arguments ------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//
//
// A framework that puts a kernel in its graph (torch.compile's fake tensors,
// XLA's result buffers) must know the result shapes before the kernel runs.
// resultShapes() reads them off the entry's IR: every dynamic size of every
// result as an expression over the arguments' sizes and integer scalars, or
// why it has none (a size the kernel computes from values).
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_JIT_RESULTSHAPES_H
#define DLBRIDGE_JIT_RESULTSHAPES_H

#include <cstdint>
#include <string>
#include <vector>

namespace dlbridge::jit {

/// One node of a size expression. `op` is one of
///   "const"  the integer `value`;
///   "dim"    size `value` of argument `arg`;
///   "arg"    the value of integer (or bool) scalar argument `arg`;
///   "add", "sub", "mul", "floordiv", "ceildiv", "mod" (Python's `%`),
///   "div", "rem" (rounding towards zero, as C), "min", "max",
///   "eq", "ne", "lt", "le", "gt", "ge", "and", "or", "xor" on `operands`;
///   "select" (operands: condition, true value, false value).
/// Unsigned operations on sizes read as their signed forms: sizes are never
/// negative.
struct SizeNode {
  std::string op;
  int64_t value = 0;
  int64_t arg = -1;
  std::vector<size_t> operands;
};

/// The entry's result shapes: for each result, a node (an index into
/// `nodes`) per dim; scalar results have no dims. Or an error naming the
/// result, the dim and the operation that makes it depend on values.
struct ResultShapes {
  std::vector<SizeNode> nodes;
  std::vector<std::vector<size_t>> results;
  std::string error;
  explicit operator bool() const { return error.empty(); }
};

/// The result shapes of `entry` of `source` (tensor- or memref-level MLIR;
/// with `entry` empty the module must have exactly one entry).
ResultShapes resultShapes(const std::string &source, const std::string &entry);

} // namespace dlbridge::jit

#endif // DLBRIDGE_JIT_RESULTSHAPES_H
