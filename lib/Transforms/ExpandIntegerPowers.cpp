//===- ExpandIntegerPowers.cpp - math.ipowi by square-and-multiply --------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace dlbridge {
#define GEN_PASS_DEF_EXPANDINTEGERPOWERS
#include "dlbridge/Transforms/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {

/// `math.ipowi %b, %p` on scalars, as upstream's convert-math-to-funcs
/// computes it but inline: for `p >= 0` a loop that squares the base and
/// multiplies the result by it at each set bit of the exponent; for `p < 0`
/// 1 for a base of 1, -1 or 1 for -1 by the exponent's parity, else 0.
struct ExpandIPowI : public OpRewritePattern<math::IPowIOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::IPowIOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<IntegerType>(op.getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "not a scalar integer");
    Location loc = op.getLoc();
    auto constant = [&](int64_t value) -> Value {
      return arith::ConstantIntOp::create(rewriter, loc, type, value);
    };
    Value zero = constant(0), one = constant(1), minusOne = constant(-1);
    Value base = op.getLhs(), exponent = op.getRhs();
    Value negative = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::slt, exponent, zero);
    Value bits =
        arith::SelectOp::create(rewriter, loc, negative, zero, exponent);

    SmallVector<Type> types(3, type);
    auto loop = scf::WhileOp::create(
        rewriter, loc, types, ValueRange{one, base, bits},
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value more = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne,
                                             args[2], zero);
          scf::ConditionOp::create(b, l, more, args);
        },
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value low = arith::AndIOp::create(b, l, args[2], one);
          Value set =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, low, zero);
          Value times = arith::MulIOp::create(b, l, args[0], args[1]);
          Value result = arith::SelectOp::create(b, l, set, times, args[0]);
          Value squared = arith::MulIOp::create(b, l, args[1], args[1]);
          Value rest = arith::ShRUIOp::create(b, l, args[2], one);
          scf::YieldOp::create(b, l, ValueRange{result, squared, rest});
        });

    Value odd = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ne,
        arith::AndIOp::create(rewriter, loc, exponent, one), zero);
    Value isOne = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        base, one);
    Value isMinusOne = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, base, minusOne);
    Value signOfMinusOne =
        arith::SelectOp::create(rewriter, loc, odd, minusOne, one);
    Value inverse = arith::SelectOp::create(
        rewriter, loc, isOne, one,
        arith::SelectOp::create(rewriter, loc, isMinusOne, signOfMinusOne,
                                zero));
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, negative, inverse,
                                                 loop.getResult(0));
    return success();
  }
};

struct ExpandIntegerPowersPass
    : public dlbridge::impl::ExpandIntegerPowersBase<ExpandIntegerPowersPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandIPowI>(&getContext());
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace
