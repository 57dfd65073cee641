//===- MoEPatterns.cpp - MoE ops to linalg --------------------------------===//
//
// Reference lowerings: clarity over speed. All arithmetic is in f32.
//
// * moe_router: whole-tensor linalg.generic stages. The top-k is one
//   reduction over the experts that keeps each token's k best in order and
//   inserts each expert into them (O(k E) per token), with the op's tie rule
//   as a total order, so that the reduction's order does not matter; the
//   group selection ranks the few group scores (O(n_group^2)).
// * moe_experts: per (token, slot) SwiGLU with the expert's weights read by
//   tensor.extract at the (clamped) routed index.
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
using utils::IteratorType;

/// An affine map of `numDims` loops selecting the loop dims `dims`.
AffineMap dimsMap(MLIRContext *ctx, unsigned numDims, ArrayRef<unsigned> dims) {
  SmallVector<AffineExpr> exprs;
  for (unsigned d : dims)
    exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(numDims, 0, exprs, ctx);
}

/// bias[expert, col] of an expert bias ([E, F] or [E, D]) in f32.
Value expertBias(OpBuilder &b, Location loc, Value bias, Value expert,
                 Value col) {
  return castFloat(
      b, loc, tensor::ExtractOp::create(b, loc, bias, ValueRange{expert, col}),
      b.getF32Type());
}

Value f32Const(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
}

/// A linalg.generic with the given inputs/outputs (value, map) and body.
ValueRange generic(OpBuilder &b, Location loc, ArrayRef<Value> inputs,
                   ArrayRef<Value> outputs, ArrayRef<AffineMap> maps,
                   ArrayRef<IteratorType> iters,
                   function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<Type> types;
  for (Value v : outputs)
    types.push_back(v.getType());
  return linalg::GenericOp::create(b, loc, types, inputs, outputs, maps, iters,
                                   body)
      .getResults();
}

/// sigmoid(x) = 1 / (1 + exp(-x)), in f32.
Value sigmoid(OpBuilder &b, Location loc, Value x) {
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  Value one = f32Const(b, loc, 1.0);
  return arith::DivFOp::create(b, loc, one,
                               arith::AddFOp::create(b, loc, one, e));
}

/// Ranks of the values of each row of `values` [T, N] (f32): the number of
/// entries of the row that are larger, or equal with a lower index. Result
/// [T, N] i64; the ranks of a row are a permutation of [0, N) (without NaN).
Value buildRowRanks(OpBuilder &b, Location loc, Value values) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(values.getType());
  int64_t t = type.getDimSize(0), n = type.getDimSize(1);
  Value init = createFilled(b, loc, {t, n}, b.getI64Type(), 0);
  // Loops (t, i, j): rank[t, i] += (v[t, j] before v[t, i]).
  return generic(
      b, loc, {values, values}, {init},
      {dimsMap(ctx, 3, {0, 2}), dimsMap(ctx, 3, {0, 1}),
       dimsMap(ctx, 3, {0, 1})},
      {kPar, kPar, kRed}, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value i = linalg::IndexOp::create(nb, l, 1);
        Value j = linalg::IndexOp::create(nb, l, 2);
        Value gt = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT,
                                         args[0], args[1]);
        Value eq = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                         args[0], args[1]);
        Value lower =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, j, i);
        Value before = arith::OrIOp::create(
            nb, l, gt, arith::AndIOp::create(nb, l, eq, lower));
        Value inc = arith::ExtUIOp::create(nb, l, nb.getI64Type(), before);
        linalg::YieldOp::create(
            nb, l, ValueRange{arith::AddIOp::create(nb, l, args[2], inc)});
      })[0];
}

/// The k best entries of each row of `sel` [T, E] (f32), in order: slot 0
/// holds the largest. Per slot, a [T] tensor of the entry's column (i64)
/// and one of the entry of `carried` [T, E] in that column.
struct RowTopK {
  SmallVector<Value> experts, scores;
};

/// One reduction over the columns of each row that keeps the k best entries
/// sorted and inserts each column into them (k compares and shifts per
/// column: O(k E) per row). The order is total: a larger value first, ties
/// by the lower column, NaN as -inf; an empty slot (-inf, column E) loses to
/// every column, so the k slots end up holding k distinct columns whatever
/// order the reduction visits them in. The slots' values are the
/// reduction's state only.
RowTopK buildRowTopK(OpBuilder &b, Location loc, Value sel, Value carried,
                     int64_t k) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(sel.getType());
  int64_t t = type.getDimSize(0), e = type.getDimSize(1);
  Type f32 = b.getF32Type(), i64 = b.getI64Type();
  const double negInf = -std::numeric_limits<double>::infinity();
  Value valueInit = createFilled(b, loc, {t}, f32, negInf);
  Value expertInit = createFilled(b, loc, {t}, i64, e);
  Value scoreInit = createFilled(b, loc, {t}, f32, 0.0);
  SmallVector<Value> inits;
  inits.append(k, valueInit);
  inits.append(k, expertInit);
  inits.append(k, scoreInit);
  AffineMap id2 = b.getMultiDimIdentityMap(2);
  SmallVector<AffineMap> maps = {id2, id2};
  maps.append(3 * k, dimsMap(ctx, 2, {0}));
  ValueRange out = generic(
      b, loc, {sel, carried}, inits, maps, {kPar, kRed},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value x = args[0], score = args[1];
        ValueRange values = args.slice(2, k), experts = args.slice(2 + k, k),
                   scores = args.slice(2 + 2 * k, k);
        Value isNan =
            arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNO, x, x);
        x = arith::SelectOp::create(nb, l, isNan, f32Const(nb, l, negInf), x);
        Value col = arith::IndexCastOp::create(
            nb, l, i64, linalg::IndexOp::create(nb, l, 1));
        // beats[p]: the column goes before slot p's entry.
        SmallVector<Value> beats;
        for (int64_t p = 0; p < k; ++p) {
          Value gt = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT, x,
                                           values[p]);
          Value eq = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, x,
                                           values[p]);
          Value lower = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult,
                                              col, experts[p]);
          beats.push_back(arith::OrIOp::create(
              nb, l, gt, arith::AndIOp::create(nb, l, eq, lower)));
        }
        // Slot p takes the column if it beats slot p but not slot p - 1,
        // slot p - 1's entry if it beats both, and keeps its own otherwise.
        SmallVector<Value> yields(3 * k);
        for (int64_t p = 0; p < k; ++p) {
          std::array<Value, 3> here = {values[p], experts[p], scores[p]};
          std::array<Value, 3> incoming = {x, col, score};
          for (unsigned f = 0; f < 3; ++f) {
            Value in = incoming[f];
            if (p > 0) {
              ValueRange prev = f == 0 ? values : f == 1 ? experts : scores;
              in =
                  arith::SelectOp::create(nb, l, beats[p - 1], prev[p - 1], in);
            }
            yields[f * k + p] =
                arith::SelectOp::create(nb, l, beats[p], in, here[f]);
          }
        }
        linalg::YieldOp::create(nb, l, yields);
      });
  RowTopK top;
  top.experts.assign(out.begin() + k, out.begin() + 2 * k);
  top.scores.assign(out.begin() + 2 * k, out.end());
  return top;
}

