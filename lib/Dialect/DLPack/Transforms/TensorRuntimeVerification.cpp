//===- TensorRuntimeVerification.cpp - Checks upstream lacks --------------===//
//
// Part of dlbridge. Run-time checks, in the form of MLIR's
// RuntimeVerifiableOpInterface, for tensor ops whose operands must fit
// together and whose bufferization trusts that they do.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Dialect/DLPack/Transforms/TensorRuntimeVerification.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/RuntimeVerifiableOpInterface.h"

using namespace mlir;

namespace {

using MessageFn = function_ref<std::string(Operation *, StringRef)>;

/// Builds the conditions and assertions of one op's checks.
class Checker {
public:
  Checker(Operation *op, OpBuilder &builder, Location loc,
          MessageFn generateErrorMessage)
      : op(op), builder(builder), loc(loc),
        generateErrorMessage(generateErrorMessage) {}

  Value index(OpFoldResult value) {
    return getValueOrCreateConstantIndexOp(builder, loc, value);
  }
  Value dim(Value tensor, int64_t dim) {
    return builder.createOrFold<tensor::DimOp>(loc, tensor, dim);
  }
  Value cmp(arith::CmpIPredicate predicate, Value lhs, Value rhs) {
    return builder.createOrFold<arith::CmpIOp>(loc, predicate, lhs, rhs);
  }
  Value both(Value lhs, Value rhs) {
    return builder.createOrFold<arith::AndIOp>(loc, lhs, rhs);
  }
  Value either(Value lhs, Value rhs) {
    return builder.createOrFold<arith::OrIOp>(loc, lhs, rhs);
  }
  void check(Value ok, const Twine &message) {
    cf::AssertOp::create(builder, loc, ok,
                         generateErrorMessage(op, message.str()));
  }

