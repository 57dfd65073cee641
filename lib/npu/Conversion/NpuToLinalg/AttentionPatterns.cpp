//===- AttentionPatterns.cpp - Attention ops to linalg -------------------===//

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
/// attention -> linalg on tensors, all in f32 (a plain, unfused softmax):
///   scores[b,h,i,j] = sum_d q[b,h,i,d] * k[b,h floordiv G,j,d]
///   logits          = scores * scale, or -inf where masked
///   rowMax[b,h,i]   = max_j logits;  e = exp(logits - rowMax)
///   rowSum[b,h,i]   = sum_j e
///   pv[b,h,i,c]     = sum_j e[b,h,i,j] * V[b,h floordiv G,j,c]
///   result          = pv / rowSum, rounded to the result element type
/// In the latent form V is `tensor.extract_slice key[..., 0:Dv]`.
struct AttentionToGeneric : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    AttentionOp::Dims dims = op.getDims();
    auto resType = op.getResult().getType();
    Type f32 = rewriter.getF32Type();
    int64_t group = dims.qHeads / dims.kvHeads;
    using utils::IteratorType;
    const IteratorType par = IteratorType::parallel,
                       red = IteratorType::reduction;

    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    auto map = [&](unsigned numLoops, ArrayRef<AffineExpr> exprs) {
      return AffineMap::get(numLoops, 0, exprs, ctx);
    };
    // Query head h reads key/value head h floordiv G.
    AffineExpr kvHead = d(1).floorDiv(group);

    // V: the value operand, or the latent slice key[..., 0:Dv].
    Value value = op.getValue();
    if (!value) {
      SmallVector<OpFoldResult> offsets(4, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> strides(4, rewriter.getIndexAttr(1));
      SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(dims.batch),
                                         rewriter.getIndexAttr(dims.kvHeads),
                                         rewriter.getIndexAttr(dims.kvLen),
                                         rewriter.getIndexAttr(dims.vDim)};
      value = tensor::ExtractSliceOp::create(rewriter, loc, op.getKey(),
                                             offsets, sizes, strides);
    }

    SmallVector<int64_t> scoreShape = {dims.batch, dims.qHeads, dims.qLen,
                                       dims.kvLen};
    SmallVector<int64_t> rowShape = {dims.batch, dims.qHeads, dims.qLen};
    SmallVector<int64_t> outShape = {dims.batch, dims.qHeads, dims.qLen,
                                     dims.vDim};
    // Maps of 4 loops (b, h, i, j) onto a score and onto its row.
    AffineMap scoreId = rewriter.getMultiDimIdentityMap(4);
    AffineMap scoreToRow = map(4, {d(0), d(1), d(2)});
    const double negInf = -std::numeric_limits<double>::infinity();

    // 1. scores = Q K^T. Loops (b, h, i, j, d).
    Value scores;
    {
      Value init = createFilled(rewriter, loc, scoreShape, f32, 0.0);
      SmallVector<AffineMap> maps = {map(5, {d(0), d(1), d(2), d(4)}),
                                     map(5, {d(0), kvHead, d(3), d(4)}),
                                     map(5, {d(0), d(1), d(2), d(3)})};
      scores =
          linalg::GenericOp::create(
              rewriter, loc, TypeRange{init.getType()},
              ValueRange{op.getQuery(), op.getKey()}, ValueRange{init}, maps,
              {par, par, par, par, red},
              [&](OpBuilder &b, Location l, ValueRange args) {
                Value x = castFloat(b, l, args[0], f32);
                Value y = castFloat(b, l, args[1], f32);
                Value p = arith::MulFOp::create(b, l, x, y);
                linalg::YieldOp::create(
                    b, l, arith::AddFOp::create(b, l, args[2], p).getResult());
              })
              .getResult(0);
    }

    // 2. logits = scores * scale, -inf where masked. Query i is at position
    // p_i = i + (Skv - Sq); it sees key j iff j <= p_i and j >= the first
    // key of its window or chunk.
    Value logits;
    {
      Value init = tensor::EmptyOp::create(rewriter, loc, scoreShape, f32);
      bool causal = op.getCausal();
      int64_t window = op.getWindowSize(), chunk = op.getChunkSize();
      double scale = op.getScaleValue();
      FloatAttr softcap = op.getSoftcapAttr();
      logits =
          linalg::GenericOp::create(
              rewriter, loc, TypeRange{init.getType()}, ValueRange{scores},
              ValueRange{init}, {scoreId, scoreId}, {par, par, par, par},
              [&](OpBuilder &b, Location l, ValueRange args) {
                Value s = arith::MulFOp::create(
                    b, l, args[0],
                    arith::ConstantOp::create(b, l, b.getF32FloatAttr(scale)));
                if (softcap)
                  s = buildSoftcap(b, l, s, softcap.getValueAsDouble());
                if (causal) {
                  auto idx = [&](int64_t v) -> Value {
                    return arith::ConstantIndexOp::create(b, l, v);
                  };
                  Value i = linalg::IndexOp::create(b, l, 2);
                  Value j = linalg::IndexOp::create(b, l, 3);
                  Value pos = arith::AddIOp::create(
                      b, l, i, idx(dims.kvLen - dims.qLen));
                  Value visible = arith::CmpIOp::create(
                      b, l, arith::CmpIPredicate::sle, j, pos);
                  if (Value lo =
                          buildFirstVisibleKey(b, l, pos, window, chunk)) {
                    Value inRange = arith::CmpIOp::create(
                        b, l, arith::CmpIPredicate::sge, j, lo);
                    visible = arith::AndIOp::create(b, l, visible, inRange);
                  }
                  Value ninf = arith::ConstantOp::create(
                      b, l, b.getF32FloatAttr(static_cast<float>(negInf)));
                  s = arith::SelectOp::create(b, l, visible, s, ninf);
                }
                linalg::YieldOp::create(b, l, s);
              })
              .getResult(0);
    }

    // 3. rowMax = max_j logits (every row has an unmasked key).
    Value rowMax;
    {
      Value init = createFilled(rewriter, loc, rowShape, f32, negInf);
      rowMax =
          linalg::GenericOp::create(
              rewriter, loc, TypeRange{init.getType()}, ValueRange{logits},
              ValueRange{init}, {scoreId, scoreToRow}, {par, par, par, red},
              [&](OpBuilder &b, Location l, ValueRange args) {
                linalg::YieldOp::create(
                    b, l,
                    arith::MaximumFOp::create(b, l, args[0], args[1])
                        .getResult());
              })
              .getResult(0);
    }

    // 4. e = exp(logits - rowMax); masked scores become exp(-inf) = 0.
    Value expd;
    {
      Value init = tensor::EmptyOp::create(rewriter, loc, scoreShape, f32);
      expd = linalg::GenericOp::create(
                 rewriter, loc, TypeRange{init.getType()},
                 ValueRange{logits, rowMax}, ValueRange{init},
                 {scoreId, scoreToRow, scoreId}, {par, par, par, par},
                 [&](OpBuilder &b, Location l, ValueRange args) {
                   Value x = arith::SubFOp::create(b, l, args[0], args[1]);
                   linalg::YieldOp::create(
                       b, l, math::ExpOp::create(b, l, x).getResult());
                 })
                 .getResult(0);
    }

    // 5. rowSum = sum_j e.
    Value rowSum;
    {
      Value init = createFilled(rewriter, loc, rowShape, f32, 0.0);
      rowSum =
          linalg::GenericOp::create(
              rewriter, loc, TypeRange{init.getType()}, ValueRange{expd},
              ValueRange{init}, {scoreId, scoreToRow}, {par, par, par, red},
              [&](OpBuilder &b, Location l, ValueRange args) {
                linalg::YieldOp::create(
                    b, l,
                    arith::AddFOp::create(b, l, args[1], args[0]).getResult());
              })
              .getResult(0);
    }

    // 6. pv = e V. Loops (b, h, i, c, j).
    Value pv;
    {
      Value init = createFilled(rewriter, loc, outShape, f32, 0.0);
      SmallVector<AffineMap> maps = {map(5, {d(0), d(1), d(2), d(4)}),
                                     map(5, {d(0), kvHead, d(4), d(3)}),
                                     map(5, {d(0), d(1), d(2), d(3)})};
      pv =
          linalg::GenericOp::create(
              rewriter, loc, TypeRange{init.getType()}, ValueRange{expd, value},
              ValueRange{init}, maps, {par, par, par, par, red},
              [&](OpBuilder &b, Location l, ValueRange args) {
                Value y = castFloat(b, l, args[1], f32);
                Value p = arith::MulFOp::create(b, l, args[0], y);
                linalg::YieldOp::create(
                    b, l, arith::AddFOp::create(b, l, args[2], p).getResult());
              })
              .getResult(0);
    }

    // 7. result = pv / rowSum, rounded to the result element type; with
    // sinks the sum gains exp(sinks[h] - rowMax).
    Type resElem = resType.getElementType();
    Value init = tensor::EmptyOp::create(rewriter, loc, outShape, resElem);
    SmallVector<Value> ins = {pv, rowSum};
    SmallVector<AffineMap> maps = {scoreId, scoreToRow};
    if (Value sinks = op.getSinks()) {
      ins.append({rowMax, sinks});
      maps.append({scoreToRow, map(4, {d(1)})});
    }
    maps.push_back(scoreId);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{resType}, ins, ValueRange{init}, maps,
            {par, par, par, par},
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value sum = args[1];
              if (args.size() > 3)
                sum =
                    addSink(b, l, sum, args[2], castFloat(b, l, args[3], f32));
              Value x = arith::DivFOp::create(b, l, args[0], sum);
              linalg::YieldOp::create(b, l, castFloat(b, l, x, resElem));
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