struct MoERouterToLinalg : OpRewritePattern<MoERouterOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MoERouterOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    OpBuilder &b = rewriter;
    Type f32 = b.getF32Type();
    int64_t t = op.getNumTokens(), e = op.getNumExperts();
    auto k = static_cast<int64_t>(op.getTopK());
    const double negInf = -std::numeric_limits<double>::infinity();
    AffineMap id2 = b.getMultiDimIdentityMap(2);
    AffineMap rowMap = dimsMap(ctx, 2, {0});
    Value logits = castTensor(b, loc, op.getLogits(), f32);

    // 1. Scores.
    Value scores;
    Value empty = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{t, e}, f32);
    if (op.getScoring() == ScoringFunc::Sigmoid) {
      scores =
          generic(b, loc, {logits}, {empty}, {id2, id2}, {kPar, kPar},
                  [&](OpBuilder &nb, Location l, ValueRange args) {
                    linalg::YieldOp::create(nb, l, sigmoid(nb, l, args[0]));
                  })[0];
    } else {
      // softmax: exp(x - max) / sum(exp(x - max)) over the row.
      Value maxInit = createFilled(b, loc, {t}, f32, negInf);
      Value rowMax = generic(
          b, loc, {logits}, {maxInit}, {id2, rowMap}, {kPar, kRed},
          [&](OpBuilder &nb, Location l, ValueRange args) {
            linalg::YieldOp::create(
                nb, l,
                ValueRange{arith::MaximumFOp::create(nb, l, args[0], args[1])});
          })[0];
      Value exps = generic(
          b, loc, {logits, rowMax}, {empty}, {id2, rowMap, id2}, {kPar, kPar},
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value d = arith::SubFOp::create(nb, l, args[0], args[1]);
            linalg::YieldOp::create(nb, l,
                                    ValueRange{math::ExpOp::create(nb, l, d)});
          })[0];
      Value sumInit = createFilled(b, loc, {t}, f32, 0.0);
      Value rowSum = generic(
          b, loc, {exps}, {sumInit}, {id2, rowMap}, {kPar, kRed},
          [&](OpBuilder &nb, Location l, ValueRange args) {
            linalg::YieldOp::create(
                nb, l,
                ValueRange{arith::AddFOp::create(nb, l, args[0], args[1])});
          })[0];
      scores = generic(
          b, loc, {exps, rowSum}, {empty}, {id2, rowMap, id2}, {kPar, kPar},
          [&](OpBuilder &nb, Location l, ValueRange args) {
            linalg::YieldOp::create(
                nb, l,
                ValueRange{arith::DivFOp::create(nb, l, args[0], args[1])});
          })[0];
    }

    // 2. Selection scores: + bias (selection only).
    Value sel = scores;
    if (Value bias = op.getBias()) {
      Value biasF = castTensor(b, loc, bias, f32);
      sel = generic(
          b, loc, {scores, biasF}, {empty}, {id2, dimsMap(ctx, 2, {1}), id2},
          {kPar, kPar}, [&](OpBuilder &nb, Location l, ValueRange args) {
            linalg::YieldOp::create(
                nb, l,
                ValueRange{arith::AddFOp::create(nb, l, args[0], args[1])});
          })[0];
    }

    // 3. Group-limited selection: experts outside the topk_group best groups
    //    get -inf.
    if (op.hasGroups()) {
      auto n = static_cast<int64_t>(*op.getNGroup());
      auto g = static_cast<int64_t>(*op.getTopkGroup());
      int64_t gs = e / n;
      auto type3 = RankedTensorType::get({t, n, gs}, f32);
      SmallVector<ReassociationIndices> reassoc = {{0}, {1, 2}};
      Value sel3 = tensor::ExpandShapeOp::create(b, loc, type3, sel, reassoc);
      AffineMap id3 = b.getMultiDimIdentityMap(3);
      AffineMap grpMap = dimsMap(ctx, 3, {0, 1});
      // Top-2 of each group (m1 >= m2), as a reduction with two outputs;
      // the group's score is m1 (group_top 1) or m1 + m2.
      Value top = createFilled(b, loc, {t, n}, f32, negInf);
      ValueRange tops = generic(
          b, loc, {sel3}, {top, top}, {id3, grpMap, grpMap}, {kPar, kPar, kRed},
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value m1 = arith::MaximumFOp::create(nb, l, args[1], args[0]);
            Value lo = arith::MinimumFOp::create(nb, l, args[1], args[0]);
            Value m2 = arith::MaximumFOp::create(nb, l, args[2], lo);
            linalg::YieldOp::create(nb, l, ValueRange{m1, m2});
          });
      Value groupScore = tops[0];
      if (gs >= 2 && op.getGroupTop() == 2) {
        Value gEmpty =
            tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{t, n}, f32);
        groupScore = generic(
            b, loc, {tops[0], tops[1]}, {gEmpty}, {id2, id2, id2}, {kPar, kPar},
            [&](OpBuilder &nb, Location l, ValueRange args) {
              linalg::YieldOp::create(
                  nb, l,
                  ValueRange{arith::AddFOp::create(nb, l, args[0], args[1])});
            })[0];
      }
      Value groupRank = buildRowRanks(b, loc, groupScore);
      Value masked3 = generic(
          b, loc, {sel3, groupRank},
          {tensor::EmptyOp::create(b, loc, type3.getShape(), f32)},
          {id3, grpMap, id3}, {kPar, kPar, kPar},
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value kept = arith::CmpIOp::create(
                nb, l, arith::CmpIPredicate::slt, args[1],
                arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(g)));
            linalg::YieldOp::create(
                nb, l,
                ValueRange{arith::SelectOp::create(nb, l, kept, args[0],
                                                   f32Const(nb, l, negInf))});
          })[0];
      sel = tensor::CollapseShapeOp::create(b, loc, masked3, reassoc);
    }

    // 4. Top-k: one pass over the experts keeps each row's k best (sel,
    //    expert, score) in order and inserts each expert into them: k
    //    compares and shifts per expert (buildRowTopK).
    RowTopK top = buildRowTopK(b, loc, sel, scores, k);
    // 5. indices[t, j] and weights[t, j] from slot j; with norm_topk the
    //    weights are divided by the sum of the k scores (in slot order),
    //    then multiplied by the scale.
    Type idxElem = op.getIndices().getType().getElementType();
    double scale = op.getScale().convertToDouble();
    bool norm = op.getNormTopk();
    SmallVector<Value> slots(top.experts);
    llvm::append_range(slots, top.scores);
    SmallVector<AffineMap> maps(slots.size(), rowMap);
    maps.append({id2, id2});
    ValueRange chosen = generic(
        b, loc, slots,
        {tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{t, k}, idxElem),
         tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{t, k}, f32)},
        maps, {kPar, kPar}, [&](OpBuilder &nb, Location l, ValueRange args) {
          Value j = linalg::IndexOp::create(nb, l, 1);
          ValueRange experts = args.take_front(k);
          ValueRange chosenScores = args.slice(k, k);
          // Slot j's expert and score: a select over the k slots.
          Value ex = experts[0], w = chosenScores[0];
          for (int64_t slot = 1; slot < k; ++slot) {
            Value isSlot = arith::CmpIOp::create(
                nb, l, arith::CmpIPredicate::eq, j,
                arith::ConstantIndexOp::create(nb, l, slot));
            ex = arith::SelectOp::create(nb, l, isSlot, experts[slot], ex);
            w = arith::SelectOp::create(nb, l, isSlot, chosenScores[slot], w);
          }
          if (idxElem != ex.getType())
            ex = arith::TruncIOp::create(nb, l, idxElem, ex);
          if (norm) {
            Value sum = chosenScores[0];
            for (Value v : chosenScores.drop_front())
              sum = arith::AddFOp::create(nb, l, sum, v);
            w = arith::DivFOp::create(nb, l, w, sum);
          }
          if (scale != 1.0)
            w = arith::MulFOp::create(nb, l, w, f32Const(nb, l, scale));
          linalg::YieldOp::create(nb, l, ValueRange{ex, w});
        });
    Value indices = chosen[0], weights = chosen[1];
    rewriter.replaceOp(op, {indices, weights});
    return success();
  }
};