  Operation *op;
  OpBuilder &builder;
  Location loc;
  MessageFn generateErrorMessage;
};

/// The destination must hold the slice, and the source must have the
/// slice's sizes (less the dims a rank-reducing insert drops).
struct InsertSliceOpInterface
    : public RuntimeVerifiableOpInterface::ExternalModel<
          InsertSliceOpInterface, tensor::InsertSliceOp> {
  void generateRuntimeVerification(Operation *op, OpBuilder &builder,
                                   Location loc,
                                   MessageFn generateErrorMessage) const {
    auto insert = cast<tensor::InsertSliceOp>(op);
    Checker c(op, builder, loc, generateErrorMessage);
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    SmallVector<OpFoldResult> offsets = insert.getMixedOffsets();
    SmallVector<OpFoldResult> sizes = insert.getMixedSizes();
    SmallVector<OpFoldResult> strides = insert.getMixedStrides();
    for (int64_t i = 0, e = insert.getDestType().getRank(); i < e; ++i) {
      Value offset = c.index(offsets[i]), size = c.index(sizes[i]);
      Value last = arith::AddIOp::create(
          builder, loc, offset,
          arith::MulIOp::create(builder, loc,
                                arith::SubIOp::create(builder, loc, size, one),
                                c.index(strides[i])));
      Value extent = c.dim(insert.getDest(), i);
      auto inBounds = [&](Value position) {
        return c.both(c.cmp(arith::CmpIPredicate::sge, position, zero),
                      c.cmp(arith::CmpIPredicate::slt, position, extent));
      };
      c.check(c.cmp(arith::CmpIPredicate::sge, size, zero),
              "size of dimension #" + Twine(i) + " is negative");
      c.check(c.either(c.cmp(arith::CmpIPredicate::eq, size, zero),
                       c.both(inBounds(offset), inBounds(last))),
              "insert_slice runs out-of-bounds along dimension #" + Twine(i) +
                  " of the destination");
    }
    std::optional<llvm::SmallDenseSet<unsigned>> dropped =
        computeRankReductionMask(insert.getStaticSizes(),
                                 insert.getSourceType().getShape(),
                                 /*matchDynamic=*/true);
    if (!dropped)
      return;
    int64_t sourceDim = 0;
    for (auto [i, size] : llvm::enumerate(sizes)) {
      if (dropped->contains(i))
        continue;
      c.check(c.cmp(arith::CmpIPredicate::eq,
                    c.dim(insert.getSource(), sourceDim), c.index(size)),
              "dimension #" + Twine(sourceDim) +
                  " of the source differs from size #" + Twine(i) +
                  " of the slice");
      ++sourceDim;
    }
  }
};

/// Every input has the result's sizes except along the concatenated
/// dimension, where they add up to the result's size.
struct ConcatOpInterface
    : public RuntimeVerifiableOpInterface::ExternalModel<ConcatOpInterface,
                                                         tensor::ConcatOp> {
  void generateRuntimeVerification(Operation *op, OpBuilder &builder,
                                   Location loc,
                                   MessageFn generateErrorMessage) const {
    auto concat = cast<tensor::ConcatOp>(op);
    Checker c(op, builder, loc, generateErrorMessage);
    RankedTensorType resultType = concat.getResultType();
    OperandRange inputs = concat.getInputs();
    for (int64_t d = 0, e = resultType.getRank(); d < e; ++d) {
      if (d == static_cast<int64_t>(concat.getDim())) {
        if (resultType.isDynamicDim(d))
          continue;
        Value total = arith::ConstantIndexOp::create(builder, loc, 0);
        for (Value input : inputs)
          total = arith::AddIOp::create(builder, loc, total, c.dim(input, d));
        c.check(c.cmp(arith::CmpIPredicate::eq, total,
                      arith::ConstantIndexOp::create(builder, loc,
                                                     resultType.getDimSize(d))),
                "the inputs' sizes along dimension #" + Twine(d) +
                    " do not add up to the result's " +
                    Twine(resultType.getDimSize(d)));
        continue;
      }
      Value expected = resultType.isDynamicDim(d)
                           ? c.dim(inputs.front(), d)
                           : arith::ConstantIndexOp::create(
                                 builder, loc, resultType.getDimSize(d));
      for (auto [i, input] : llvm::enumerate(inputs)) {
        if (i == 0 && resultType.isDynamicDim(d))
          continue;
        c.check(c.cmp(arith::CmpIPredicate::eq, c.dim(input, d), expected),
                "dimension #" + Twine(d) + " of input #" + Twine(i) +
                    " differs from " +
                    (resultType.isDynamicDim(d) ? Twine("input #0's")
                                                : Twine("the result's")));
      }
    }
  }
};

/// Each group of the output shape multiplies out to its source dimension,
/// with no negative size.
struct ExpandShapeOpInterface
    : public RuntimeVerifiableOpInterface::ExternalModel<
          ExpandShapeOpInterface, tensor::ExpandShapeOp> {
  void generateRuntimeVerification(Operation *op, OpBuilder &builder,
                                   Location loc,
                                   MessageFn generateErrorMessage) const {
    auto expand = cast<tensor::ExpandShapeOp>(op);
    Checker c(op, builder, loc, generateErrorMessage);
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    SmallVector<OpFoldResult> outputShape = expand.getMixedOutputShape();
    for (auto [group, indices] :
         llvm::enumerate(expand.getReassociationIndices())) {
      Value product = arith::ConstantIndexOp::create(builder, loc, 1);
      Value nonNegative;
      for (int64_t index : indices) {
        Value size = c.index(outputShape[index]);
        Value ok = c.cmp(arith::CmpIPredicate::sge, size, zero);
        nonNegative = nonNegative ? c.both(nonNegative, ok) : ok;
        product = arith::MulIOp::create(builder, loc, product, size);
      }
      c.check(nonNegative, "output_shape of dimension #" + Twine(group) +
                               " of the source has a negative size");
      c.check(c.cmp(arith::CmpIPredicate::eq, product,
                    c.dim(expand.getSrc(), group)),
              "output_shape of dimension #" + Twine(group) +
                  " of the source does not multiply out to its size");
    }
  }
};

/// Padding is added, never removed: negative low or high padding would
/// place the source out of the result's bounds.
struct PadOpInterface
    : public RuntimeVerifiableOpInterface::ExternalModel<PadOpInterface,
                                                         tensor::PadOp> {
  void generateRuntimeVerification(Operation *op, OpBuilder &builder,
                                   Location loc,
                                   MessageFn generateErrorMessage) const {
    auto pad = cast<tensor::PadOp>(op);
    Checker c(op, builder, loc, generateErrorMessage);
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    for (auto [name, amounts] :
         {std::make_pair("low", pad.getMixedLowPad()),
          std::make_pair("high", pad.getMixedHighPad())}) {
      for (auto [d, amount] : llvm::enumerate(amounts))
        c.check(c.cmp(arith::CmpIPredicate::sge, c.index(amount), zero),
                Twine(name) + " padding of dimension #" + Twine(d) +
                    " is negative");
    }
  }
};

} // namespace

void dlbridge::dlpack::registerTensorRuntimeVerification(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, tensor::TensorDialect *) {
    tensor::InsertSliceOp::attachInterface<InsertSliceOpInterface>(*context);
    tensor::ConcatOp::attachInterface<ConcatOpInterface>(*context);
    tensor::ExpandShapeOp::attachInterface<ExpandShapeOpInterface>(*context);
    tensor::PadOp::attachInterface<PadOpInterface>(*context);
    context->loadDialect<arith::ArithDialect, cf::ControlFlowDialect>();
  });
}