Value mlir::npu::addSink(OpBuilder &b, Location loc, Value sum, Value m,
                         Value sink) {
  Value e = math::ExpOp::create(b, loc, arith::SubFOp::create(b, loc, sink, m));
  return arith::AddFOp::create(b, loc, sum, e);
}

Value mlir::npu::buildSoftcap(OpBuilder &b, Location loc, Value s, double c) {
  auto f32c = [&](double v) {
    return arith::ConstantOp::create(b, loc,
                                     b.getF32FloatAttr(static_cast<float>(v)));
  };
  Value t =
      math::TanhOp::create(b, loc, arith::DivFOp::create(b, loc, s, f32c(c)));
  return arith::MulFOp::create(b, loc, t, f32c(c));
}

Value mlir::npu::buildFirstVisibleKey(OpBuilder &b, Location loc, Value pos,
                                      int64_t window, int64_t chunk) {
  if (chunk > 0) {
    Value c = arith::ConstantIndexOp::create(b, loc, chunk);
    return arith::MulIOp::create(b, loc, arith::DivUIOp::create(b, loc, pos, c),
                                 c);
  }
  if (window > 0)
    return arith::SubIOp::create(
        b, loc, pos, arith::ConstantIndexOp::create(b, loc, window - 1));
  return {};
}

Value mlir::npu::buildFirstPositionPast(OpBuilder &b, Location loc, Value key,
                                        int64_t window, int64_t chunk) {
  auto idx = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  if (chunk > 0) {
    Value next = arith::AddIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, key, idx(chunk)), idx(1));
    return arith::MulIOp::create(b, loc, next, idx(chunk));
  }
  if (window > 0)
    return arith::AddIOp::create(b, loc, key, idx(window));
  return {};
}

void mlir::npu::populateAttentionToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<AttentionToGeneric>(patterns.getContext());
}
