//===- GenerateShapeChecks.cpp - O(rank) run-time shape checks ------------===//
//
// Part of dlbridge. Asks RuntimeVerifiableOpInterface for the checks of the
// ops whose checks cost O(rank) per call, and turns them into dlpack.assert
// with messages that name the op and show the operands' shapes.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Dialect/DLPack/Transforms/Passes.h"

#include "CheckMessages.h"
#include "LoopAccessChecks.h"
#include "dlbridge/Dialect/DLPack/IR/DLPackOps.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/RuntimeVerifiableOpInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dlbridge::dlpack {
#define GEN_PASS_DEF_DLPACKGENERATESHAPECHECKS
#include "dlbridge/Dialect/DLPack/Transforms/Passes.h.inc"
} // namespace dlbridge::dlpack

using namespace mlir;
using namespace dlbridge::dlpack;

namespace {

/// Whether the checks of `op` cost O(rank) per call: linalg structured ops
/// anywhere on the host, other ops only where nothing repeats them.
bool isCheapToCheck(Operation *op) {
  bool structured = isa<linalg::LinalgOp>(op);
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (isa<gpu::GPUModuleOp, gpu::LaunchOp, gpu::GPUFuncOp>(parent))
      return false;
    if (!structured &&
        (isa<LoopLikeOpInterface>(parent) || isa<linalg::LinalgOp>(parent)))
      return false;
  }
  return true;
}

/// Whether `size` is dim `index` of `shaped` (the loop range taken from it).
bool isDimOf(Value size, Value shaped, int64_t index) {
  Operation *def = size.getDefiningOp();
  if (!isa_and_present<tensor::DimOp, memref::DimOp>(def) ||
      def->getOperand(0) != shaped)
    return false;
  std::optional<int64_t> dim = getConstantIntValue(def->getOperand(1));
  return dim && *dim == index;
}

/// Checks that each operand dim a linalg op indexes with a loop dimension
/// alone equals that loop's range. Upstream checks nothing when the
/// iteration space is empty, so a (3, 0) by (4, 2) matmul would return a
/// (3, 2) zero matrix where NumPy refuses the shapes.
void generateEmptySpaceChecks(OpBuilder &builder, linalg::LinalgOp op) {
  Location loc = op.getLoc();
  SmallVector<Range> ranges = op.createLoopRanges(builder, loc);
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (auto [index, expr] : llvm::enumerate(map.getResults())) {
      auto loop = dyn_cast<AffineDimExpr>(expr);
      if (!loop)
        continue;
      Value size = getValueOrCreateConstantIndexOp(
          builder, loc, ranges[loop.getPosition()].size);
      if (isDimOf(size, operand.get(), index))
        continue;
      Value actual =
          linalg::createOrFoldDimOp(builder, loc, operand.get(), index);
      Value ok = builder.createOrFold<arith::CmpIOp>(
          loc, arith::CmpIPredicate::eq, actual, size);
      cf::AssertOp::create(builder, loc, ok,
                           "dimension #" + std::to_string(index) +
                               " of input/output operand #" +
                               std::to_string(operand.getOperandNumber()) +
                               " is incompatible with inferred dimension "
                               "size");
    }
  }
}

/// Generates the checks of `op` before it and rewrites the `cf.assert`s
/// they consist of into `dlpack.assert`s whose messages end with the
/// operands' actual shapes. Returns the top-level ops generated.
SmallVector<Operation *> generateChecks(OpBuilder &builder,
                                        RuntimeVerifiableOpInterface op) {
  builder.setInsertionPoint(op);
  Operation *previous = op->getPrevNode();
  std::string where = describeOp(op);
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op.getOperation()))
    generateEmptySpaceChecks(builder, linalgOp);
  op.generateRuntimeVerification(
      builder, op->getLoc(),
      [&](Operation *, StringRef message) { return message.str(); });
  Block::iterator first =
      previous ? std::next(previous->getIterator()) : op->getBlock()->begin();
  SmallVector<cf::AssertOp> asserts;
  for (Operation &created : llvm::make_range(first, op->getIterator()))
    created.walk([&](cf::AssertOp check) { asserts.push_back(check); });

  SmallVector<Value> shaped;
  for (Value operand : op->getOperands())
    if (auto type = dyn_cast<ShapedType>(operand.getType());
        type && type.hasRank() && isa<mlir::TensorType, MemRefType>(type))
      shaped.push_back(operand);
  for (cf::AssertOp check : asserts) {
    builder.setInsertionPoint(check);
    CheckMessage message;
    message << where << ": " << check.getMsg();
    if (!shaped.empty()) {
      message << "; operand shapes:";
      for (Value operand : shaped) {
        message << " ";
        message.appendShape(builder, check.getLoc(), operand);
      }
    }
    AssertOp::create(builder, check.getLoc(), check.getArg(),
                     FailureStatus::ShapeMismatch, message.getFormat(),
                     message.getValues());
    check.erase();
  }
  first =
      previous ? std::next(previous->getIterator()) : op->getBlock()->begin();
  return llvm::to_vector(
      llvm::make_pointer_range(llvm::make_range(first, op->getIterator())));
}

struct DLPackGenerateShapeChecksPass
    : public dlbridge::dlpack::impl::DLPackGenerateShapeChecksBase<
          DLPackGenerateShapeChecksPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    // Upstream builds checks with createOrFold, which leaves those of static
    // shapes (constant conditions, index arithmetic on constants) behind.
    RewritePatternSet patterns(context);
    for (Dialect *dialect : context->getLoadedDialects())
      dialect->getCanonicalizationPatterns(patterns);
    for (RegisteredOperationName op : context->getRegisteredOperations())
      op.getCanonicalizationPatterns(patterns, context);
    canonicalization = FrozenRewritePatternSet(std::move(patterns));
    return success();
  }

  void runOnOperation() override {
    SmallVector<RuntimeVerifiableOpInterface> ops;
    SmallVector<Operation *> loopAccesses;
    getOperation().walk([&](Operation *op) {
      auto verifiable = dyn_cast<RuntimeVerifiableOpInterface>(op);
      if (verifiable && isCheapToCheck(op))
        ops.push_back(verifiable);
      else if (isa<memref::LoadOp, memref::StoreOp, tensor::ExtractOp,
                   tensor::InsertOp, affine::AffineLoadOp,
                   affine::AffineStoreOp>(op))
        loopAccesses.push_back(op);
    });
    OpBuilder builder(&getContext());
    SmallVector<Operation *> generated;
    for (RuntimeVerifiableOpInterface op : ops)
      llvm::append_range(generated, generateChecks(builder, op));
    for (Operation *op : loopAccesses)
      llvm::append_range(generated, generateLoopAccessChecks(builder, op));
    // Only the checks are simplified; the program is left as it was.
    SmallVector<Operation *> nested;
    for (Operation *op : generated)
      op->walk([&](Operation *inner) { nested.push_back(inner); });
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    (void)applyOpPatternsGreedily(nested, canonicalization, config);
  }

  FrozenRewritePatternSet canonicalization;
};

} // namespace
