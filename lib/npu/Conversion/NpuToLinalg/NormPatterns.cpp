//===- NormPatterns.cpp - softmax, norms and rope to linalg ---------------===//
//
// Explicit linalg.generic ops computing in f32. Each intermediate that the
// work formulas count once (exp(x - max) of softmax, x - mean of layer_norm,
// the rstd of each row, rope's angle table) is materialized once, so that the
// reference does exactly the arithmetic that computeWork() counts.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace mlir::npu;

namespace {
using BodyFn =
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>;

/// A linalg.generic over `inits` whose body yields what `body` returns.
SmallVector<Value> buildGeneric(OpBuilder &b, Location loc, ValueRange ins,
                                ValueRange inits, ArrayRef<AffineMap> maps,
                                ArrayRef<utils::IteratorType> iters,
                                BodyFn body) {
  return linalg::GenericOp::create(
             b, loc, TypeRange(inits), ins, inits, maps, iters,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl, body(nb, nl, args));
             })
      ->getResults();
}

/// Map of a `rank`-loop nest onto the loops `dims` (in order).
AffineMap projection(MLIRContext *ctx, unsigned rank, ArrayRef<unsigned> dims) {
  SmallVector<AffineExpr> exprs;
  for (unsigned d : dims)
    exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

/// Map of a `rank`-loop nest onto every loop but `skip`.
AffineMap dropDim(MLIRContext *ctx, unsigned rank, unsigned skip) {
  SmallVector<unsigned> dims;
  for (unsigned d = 0; d < rank; ++d)
    if (d != skip)
      dims.push_back(d);
  return projection(ctx, rank, dims);
}

SmallVector<int64_t> dropDim(ArrayRef<int64_t> shape, unsigned skip) {
  SmallVector<int64_t> out;
  for (auto [i, s] : llvm::enumerate(shape))
    if (i != skip)
      out.push_back(s);
  return out;
}

/// Iterators of a `rank`-loop nest: parallel, except `reduced`.
SmallVector<utils::IteratorType> itersReducing(unsigned rank,
                                               unsigned reduced) {
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  iters[reduced] = utils::IteratorType::reduction;
  return iters;
}

Value f32Const(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
}

/// sum over dimension `dim` of `f(x)` in f32, into a tensor of the shape of
/// `x` without `dim`.
Value reduceSum(OpBuilder &b, Location loc, Value x, unsigned dim,
                function_ref<Value(OpBuilder &, Location, Value)> f) {
  auto type = cast<RankedTensorType>(x.getType());
  unsigned rank = type.getRank();
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  Value init = createFilled(b, loc, dropDim(type.getShape(), dim), f32, 0.0);
  return buildGeneric(
      b, loc, x, init,
      {b.getMultiDimIdentityMap(rank), dropDim(ctx, rank, dim)},
      itersReducing(rank, dim),
      [&](OpBuilder &nb, Location nl, ValueRange args) -> SmallVector<Value> {
        Value v = f(nb, nl, castFloat(nb, nl, args[0], f32));
        return {arith::AddFOp::create(nb, nl, args[1], v)};
      })[0];
}

/// rsqrt(sumSq / n + eps) for every row (a parallel generic over the rows).
Value rowRstd(OpBuilder &b, Location loc, Value sumSq, int64_t n, double eps) {
  auto type = cast<RankedTensorType>(sumSq.getType());
  unsigned rank = type.getRank();
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  return buildGeneric(
      b, loc, sumSq, init, maps, iters,
      [&](OpBuilder &nb, Location nl, ValueRange args) -> SmallVector<Value> {
        Value mean =
            arith::DivFOp::create(nb, nl, args[0], f32Const(nb, nl, double(n)));
        Value v = arith::AddFOp::create(nb, nl, mean, f32Const(nb, nl, eps));
        return {math::RsqrtOp::create(nb, nl, v)};
      })[0];
}

//===----------------------------------------------------------------------===//
// softmax: max (reduction), e = exp(x - max), sum (reduction), e / sum.
//===----------------------------------------------------------------------===//

struct SoftmaxToGenerics : OpRewritePattern<SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Value x = op.getInput();
    auto type = op.getInput().getType();
    Type elem = type.getElementType();
    Type f32 = rewriter.getF32Type();
    unsigned rank = type.getRank();
    unsigned dim = op.getNormalizedDim();
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    AffineMap red = dropDim(ctx, rank, dim);
    SmallVector<int64_t> redShape = dropDim(type.getShape(), dim);
    SmallVector<utils::IteratorType> parallel(rank,
                                              utils::IteratorType::parallel);

    Value maxInit = createFilled(rewriter, loc, redShape, f32,
                                 -std::numeric_limits<double>::infinity());
    Value max = buildGeneric(
        rewriter, loc, x, maxInit, {id, red}, itersReducing(rank, dim),
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          return {arith::MaximumFOp::create(b, l, args[1],
                                            castFloat(b, l, args[0], f32))};
        })[0];

    Value eInit = tensor::EmptyOp::create(rewriter, loc, type.getShape(), f32);
    Value e = buildGeneric(
        rewriter, loc, ValueRange{x, max}, eInit, {id, red, id}, parallel,
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          Value d = arith::SubFOp::create(b, l, castFloat(b, l, args[0], f32),
                                          args[1]);
          return {math::ExpOp::create(b, l, d)};
        })[0];

    Value sum = reduceSum(rewriter, loc, e, dim,
                          [](OpBuilder &, Location, Value v) { return v; });

    Value outInit =
        tensor::EmptyOp::create(rewriter, loc, type.getShape(), elem);
    Value out = buildGeneric(
        rewriter, loc, ValueRange{e, sum}, outInit, {id, red, id}, parallel,
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          Value p = arith::DivFOp::create(b, l, args[0], args[1]);
          return {castFloat(b, l, p, elem)};
        })[0];
    rewriter.replaceOp(op, out);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// rms_norm: sum(x^2) (reduction), rstd per row, x * rstd * gamma.