struct MoEExpertsToLinalg : OpRewritePattern<MoEExpertsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MoEExpertsOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    OpBuilder &b = rewriter;
    Type f32 = b.getF32Type();
    int64_t t = op.getNumTokens(), d = op.getModelDim(), k = op.getTopK();
    int64_t e = op.getNumExperts(), f = op.getFfnDim();
    Value x = castTensor(b, loc, op.getX(), f32);
    Value indices = op.getIndices();
    Value wGate = op.getWGate(), wUp = op.getWUp(), wDown = op.getWDown();

    // Routed gate and up projections. Loops (t, j, f, d).
    Value hInit = createFilled(b, loc, {t, k, f}, f32, 0.0);
    ValueRange gateUp = generic(
        b, loc, {x, indices}, {hInit, hInit},
        {dimsMap(ctx, 4, {0, 3}), dimsMap(ctx, 4, {0, 1}),
         dimsMap(ctx, 4, {0, 1, 2}), dimsMap(ctx, 4, {0, 1, 2})},
        {kPar, kPar, kPar, kRed},
        [&](OpBuilder &nb, Location l, ValueRange args) {
          Value ex = clampedExpert(nb, l, args[1], e);
          SmallVector<Value> at = {ex, linalg::IndexOp::create(nb, l, 2),
                                   linalg::IndexOp::create(nb, l, 3)};
          Value wg = castFloat(
              nb, l, tensor::ExtractOp::create(nb, l, wGate, at), f32);
          Value wu =
              castFloat(nb, l, tensor::ExtractOp::create(nb, l, wUp, at), f32);
          Value g = arith::AddFOp::create(
              nb, l, args[2], arith::MulFOp::create(nb, l, args[0], wg));
          Value u = arith::AddFOp::create(
              nb, l, args[3], arith::MulFOp::create(nb, l, args[0], wu));
          linalg::YieldOp::create(nb, l, ValueRange{g, u});
        });
    AffineMap id3 = b.getMultiDimIdentityMap(3);
    FloatAttr limit = op.getSwigluLimitAttr();
    Value bGate = op.getBGate(), bUp = op.getBUp(), bDown = op.getBDown();
    // The slot's expert's bias at column `dim` of the loops.
    auto biasAt = [&](OpBuilder &nb, Location l, Value bias, Value idx,
                      unsigned dim) {
      return expertBias(nb, l, bias, clampedExpert(nb, l, idx, e),
                        linalg::IndexOp::create(nb, l, dim));
    };
    // With biases, the slot's expert is read to find them.
    SmallVector<Value> actIns = {gateUp[0], gateUp[1]};
    SmallVector<AffineMap> actMaps = {id3, id3};
    if (bGate) {
      actIns.push_back(indices);
      actMaps.push_back(dimsMap(ctx, 3, {0, 1}));
    }
    actMaps.push_back(id3);
    Value h = generic(
        b, loc, actIns,
        {tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{t, k, f}, f32)},
        actMaps, {kPar, kPar, kPar},
        [&](OpBuilder &nb, Location l, ValueRange args) {
          Value g = args[0], u = args[1];
          if (bGate) {
            g = arith::AddFOp::create(nb, l, g,
                                      biasAt(nb, l, bGate, args[2], 2));
            u = arith::AddFOp::create(nb, l, u, biasAt(nb, l, bUp, args[2], 2));
          }
          linalg::YieldOp::create(nb, l, expertGate(nb, l, g, u, limit));
        })[0];
    // Routed down projection per assignment. Loops (t, j, dd, f).
    Value oInit = createFilled(b, loc, {t, k, d}, f32, 0.0);
    Value o = generic(
        b, loc, {indices, h}, {oInit},
        {dimsMap(ctx, 4, {0, 1}), dimsMap(ctx, 4, {0, 1, 3}),
         dimsMap(ctx, 4, {0, 1, 2})},
        {kPar, kPar, kPar, kRed},
        [&](OpBuilder &nb, Location l, ValueRange args) {
          Value ex = clampedExpert(nb, l, args[0], e);
          SmallVector<Value> at = {ex, linalg::IndexOp::create(nb, l, 2),
                                   linalg::IndexOp::create(nb, l, 3)};
          Value wd = castFloat(
              nb, l, tensor::ExtractOp::create(nb, l, wDown, at), f32);
          linalg::YieldOp::create(
              nb, l,
              ValueRange{arith::AddFOp::create(
                  nb, l, args[2], arith::MulFOp::create(nb, l, wd, args[1]))});
        })[0];

    // The accumulator starts at the shared experts' output (or 0).
    Value acc;
    if (op.hasShared()) {
      Value sGate = castTensor(b, loc, op.getSharedGate(), f32);
      Value sUp = castTensor(b, loc, op.getSharedUp(), f32);
      Value sDown = castTensor(b, loc, op.getSharedDown(), f32);
      int64_t fs = cast<RankedTensorType>(sGate.getType()).getDimSize(0);
      // Loops (t, f, d).
      Value sInit = createFilled(b, loc, {t, fs}, f32, 0.0);
      ValueRange sGateUp = generic(
          b, loc, {x, sGate, sUp}, {sInit, sInit},
          {dimsMap(ctx, 3, {0, 2}), dimsMap(ctx, 3, {1, 2}),
           dimsMap(ctx, 3, {1, 2}), dimsMap(ctx, 3, {0, 1}),
           dimsMap(ctx, 3, {0, 1})},
          {kPar, kPar, kRed}, [&](OpBuilder &nb, Location l, ValueRange args) {
            Value g = arith::AddFOp::create(
                nb, l, args[3], arith::MulFOp::create(nb, l, args[0], args[1]));
            Value u = arith::AddFOp::create(
                nb, l, args[4], arith::MulFOp::create(nb, l, args[0], args[2]));
            linalg::YieldOp::create(nb, l, ValueRange{g, u});
          });
      AffineMap id2 = b.getMultiDimIdentityMap(2);
      Value sh = generic(
          b, loc, {sGateUp[0], sGateUp[1]},
          {tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{t, fs}, f32)},
          {id2, id2, id2}, {kPar, kPar},
          [&](OpBuilder &nb, Location l, ValueRange args) {
            linalg::YieldOp::create(nb, l, siluGate(nb, l, args[0], args[1]));
          })[0];
      // Loops (t, dd, f).
      acc = generic(
          b, loc, {sh, sDown}, {createFilled(b, loc, {t, d}, f32, 0.0)},
          {dimsMap(ctx, 3, {0, 2}), dimsMap(ctx, 3, {1, 2}),
           dimsMap(ctx, 3, {0, 1})},
          {kPar, kPar, kRed}, [&](OpBuilder &nb, Location l, ValueRange args) {
            linalg::YieldOp::create(
                nb, l,
                ValueRange{arith::AddFOp::create(
                    nb, l, args[2],
                    arith::MulFOp::create(nb, l, args[0], args[1]))});
          })[0];
    } else {
      acc = createFilled(b, loc, {t, d}, f32, 0.0);
    }
    // Weighted sum over the k slots (each output with its expert's down
    // bias). Loops (t, dd, j).
    SmallVector<Value> sumIns = {op.getWeights(), o};
    SmallVector<AffineMap> sumMaps = {dimsMap(ctx, 3, {0, 2}),
                                      dimsMap(ctx, 3, {0, 2, 1})};
    if (bDown) {
      sumIns.push_back(indices);
      sumMaps.push_back(dimsMap(ctx, 3, {0, 2}));
    }
    sumMaps.push_back(dimsMap(ctx, 3, {0, 1}));
    Value y = generic(
        b, loc, sumIns, {acc}, sumMaps, {kPar, kPar, kRed},
        [&](OpBuilder &nb, Location l, ValueRange args) {
          Value w = castFloat(nb, l, args[0], f32);
          Value out = args[1];
          if (bDown)
            out = arith::AddFOp::create(nb, l, out,
                                        biasAt(nb, l, bDown, args[2], 1));
          linalg::YieldOp::create(
              nb, l,
              ValueRange{arith::AddFOp::create(
                  nb, l, args.back(), arith::MulFOp::create(nb, l, w, out))});
        })[0];
    rewriter.replaceOp(
        op, castTensor(b, loc, y, op.getResult().getType().getElementType()));
    return success();
  }
};
} // namespace

