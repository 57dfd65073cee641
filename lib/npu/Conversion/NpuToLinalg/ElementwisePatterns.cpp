//===- ElementwisePatterns.cpp - elementwise ops to linalg ----------------===//
//
// Each op becomes one all-parallel linalg.generic whose body extends the
// operands to f32, computes, and truncates once to the result element type.
// The arithmetic in the bodies is exactly what computeWork counts.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mlir::npu;

namespace {
/// Computes the f32 result of one element from the f32 operands.
using ScalarFn =
    function_ref<Value(OpBuilder &, Location, ArrayRef<Value> /*f32 args*/)>;

/// A linalg.generic over the shape of `resultType` reading `inputs`;
/// input `i` is indexed by the trailing `rank(inputs[i])` loop dimensions
/// (identity for same-shape operands, a suffix broadcast otherwise).
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, ScalarFn fn) {
  MLIRContext *ctx = b.getContext();
  unsigned rank = resultType.getRank();
  SmallVector<AffineMap> maps;
  for (Value in : inputs) {
    unsigned r = cast<RankedTensorType>(in.getType()).getRank();
    SmallVector<AffineExpr> exprs;
    for (unsigned d = rank - r; d < rank; ++d)
      exprs.push_back(getAffineDimExpr(d, ctx));
    maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                       resultType.getElementType());
  Type f32 = b.getF32Type();
  return linalg::GenericOp::create(
             b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps,
             iters,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               SmallVector<Value> xs;
               for (Value a : args.drop_back())
                 xs.push_back(castFloat(nb, l, a, f32));
               Value y = fn(nb, l, xs);
               linalg::YieldOp::create(
                   nb, l, castFloat(nb, l, y, resultType.getElementType()));
             })
      .getResult(0);
}

Value f32Const(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
}

/// x * (1 / (1 + exp(-x))): 1 exp, 3 vector FLOPs (negation is free).
Value buildSilu(OpBuilder &b, Location loc, Value x) {
  Value one = f32Const(b, loc, 1.0);
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  Value den = arith::AddFOp::create(b, loc, one, e);
  Value s = arith::DivFOp::create(b, loc, one, den);
  return arith::MulFOp::create(b, loc, x, s);
}

template <typename NpuOp, typename ArithOp>
struct BinaryToGeneric : OpRewritePattern<NpuOp> {
  using OpRewritePattern<NpuOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(NpuOp op,
                                PatternRewriter &rewriter) const override {
    Value r = buildElementwise(
        rewriter, op.getLoc(), op.getResult().getType(),
        ValueRange{op.getLhs(), op.getRhs()},
        [](OpBuilder &b, Location l, ArrayRef<Value> xs) -> Value {
          return ArithOp::create(b, l, xs[0], xs[1]);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct SiluToGeneric : OpRewritePattern<SiluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SiluOp op,
                                PatternRewriter &rewriter) const override {
    Value r = buildElementwise(
        rewriter, op.getLoc(), op.getResult().getType(),
        ValueRange{op.getInput()},
        [](OpBuilder &b, Location l, ArrayRef<Value> xs) -> Value {
          return buildSilu(b, l, xs[0]);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct GeluToGeneric : OpRewritePattern<GeluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GeluOp op,
                                PatternRewriter &rewriter) const override {
    bool useTanh = op.getApproximate() == GeluApproximation::Tanh;
    Value r = buildElementwise(
        rewriter, op.getLoc(), op.getResult().getType(),
        ValueRange{op.getInput()},
        [&](OpBuilder &b, Location l, ArrayRef<Value> xs) -> Value {
          Value x = xs[0];
          Value one = f32Const(b, l, 1.0);
          Value half = f32Const(b, l, 0.5);
          Value t;
          if (useTanh) {
            // tanh(sqrt(2/pi) * (x + 0.044715 x^3)) with the constants
            // folded: u = (x*x) * c1 + c0; tanh(u * x).
            const double sqrt2OverPi = std::sqrt(2.0 / M_PI);
            Value c0 = f32Const(b, l, sqrt2OverPi);
            Value c1 = f32Const(b, l, sqrt2OverPi * 0.044715);
            Value u = arith::MulFOp::create(b, l, x, x);
            u = arith::MulFOp::create(b, l, u, c1);
            u = arith::AddFOp::create(b, l, u, c0);
            u = arith::MulFOp::create(b, l, u, x);
            t = math::TanhOp::create(b, l, u);
          } else {
            Value rsqrt2 = f32Const(b, l, M_SQRT1_2);
            t = math::ErfOp::create(b, l,
                                    arith::MulFOp::create(b, l, x, rsqrt2));
          }
          Value halfX = arith::MulFOp::create(b, l, x, half);
          Value onePlus = arith::AddFOp::create(b, l, one, t);
          return arith::MulFOp::create(b, l, halfX, onePlus);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct SwigluToGeneric : OpRewritePattern<SwigluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SwigluOp op,
                                PatternRewriter &rewriter) const override {
    Value r = buildElementwise(
        rewriter, op.getLoc(), op.getResult().getType(),
        ValueRange{op.getGate(), op.getUp()},
        [](OpBuilder &b, Location l, ArrayRef<Value> xs) -> Value {
          return arith::MulFOp::create(b, l, buildSilu(b, l, xs[0]), xs[1]);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// convert -> one linalg.generic of arith.extf / arith.truncf.
struct ConvertToGeneric : OpRewritePattern<ConvertOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op,
                       castTensor(rewriter, op.getLoc(), op.getInput(),
                                  op.getResult().getType().getElementType()));
    return success();
  }
};
} // namespace

void mlir::npu::populateElementwiseToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<BinaryToGeneric<AddOp, arith::AddFOp>,
               BinaryToGeneric<MulOp, arith::MulFOp>, SiluToGeneric,
               GeluToGeneric, SwigluToGeneric, ConvertToGeneric>(
      patterns.getContext());
}
