//===- ResultShapes.cpp - Result sizes as expressions of the arguments ----===//
//
// Part of dlbridge. The entry's return becomes the `dim`s of its results;
// MLIR's shape reification (ReifyRankedShapedTypeOpInterface, the tensor
// and memref dim folders), the loop canonicalizations and lowering affine
// maps to arith then leave each size as integer arithmetic on the
// arguments' dims and scalars, which is read into SizeNodes.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/JIT/ResultShapes.h"
#include "Frontend.h"
#include "dlbridge/JIT/CrashGuard.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace dlbridge;
using namespace dlbridge::jit;

namespace {

/// "file:line" of `loc`, or "" when it names no file.
std::string sourceLine(Location loc) {
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    return (file.getFilename().getValue() + ":" + Twine(file.getLine())).str();
  return "";
}

/// Reads the sizes the return's operands are into SizeNodes.
class SizeReader {
public:
  SizeReader(Block &entryBlock, std::vector<SizeNode> &nodes)
      : entryBlock(entryBlock), nodes(nodes) {}

  /// The node of `value`, or failure with the operation that computes it
  /// from values in `why`.
  FailureOr<size_t> read(Value value, std::string &why) {
    if (auto found = memo.find(value); found != memo.end())
      return found->second;
    FailureOr<SizeNode> node = describe(value, why);
    if (failed(node))
      return failure();
    nodes.push_back(std::move(*node));
    memo[value] = nodes.size() - 1;
    return nodes.size() - 1;
  }

private:
  FailureOr<SizeNode> leaf(StringRef op, int64_t value, int64_t arg = -1) {
    return SizeNode{op.str(), value, arg, {}};
  }

  FailureOr<SizeNode> apply(StringRef op, ValueRange operands,
                            std::string &why) {
    SizeNode node{op.str(), 0, -1, {}};
    for (Value operand : operands) {
      FailureOr<size_t> index = read(operand, why);
      if (failed(index))
        return failure();
      node.operands.push_back(*index);
    }
    return node;
  }

  FailureOr<SizeNode> describe(Value value, std::string &why) {
    if (auto argument = dyn_cast<BlockArgument>(value)) {
      if (argument.getOwner() == &entryBlock &&
          argument.getType().isIntOrIndex())
        return leaf("arg", 0, argument.getArgNumber());
      why = "a value the kernel computes";
      return failure();
    }
    APInt constant;
    if (matchPattern(value, m_ConstantInt(&constant)))
      return leaf("const", constant.getBitWidth() == 1
                               ? int64_t(constant.getZExtValue())
                               : constant.getSExtValue());
    Operation *op = value.getDefiningOp();
    auto dimOf = [&](Value source,
                     std::optional<int64_t> index) -> FailureOr<SizeNode> {
      auto argument = dyn_cast<BlockArgument>(source);
      if (argument && argument.getOwner() == &entryBlock && index)
        return leaf("dim", *index, argument.getArgNumber());
      // The size of what an operation computed: name that operation (a
      // loop filling a result of a counted size), not the dim.
      Operation *producer = source.getDefiningOp();
      return fail(producer ? producer : op, why);
    };
    return llvm::TypeSwitch<Operation *, FailureOr<SizeNode>>(op)
        .Case([&](tensor::DimOp dim) {
          return dimOf(dim.getSource(), dim.getConstantIndex());
        })
        .Case([&](memref::DimOp dim) {
          return dimOf(dim.getSource(), dim.getConstantIndex());
        })
        .Case<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
              arith::ExtUIOp, arith::TruncIOp>(
            [&](Operation *cast) { return describe(cast->getOperand(0), why); })
        .Case([&](arith::CmpIOp cmp) {
          return apply(predicateName(cmp.getPredicate()), cmp->getOperands(),
                       why);
        })
        .Case([&](arith::SelectOp select) {
          return apply("select", select->getOperands(), why);
        })
        .Default([&](Operation *other) -> FailureOr<SizeNode> {
          StringRef name = binaryName(other);
          if (name.empty())
            return fail(other, why);
          return apply(name, other->getOperands(), why);
        });
  }

  static StringRef binaryName(Operation *op) {
    return llvm::TypeSwitch<Operation *, StringRef>(op)
        .Case<arith::AddIOp>([](auto) { return "add"; })
        .Case<arith::SubIOp>([](auto) { return "sub"; })
        .Case<arith::MulIOp>([](auto) { return "mul"; })
        .Case<arith::FloorDivSIOp, arith::DivUIOp>(
            [](auto) { return "floordiv"; })
        .Case<arith::CeilDivSIOp, arith::CeilDivUIOp>(
            [](auto) { return "ceildiv"; })
        .Case<arith::DivSIOp>([](auto) { return "div"; })
        .Case<arith::RemSIOp>([](auto) { return "rem"; })
        .Case<arith::RemUIOp>([](auto) { return "mod"; })
        .Case<arith::MinSIOp, arith::MinUIOp>([](auto) { return "min"; })
        .Case<arith::MaxSIOp, arith::MaxUIOp>([](auto) { return "max"; })
        .Case<arith::AndIOp>([](auto) { return "and"; })
        .Case<arith::OrIOp>([](auto) { return "or"; })
        .Case<arith::XOrIOp>([](auto) { return "xor"; })
        .Default([](Operation *) { return ""; });
  }

  static StringRef predicateName(arith::CmpIPredicate predicate) {
    switch (predicate) {
    case arith::CmpIPredicate::eq:
      return "eq";
    case arith::CmpIPredicate::ne:
      return "ne";
    case arith::CmpIPredicate::slt:
    case arith::CmpIPredicate::ult:
      return "lt";
    case arith::CmpIPredicate::sle:
    case arith::CmpIPredicate::ule:
      return "le";
    case arith::CmpIPredicate::sgt:
    case arith::CmpIPredicate::ugt:
      return "gt";
    case arith::CmpIPredicate::sge:
    case arith::CmpIPredicate::uge:
      return "ge";
    }
    llvm_unreachable("unknown arith.cmpi predicate");
  }

  static FailureOr<SizeNode> fail(Operation *op, std::string &why) {
    std::string line = sourceLine(op->getLoc());
    why = "'" + op->getName().getStringRef().str() + "'" +
          (line.empty() ? "" : " at " + line);
    return failure();
  }

  Block &entryBlock;
  std::vector<SizeNode> &nodes;
  llvm::DenseMap<Value, size_t> memo;
};

/// Simplifies `function`'s sizes until they are arithmetic on its arguments.
LogicalResult simplifySizes(func::FuncOp function) {
  MLIRContext *context = function.getContext();
  RewritePatternSet patterns(context);
  memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
  memref::populateResolveShapedTypeResultDimsPatterns(patterns);
  scf::populateSCFForLoopCanonicalizationPatterns(patterns);
  populateAffineToStdConversionPatterns(patterns);
  for (Dialect *dialect : context->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : context->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, context);
  return applyPatternsGreedily(function, std::move(patterns));
}

ResultShapes resultShapesUnguarded(const std::string &source,
                                   const std::string &requestedEntry) {
  ResultShapes result;
  MLIRContext context(getRegistry(), MLIRContext::Threading::DISABLED);
  context.loadDialect<affine::AffineDialect, arith::ArithDialect,
                      memref::MemRefDialect, scf::SCFDialect,
                      tensor::TensorDialect>();
  SourceDiagnostics diagnostics(context, source);
  OwningOpRef<ModuleOp> module = diagnostics.parse();
  if (!module) {
    result.error = diagnostics.text();
    return result;
  }
  std::string error;
  std::string name = selectEntry(*module, requestedEntry, error);
  auto function = module->lookupSymbol<func::FuncOp>(name);
  if (name.empty() || !function || function.isExternal()) {
    result.error =
        "<source>: " +
        (error.empty() ? "the entry '" + name + "' has no body" : error);
    return result;
  }
  if (!function.getBody().hasOneBlock()) {
    result.error = "<source>: the entry '" + name +
                   "' returns from several blocks; its result shapes are "
                   "known only when it runs";
    return result;
  }

  // The return gives the results' sizes instead: dims, and constants for
  // static sizes.
  auto ret = cast<func::ReturnOp>(function.getBody().front().getTerminator());
  OpBuilder builder(ret);
  SmallVector<Value> sizes;
  SmallVector<std::pair<size_t, int64_t>> where;
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    auto shaped = dyn_cast<ShapedType>(value.getType());
    result.results.emplace_back();
    if (!shaped)
      continue;
    for (int64_t d = 0; d < shaped.getRank(); ++d) {
      Value size =
          isa<MemRefType>(shaped)
              ? builder.createOrFold<memref::DimOp>(ret.getLoc(), value, d)
              : builder.createOrFold<tensor::DimOp>(ret.getLoc(), value, d);
      sizes.push_back(size);
      where.emplace_back(i, d);
    }
  }
  builder.create<func::ReturnOp>(ret.getLoc(), sizes);
  ret.erase();
  function.setFunctionType(builder.getFunctionType(
      function.getArgumentTypes(), ValueRange(sizes).getTypes()));
  // A fixed point is not needed: whatever remains is read or refused.
  (void)simplifySizes(function);

  auto newReturn = cast<func::ReturnOp>(function.getBody().back().back());
  SizeReader reader(function.getBody().front(), result.nodes);
  for (auto [value, position] : llvm::zip(newReturn.getOperands(), where)) {
    std::string why;
    FailureOr<size_t> node = reader.read(value, why);
    if (failed(node)) {
      result.error = "result " + std::to_string(position.first) + ", dim " +
                     std::to_string(position.second) +
                     ": its size depends on the values of the arguments (" +
                     why + "), not only on their shapes";
      return result;
    }
    result.results[position.first].push_back(*node);
  }
  return result;
}

} // namespace

ResultShapes dlbridge::jit::resultShapes(const std::string &source,
                                         const std::string &entry) {
  ResultShapes result;
  std::string crash;
  if (!runContained([&] { result = resultShapesUnguarded(source, entry); },
                    crash))
    result = {{},
              {},
              "<source>: internal compiler error while reading result "
              "shapes: " +
                  crash + " inside MLIR (contained)"};
  return result;
}