Value mlir::npu::clampedExpert(OpBuilder &b, Location loc, Value idx,
                               int64_t numExperts) {
  Value i = arith::IndexCastOp::create(b, loc, b.getIndexType(), idx);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value last = arith::ConstantIndexOp::create(b, loc, numExperts - 1);
  return arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, i, zero),
                                last);
}

Value mlir::npu::siluGate(OpBuilder &b, Location loc, Value g, Value u) {
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, g));
  Value den = arith::AddFOp::create(
      b, loc, arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0)), e);
  Value s = arith::DivFOp::create(b, loc, g, den);
  return arith::MulFOp::create(b, loc, s, u);
}

Value mlir::npu::expertGate(OpBuilder &b, Location loc, Value g, Value u,
                            FloatAttr limitAttr) {
  if (!limitAttr)
    return siluGate(b, loc, g, u);
  double limit = limitAttr.getValueAsDouble();
  auto c = [&](double v) {
    return arith::ConstantOp::create(b, loc,
                                     b.getF32FloatAttr(static_cast<float>(v)));
  };
  Value gc = arith::MinimumFOp::create(b, loc, g, c(limit));
  Value uc = arith::MaximumFOp::create(
      b, loc, arith::MinimumFOp::create(b, loc, u, c(limit)), c(-limit));
  Value a = arith::MulFOp::create(b, loc, gc, c(1.702));
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, a));
  Value glu = arith::DivFOp::create(b, loc, gc,
                                    arith::AddFOp::create(b, loc, c(1.0), e));
  return arith::MulFOp::create(b, loc,
                               arith::AddFOp::create(b, loc, uc, c(1.0)), glu);
}

void mlir::npu::populateMoEToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<MoERouterToLinalg, MoEExpertsToLinalg>(patterns.getContext());
}
