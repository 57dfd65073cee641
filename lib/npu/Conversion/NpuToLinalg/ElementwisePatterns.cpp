//===- ElementwisePatterns.cpp - elementwise ops to linalg ----------------===//
//
// Each op becomes one all-parallel linalg.generic whose body extends the
// operands to f32, computes, and truncates once to the result element type.
// The arithmetic in the bodies is exactly what computeWork counts.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "Tiling.h"
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
/// (identity for same-shape operands, a broadcast otherwise: constant 0
/// where the input's dimension is 1 and the result's is not).
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, ScalarFn fn) {
  MLIRContext *ctx = b.getContext();
  unsigned rank = resultType.getRank();
  SmallVector<AffineMap> maps;
  for (Value in : inputs) {
    auto inType = cast<RankedTensorType>(in.getType());
    unsigned r = inType.getRank();
    SmallVector<AffineExpr> exprs;
    for (unsigned d = rank - r; d < rank; ++d)
      exprs.push_back(inType.getDimSize(d - (rank - r)) == 1 &&
                              resultType.getDimSize(d) != 1
                          ? getAffineConstantExpr(0, ctx)
                          : getAffineDimExpr(d, ctx));
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
          return buildSiluF32(b, l, xs[0]);
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
          return buildGeluF32(b, l, xs[0], useTanh);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct SwigluToGeneric : OpRewritePattern<SwigluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SwigluOp op,
                                PatternRewriter &rewriter) const override {
    GatedActivation act = op.getActivation();
    Value r = buildElementwise(
        rewriter, op.getLoc(), op.getResult().getType(),
        ValueRange{op.getGate(), op.getUp()},
        [&](OpBuilder &b, Location l, ArrayRef<Value> xs) -> Value {
          return arith::MulFOp::create(
              b, l, buildGateActivationF32(b, l, xs[0], act), xs[1]);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct SoftcapToGeneric : OpRewritePattern<SoftcapOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftcapOp op,
                                PatternRewriter &rewriter) const override {
    double cap = op.getCap().convertToDouble();
    Value r = buildElementwise(
        rewriter, op.getLoc(), op.getResult().getType(),
        ValueRange{op.getInput()},
        [&](OpBuilder &b, Location l, ArrayRef<Value> xs) -> Value {
          return buildSoftcap(b, l, xs[0], cap);
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
  patterns
      .add<BinaryToGeneric<AddOp, arith::AddFOp>,
           BinaryToGeneric<MulOp, arith::MulFOp>, SiluToGeneric, GeluToGeneric,
           SwigluToGeneric, SoftcapToGeneric, ConvertToGeneric>(
          patterns.getContext());
}