//===----------------------------------------------------------------------===//

struct RMSNormToGenerics : OpRewritePattern<RMSNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RMSNormOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Value x = op.getInput();
    auto type = op.getInput().getType();
    Type elem = type.getElementType();
    Type f32 = rewriter.getF32Type();
    unsigned rank = type.getRank();
    unsigned last = rank - 1;
    int64_t n = type.getDimSize(last);

    Value sumSq = reduceSum(rewriter, loc, x, last,
                            [](OpBuilder &b, Location l, Value v) -> Value {
                              return arith::MulFOp::create(b, l, v, v);
                            });
    Value rstd =
        rowRstd(rewriter, loc, sumSq, n, op.getEps().convertToDouble());

    Value outInit =
        tensor::EmptyOp::create(rewriter, loc, type.getShape(), elem);
    SmallVector<Value> ins = {x, rstd};
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank),
                                   dropDim(ctx, rank, last)};
    Value gamma = op.getGamma();
    if (gamma) {
      ins.push_back(gamma);
      maps.push_back(projection(ctx, rank, {last}));
    }
    maps.push_back(rewriter.getMultiDimIdentityMap(rank));
    SmallVector<utils::IteratorType> parallel(rank,
                                              utils::IteratorType::parallel);
    Value out = buildGeneric(
        rewriter, loc, ins, outInit, maps, parallel,
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          Value v = arith::MulFOp::create(b, l, castFloat(b, l, args[0], f32),
                                          args[1]);
          if (gamma)
            v = arith::MulFOp::create(b, l, v, castFloat(b, l, args[2], f32));
          return {castFloat(b, l, v, elem)};
        })[0];
    rewriter.replaceOp(op, out);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// layer_norm: sum(x) (reduction), mean, d = x - mean, sum(d^2) (reduction),
// rstd per row, d * rstd * gamma (+ beta).
//===----------------------------------------------------------------------===//

struct LayerNormToGenerics : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Value x = op.getInput();
    auto type = op.getInput().getType();
    Type elem = type.getElementType();
    Type f32 = rewriter.getF32Type();
    unsigned rank = type.getRank();
    unsigned last = rank - 1;
    int64_t n = type.getDimSize(last);
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    AffineMap row = dropDim(ctx, rank, last);
    AffineMap feature = projection(ctx, rank, {last});
    SmallVector<int64_t> rowShape = dropDim(type.getShape(), last);
    SmallVector<utils::IteratorType> parallel(rank,
                                              utils::IteratorType::parallel);

    Value sum = reduceSum(rewriter, loc, x, last,
                          [](OpBuilder &, Location, Value v) { return v; });
    Value meanInit = tensor::EmptyOp::create(rewriter, loc, rowShape, f32);
    SmallVector<AffineMap> rowMaps(2,
                                   rewriter.getMultiDimIdentityMap(rank - 1));
    SmallVector<utils::IteratorType> rowIters(rank - 1,
                                              utils::IteratorType::parallel);
    Value mean = buildGeneric(
        rewriter, loc, sum, meanInit, rowMaps, rowIters,
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          return {
              arith::DivFOp::create(b, l, args[0], f32Const(b, l, double(n)))};
        })[0];

    Value dInit = tensor::EmptyOp::create(rewriter, loc, type.getShape(), f32);
    Value d = buildGeneric(
        rewriter, loc, ValueRange{x, mean}, dInit, {id, row, id}, parallel,
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          return {arith::SubFOp::create(b, l, castFloat(b, l, args[0], f32),
                                        args[1])};
        })[0];

    Value sumSq = reduceSum(rewriter, loc, d, last,
                            [](OpBuilder &b, Location l, Value v) -> Value {
                              return arith::MulFOp::create(b, l, v, v);
                            });
    Value rstd =
        rowRstd(rewriter, loc, sumSq, n, op.getEps().convertToDouble());

    SmallVector<Value> ins = {d, rstd, op.getGamma()};
    SmallVector<AffineMap> maps = {id, row, feature};
    if (Value beta = op.getBeta()) {
      ins.push_back(beta);
      maps.push_back(feature);
    }
    maps.push_back(id);
    Value outInit =
        tensor::EmptyOp::create(rewriter, loc, type.getShape(), elem);
    bool hasBeta = op.getBeta() != nullptr;
    Value out = buildGeneric(
        rewriter, loc, ins, outInit, maps, parallel,
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          Value v = arith::MulFOp::create(b, l, args[0], args[1]);
          v = arith::MulFOp::create(b, l, v, castFloat(b, l, args[2], f32));
          if (hasBeta)
            v = arith::AddFOp::create(b, l, v, castFloat(b, l, args[3], f32));
          return {castFloat(b, l, v, elem)};
        })[0];
    rewriter.replaceOp(op, out);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// rope: inv_freq [R/2], angle table cos/sin [S, R/2], the rotation of the
// pairs (strided or half slices of x), inserted back into x.
//===----------------------------------------------------------------------===//

/// One pair (x1, x2) rotated by the angle whose cos and sin are given, in
/// f32: (x1 cos - x2 sin, x2 cos + x1 sin).
std::pair<Value, Value> rotatePair(OpBuilder &b, Location l, Value x1, Value x2,
                                   Value cos, Value sin) {
  Type f32 = b.getF32Type();
  Value a = castFloat(b, l, x1, f32), c = castFloat(b, l, x2, f32);
  Value o1 = arith::SubFOp::create(b, l, arith::MulFOp::create(b, l, a, cos),
                                   arith::MulFOp::create(b, l, c, sin));
  Value o2 = arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, c, cos),
                                   arith::MulFOp::create(b, l, a, sin));
  return {o1, o2};
}

struct RopeToGenerics : OpRewritePattern<RopeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RopeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Value x = op.getInput();
    auto type = op.getInput().getType();
    Type elem = type.getElementType();
    Type f32 = rewriter.getF32Type();
    Type i64 = rewriter.getI64Type();
    unsigned rank = type.getRank();
    int64_t seq = type.getDimSize(rank - 2);
    int64_t rot = op.getRotaryDimOrDefault();
    int64_t half = rot / 2;
    auto parallel = [](unsigned n) {
      return SmallVector<utils::IteratorType>(n, utils::IteratorType::parallel);
    };

    // inv_freq[i] = theta^(-2i/R).
    double theta = op.getTheta().convertToDouble();
    Value invInit = tensor::EmptyOp::create(rewriter, loc, {half}, f32);
    Value invFreq = buildGeneric(
        rewriter, loc, ValueRange{}, invInit,
        {rewriter.getMultiDimIdentityMap(1)}, parallel(1),
        [&](OpBuilder &b, Location l, ValueRange) -> SmallVector<Value> {
          Value i = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, 0));
          Value twoI = arith::SIToFPOp::create(
              b, l, f32,
              arith::MulIOp::create(
                  b, l, i,
                  arith::ConstantOp::create(b, l, b.getI64IntegerAttr(2))));
          Value expo =
              arith::DivFOp::create(b, l, twoI, f32Const(b, l, double(-rot)));
          return {math::PowFOp::create(b, l, f32Const(b, l, theta), expo)};
        })[0];

    // cos/sin of (offset + s) * inv_freq[i], for the table [S, R/2].
    int64_t offset = op.getOffset();
    SmallVector<Value> tableInits = {
        tensor::EmptyOp::create(rewriter, loc, {seq, half}, f32),
        tensor::EmptyOp::create(rewriter, loc, {seq, half}, f32)};
    SmallVector<Value> table = buildGeneric(
        rewriter, loc, invFreq, tableInits,
        {projection(ctx, 2, {1}), rewriter.getMultiDimIdentityMap(2),
         rewriter.getMultiDimIdentityMap(2)},
        parallel(2),
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          Value s = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, 0));
          Value pos = arith::AddIOp::create(
              b, l, s,
              arith::ConstantOp::create(b, l, b.getI64IntegerAttr(offset)));
          Value angle = arith::MulFOp::create(
              b, l, arith::SIToFPOp::create(b, l, f32, pos), args[0]);
          return {math::CosOp::create(b, l, angle),
                  math::SinOp::create(b, l, angle)};
        });

    // Every feature rotated: one op over the result, seen as pairs
    // ([..., S, R/2, 2] interleaved, [..., S, 2, R/2] halves), reading both
    // members of an element's pair from the same view of x: an op over the
    // result's elements, which row tiling can cut (npu-tile-kernels).
    bool interleaved = op.getInterleaved();
    if (rot == type.getShape().back()) {
      SmallVector<int64_t> pairShape(type.getShape().drop_back());
      if (interleaved)
        pairShape.append({half, 2});
      else
        pairShape.append({2, half});
      SmallVector<ReassociationIndices> reassoc;
      for (unsigned d = 0; d + 1 < rank; ++d)
        reassoc.push_back({d});
      reassoc.push_back({rank - 1, rank});
      auto pairType = RankedTensorType::get(pairShape, elem);
      Value xp =
          tensor::ExpandShapeOp::create(rewriter, loc, pairType, x, reassoc);
      // Loops (..., s, p, k) or (..., s, k, p): the pair member k of pair p.
      unsigned n = rank + 1, pDim = interleaved ? rank - 1 : rank,
               kDim = interleaved ? rank : rank - 1;
      auto member = [&](int64_t k) {
        SmallVector<AffineExpr> e;
        for (unsigned d = 0; d < n; ++d)
          e.push_back(d == kDim ? getAffineConstantExpr(k, ctx)
                                : getAffineDimExpr(d, ctx));
        return AffineMap::get(n, 0, e, ctx);
      };
      AffineMap tableMap = projection(ctx, n, {rank - 2, pDim});
      Value init = tensor::EmptyOp::create(rewriter, loc, pairShape, elem);
      Value rotated = buildGeneric(
          rewriter, loc, ValueRange{xp, xp, table[0], table[1]}, init,
          {member(0), member(1), tableMap, tableMap,
           rewriter.getMultiDimIdentityMap(n)},
          parallel(n),
          [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
            auto [o1, o2] =
                rotatePair(b, l, args[0], args[1], args[2], args[3]);
            Value first =
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                      linalg::IndexOp::create(b, l, kDim),
                                      arith::ConstantIndexOp::create(b, l, 0));
            return {castFloat(
                b, l, arith::SelectOp::create(b, l, first, o1, o2), elem)};
          })[0];
      rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, type, rotated,
                                                           reassoc);
      return success();
    }

    // The two members of each pair, as slices of x: [..., S, R/2] each.
    auto sliceParams = [&](int64_t first, int64_t stride) {
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes, strides(rank, rewriter.getIndexAttr(1));
      for (int64_t s : type.getShape())
        sizes.push_back(rewriter.getIndexAttr(s));
      offsets.back() = rewriter.getIndexAttr(first);
      sizes.back() = rewriter.getIndexAttr(half);
      strides.back() = rewriter.getIndexAttr(stride);
      return std::make_tuple(offsets, sizes, strides);
    };
    auto [off1, sizes1, strides1] =
        interleaved ? sliceParams(0, 2) : sliceParams(0, 1);
    auto [off2, sizes2, strides2] =
        interleaved ? sliceParams(1, 2) : sliceParams(half, 1);
    Value x1 = tensor::ExtractSliceOp::create(rewriter, loc, x, off1, sizes1,
                                              strides1);
    Value x2 = tensor::ExtractSliceOp::create(rewriter, loc, x, off2, sizes2,
                                              strides2);

    // out1 = x1 cos - x2 sin, out2 = x2 cos + x1 sin.
    auto halfType = cast<RankedTensorType>(x1.getType());
    SmallVector<Value> outInits = {
        tensor::EmptyOp::create(rewriter, loc, halfType.getShape(), elem),
        tensor::EmptyOp::create(rewriter, loc, halfType.getShape(), elem)};
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    AffineMap tableMap = projection(ctx, rank, {rank - 2, rank - 1});
    SmallVector<Value> outs = buildGeneric(
        rewriter, loc, ValueRange{x1, x2, table[0], table[1]}, outInits,
        {id, id, tableMap, tableMap, id, id}, parallel(rank),
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          auto [o1, o2] = rotatePair(b, l, args[0], args[1], args[2], args[3]);
          return {castFloat(b, l, o1, elem), castFloat(b, l, o2, elem)};
        });

    // Features past R pass through: insert the rotated pairs into x.
    Value result = tensor::InsertSliceOp::create(rewriter, loc, outs[0], x,
                                                 off1, sizes1, strides1);
    result = tensor::InsertSliceOp::create(rewriter, loc, outs[1], result, off2,
                                           sizes2, strides2);
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void mlir::npu::populateNormToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<SoftmaxToGenerics, RMSNormToGenerics, LayerNormToGenerics,
               RopeToGenerics>(patterns.getContext());
}
