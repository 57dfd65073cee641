//===- TileMoeDispatch.cpp - a moe_ffn kernel's dispatch, tiled -----------===//
//
// The dispatch of TileMoe.cpp: per expert its count of assignments and
// their offset, the assignments in expert order (`order`, a bitonic sort;
// where its keys do not fit, each assignment's position in that order,
// `where`, as dense ranks in blocks, and the scalar unit's scatter) and the
// routed loop's visits (per expert its M tiles, per visit its expert), all
// on the vector unit. docs/cost-model-tpu.md, `moe_ffn`, prices it as
// lowered.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "Tiling.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::npu;

namespace {

/// Marks `producer` (a linalg op writing a per-expert array) with the
/// values it takes under the static plan (`npu.planned_values`), which
/// npu-tpu-check-plan's measure reads for the loop bounds that load them.
void setPlannedValues(Value producer, ArrayRef<int64_t> values) {
  Operation *op = producer.getDefiningOp();
  op->setAttr("npu.planned_values",
              DenseI64ArrayAttr::get(op->getContext(), values));
}

/// result[i, ...] = sum of x[i', ...] for i' < i, of an i64 tensor x of
/// rank 1 or 2 (an exclusive prefix sum along the first dim). Loops
/// (i, ..., i').
Value sumOfEarlier(OpBuilder &b, Location loc, Value x) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(x.getType());
  unsigned rank = type.getRank(), loops = rank + 1;
  SmallVector<unsigned> inDims = {rank}, outDims = {0};
  for (unsigned d = 1; d < rank; ++d) {
    inDims.push_back(d);
    outDims.push_back(d);
  }
  SmallVector<utils::IteratorType> iters(rank, kPar);
  iters.push_back(kRed);
  return buildGeneric(
      b, loc, ValueRange{x},
      ValueRange{createFilled(b, loc, type.getShape(), b.getI64Type(), 0)},
      {loopsMap(ctx, loops, inDims), loopsMap(ctx, loops, outDims)}, iters,
      [&](OpBuilder &nb, Location l, ValueRange v) -> SmallVector<Value> {
        Value earlier =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult,
                                  linalg::IndexOp::create(nb, l, rank),
                                  linalg::IndexOp::create(nb, l, 0));
        Value zero = arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(0));
        return {arith::AddIOp::create(
            nb, l, v[1], arith::SelectOp::create(nb, l, earlier, v[0], zero))};
      })[0];
}

/// where[a] = offsets[e] + #{a' < a : e(a') = e}, e = e(a) (flatIdx's
/// experts, clamped), on the vector unit: the assignments in blocks of
/// kMoeDispatchBlock (the indices padded to [nb, block]): per block, its
/// count of each expert; per block, the counts of the blocks before it; per
/// assignment, the earlier ones of its own block with its expert.
Value buildWhere(OpBuilder &b, Location loc, Value flatIdx, Value offsets,
                 int64_t numExperts) {
  MLIRContext *ctx = b.getContext();
  Type i64 = b.getI64Type();
  int64_t a = cast<RankedTensorType>(flatIdx.getType()).getDimSize(0);
  int64_t block = kMoeDispatchBlock, nb = llvm::divideCeil(a, block);
  Type idxType = cast<RankedTensorType>(flatIdx.getType()).getElementType();
  Value padded = insertSliceOf(b, loc, flatIdx,
                               createFilled(b, loc, {nb * block}, idxType, 0),
                               {b.getIndexAttr(0)}, {b.getIndexAttr(a)});
  Value idx2 = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({nb, block}, idxType), padded,
      SmallVector<ReassociationIndices>{{0, 1}});
  auto expert = [&](OpBuilder &nb2, Location l, Value v) {
    return clampedExpert(nb2, l, v, numExperts);
  };
  auto count = [&](OpBuilder &nb2, Location l, Value acc, Value hit) {
    return arith::AddIOp::create(nb2, l, acc,
                                 arith::ExtUIOp::create(nb2, l, i64, hit));
  };
  // blockCounts[blk, e] += (e(blk, i) == e), real assignments only. Loops
  // (blk, e, i).
  Value blockCounts = buildGeneric(
      b, loc, ValueRange{idx2},
      ValueRange{createFilled(b, loc, {nb, numExperts}, i64, 0)},
      {loopsMap(ctx, 3, {0, 2}), loopsMap(ctx, 3, {0, 1})}, {kPar, kPar, kRed},
      [&](OpBuilder &nb2, Location l, ValueRange v) -> SmallVector<Value> {
        Value blk = linalg::IndexOp::create(nb2, l, 0);
        Value i = linalg::IndexOp::create(nb2, l, 2);
        Value at = arith::AddIOp::create(
            nb2, l,
            arith::MulIOp::create(nb2, l, blk, constIndex(nb2, l, block)), i);
        Value real = arith::CmpIOp::create(nb2, l, arith::CmpIPredicate::ult,
                                           at, constIndex(nb2, l, a));
        Value same = arith::CmpIOp::create(nb2, l, arith::CmpIPredicate::eq,
                                           expert(nb2, l, v[0]),
                                           linalg::IndexOp::create(nb2, l, 1));
        return {count(nb2, l, v[1], arith::AndIOp::create(nb2, l, real, same))};
      })[0];
  // before[blk, e] = sum of blockCounts[blk', e], blk' < blk: a scan over
  // the blocks, one add per expert each (linear in the blocks).
  OpFoldResult zero = b.getIndexAttr(0), unit = b.getIndexAttr(1),
               ee = b.getIndexAttr(numExperts);
  auto scan = scf::ForOp::create(
      b, loc, constIndex(b, loc, 0), constIndex(b, loc, nb),
      constIndex(b, loc, 1),
      ValueRange{createFilled(b, loc, {nb, numExperts}, i64, 0),
                 createFilled(b, loc, {1, numExperts}, i64, 0)},
      [&](OpBuilder &lb, Location l, Value blk, ValueRange iter) {
        Value rows =
            insertSliceOf(lb, l, iter[1], iter[0], {blk, zero}, {unit, ee});
        Value row = sliceOf(lb, l, blockCounts, {blk, zero}, {unit, ee});
        AffineMap id2 = lb.getMultiDimIdentityMap(2);
        Value sum =
            buildGeneric(lb, l, ValueRange{row}, ValueRange{iter[1]},
                         {id2, id2}, {kPar, kPar},
                         [&](OpBuilder &nb2, Location bl,
                             ValueRange v) -> SmallVector<Value> {
                           return {arith::AddIOp::create(nb2, bl, v[1], v[0])};
                         })[0];
        // The scan's rows are the kernel's own, on chip (as an absorbed
        // MLA's intermediates): the copies in this loop are its.
        sum.getDefiningOp()->setAttr("npu.kernel_holds", lb.getUnitAttr());
        scf::YieldOp::create(lb, l, ValueRange{rows, sum});
      });
  Value before = scan.getResult(0);
  // rank[blk, j] = #{i < j : e(blk, i) == e(blk, j)}. Loops (blk, j, i).
  Value rank = buildGeneric(
      b, loc, ValueRange{idx2, idx2},
      ValueRange{createFilled(b, loc, {nb, block}, i64, 0)},
      {loopsMap(ctx, 3, {0, 1}), loopsMap(ctx, 3, {0, 2}),
       loopsMap(ctx, 3, {0, 1})},
      {kPar, kPar, kRed},
      [&](OpBuilder &nb2, Location l, ValueRange v) -> SmallVector<Value> {
        Value earlier =
            arith::CmpIOp::create(nb2, l, arith::CmpIPredicate::ult,
                                  linalg::IndexOp::create(nb2, l, 2),
                                  linalg::IndexOp::create(nb2, l, 1));
        Value same =
            arith::CmpIOp::create(nb2, l, arith::CmpIPredicate::eq,
                                  expert(nb2, l, v[1]), expert(nb2, l, v[0]));
        return {
            count(nb2, l, v[2], arith::AndIOp::create(nb2, l, earlier, same))};
      })[0];
  // where = offsets[e] + before[blk, e] + rank, e = e(blk, j).
  Value where2 = buildGeneric(
      b, loc, ValueRange{idx2}, ValueRange{rank},
      {loopsMap(ctx, 2, {0, 1}), loopsMap(ctx, 2, {0, 1})}, {kPar, kPar},
      [&](OpBuilder &nb2, Location l, ValueRange v) -> SmallVector<Value> {
        Value e = expert(nb2, l, v[0]);
        Value blk = linalg::IndexOp::create(nb2, l, 0);
        Value base = arith::AddIOp::create(
            nb2, l, tensor::ExtractOp::create(nb2, l, offsets, e),
            tensor::ExtractOp::create(nb2, l, before, ValueRange{blk, e}));
        return {arith::AddIOp::create(nb2, l, base, v[1])};
      })[0];
  return sliceOf(b, loc,
                 tensor::CollapseShapeOp::create(
                     b, loc, where2, SmallVector<ReassociationIndices>{{0, 1}}),
                 {b.getIndexAttr(0)}, {b.getIndexAttr(a)});
}

/// The assignments of `flatIdx` (its experts clamped) sorted by expert, in
/// assignment order within an expert: an i64 [A] tensor. A bitonic sort of
/// the keys e A' + a (A' = A rounded up to a power of two; the padding
/// keys E A' + a sort last), on the vector unit: log A' (log A' + 1) / 2
/// compare-exchange passes over A' keys, each key against its partner
/// i xor j (MaxText sorts the same way, densely, with `jnp.argsort`; a
/// scalar scatter of `where` would take A serial stores). The keys are
/// distinct, so the order is the stable one.
Value sortByExpert(OpBuilder &b, Location loc, Value flatIdx,
                   int64_t numExperts) {
  MLIRContext *ctx = b.getContext();
  Type i64 = b.getI64Type();
  int64_t a = cast<RankedTensorType>(flatIdx.getType()).getDimSize(0);
  int64_t n = moeSortKeys(a);
  unsigned logN = llvm::Log2_64(uint64_t(n));
  // keys[i] = e(i) n + i, e = E past the assignments.
  Value keys = buildGeneric(
      b, loc, ValueRange{}, ValueRange{createFilled(b, loc, {n}, i64, 0)},
      {loopsMap(ctx, 1, {0})}, {kPar},
      [&](OpBuilder &nb, Location l, ValueRange) -> SmallVector<Value> {
        Value i = linalg::IndexOp::create(nb, l, 0);
        Value real = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, i,
                                           constIndex(nb, l, a));
        Value at = arith::MinUIOp::create(nb, l, i, constIndex(nb, l, a - 1));
        Value e = clampedExpert(
            nb, l, tensor::ExtractOp::create(nb, l, flatIdx, at), numExperts);
        e = arith::SelectOp::create(nb, l, real, e,
                                    constIndex(nb, l, numExperts));
        Value key = arith::AddIOp::create(
            nb, l, arith::MulIOp::create(nb, l, e, constIndex(nb, l, n)), i);
        return {arith::IndexCastOp::create(nb, l, i64, key).getResult()};
      })[0];
  // Pass (s, t), t = 0..s for s = 0..log A' - 1: key i is kept or swapped
  // with key i xor j, j = 2^(s - t), ascending where i has no bit of
  // k = 2^(s + 1). Two passes per iteration, from one buffer into the other
  // and back (each loop result stays in its own buffer); past the last
  // pass j = 0, which keeps every key.
  Value one = constIndex(b, loc, 1), zero = constIndex(b, loc, 0);
  Value lastStage = constIndex(b, loc, logN);
  auto pass = [&](OpBuilder &pb, Location pl, Value in, Value out, Value st,
                  Value tt) {
    Value live =
        arith::CmpIOp::create(pb, pl, arith::CmpIPredicate::ult, st, lastStage);
    Value j = arith::SelectOp::create(
        pb, pl, live,
        arith::ShLIOp::create(pb, pl, one,
                              arith::SubIOp::create(pb, pl, st, tt)),
        zero);
    Value k = arith::ShLIOp::create(pb, pl, one,
                                    arith::AddIOp::create(pb, pl, st, one));
    Value next = buildGeneric(
        pb, pl, ValueRange{}, ValueRange{out}, {loopsMap(ctx, 1, {0})}, {kPar},
        [&](OpBuilder &nb, Location l, ValueRange) -> SmallVector<Value> {
          Value i = linalg::IndexOp::create(nb, l, 0);
          Value partner = arith::XOrIOp::create(nb, l, i, j);
          Value mine = tensor::ExtractOp::create(nb, l, in, i);
          Value other = tensor::ExtractOp::create(nb, l, in, partner);
          Value ascending = arith::CmpIOp::create(
              nb, l, arith::CmpIPredicate::eq,
              arith::AndIOp::create(nb, l, i, k), constIndex(nb, l, 0));
          Value first = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult,
                                              i, partner);
          Value lo = arith::MinSIOp::create(nb, l, mine, other);
          Value hi = arith::MaxSIOp::create(nb, l, mine, other);
          Value wantLo = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                               first, ascending);
          return {arith::SelectOp::create(nb, l, wantLo, lo, hi)};
        })[0];
    // The passes' keys are the kernel's own, on chip.
    next.getDefiningOp()->setAttr("npu.kernel_holds", pb.getUnitAttr());
    return next;
  };
  // The next pass: (s, t + 1) within stage s, else (s + 1, 0).
  auto advance = [&](OpBuilder &pb, Location pl, Value st, Value tt) {
    Value t1 = arith::AddIOp::create(pb, pl, tt, one);
    Value within =
        arith::CmpIOp::create(pb, pl, arith::CmpIPredicate::ule, t1, st);
    return std::make_pair(
        arith::SelectOp::create(pb, pl, within, st,
                                arith::AddIOp::create(pb, pl, st, one))
            .getResult(),
        arith::SelectOp::create(pb, pl, within, t1, zero).getResult());
  };
  auto stages = scf::ForOp::create(
      b, loc, zero, constIndex(b, loc, moeSortPasses(a) / 2), one,
      ValueRange{keys, createFilled(b, loc, {n}, i64, 0), zero, zero},
      [&](OpBuilder &pb, Location pl, Value, ValueRange it) {
        Value spare = pass(pb, pl, it[0], it[1], it[2], it[3]);
        auto [s1, t1] = advance(pb, pl, it[2], it[3]);
        Value keys2 = pass(pb, pl, spare, it[0], s1, t1);
        auto [s2, t2] = advance(pb, pl, s1, t1);
        scf::YieldOp::create(pb, pl, ValueRange{keys2, spare, s2, t2});
      });
  // order[p] = key p's assignment (its low part).
  Value sorted = stages.getResult(0);
  return buildGeneric(
      b, loc, ValueRange{}, ValueRange{createFilled(b, loc, {a}, i64, 0)},
      {loopsMap(ctx, 1, {0})}, {kPar},
      [&](OpBuilder &nb, Location l, ValueRange) -> SmallVector<Value> {
        Value p = linalg::IndexOp::create(nb, l, 0);
        Value key = tensor::ExtractOp::create(nb, l, sorted, p);
        return {arith::RemUIOp::create(
            nb, l, key,
            arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(n)))};
      })[0];
}
/// The visits of the routed loop for M tiles of `tileM` rows (TileMoe.cpp),
/// densely on the vector unit, as megablox's group metadata: per expert
/// its tiles ceil(counts / tileM) and the first of its visits (their
/// exclusive prefix sum), the visits in all, and per visit v < maxVisits
/// its expert #{e : firstVisit[e] + tiles[e] <= v} (E past the last
/// visit). Writes the three into `dispatch`.
void buildVisits(OpBuilder &b, Location loc, Dispatch &dispatch,
                 int64_t maxVisits, int64_t numExperts, int64_t tileM) {
  MLIRContext *ctx = b.getContext();
  Type i64 = b.getI64Type();
  auto i64Const = [](OpBuilder &nb, Location l, int64_t v) -> Value {
    return arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(v));
  };
  AffineMap id1 = b.getMultiDimIdentityMap(1);
  // tiles[e] = (counts[e] + tileM - 1) / tileM.
  Value tiles = buildGeneric(
      b, loc, ValueRange{dispatch.counts},
      ValueRange{createFilled(b, loc, {numExperts}, i64, 0)}, {id1, id1},
      {kPar},
      [&](OpBuilder &nb, Location l, ValueRange v) -> SmallVector<Value> {
        return {arith::DivUIOp::create(
            nb, l,
            arith::AddIOp::create(nb, l, v[0], i64Const(nb, l, tileM - 1)),
            i64Const(nb, l, tileM))};
      })[0];
  dispatch.firstVisit = sumOfEarlier(b, loc, tiles);
  // visits[0] = sum of tiles. Loops (e).
  dispatch.visits = buildGeneric(
      b, loc, ValueRange{tiles}, ValueRange{createFilled(b, loc, {1}, i64, 0)},
      {id1, AffineMap::get(1, 0, b.getAffineConstantExpr(0))}, {kRed},
      [&](OpBuilder &nb, Location l, ValueRange v) -> SmallVector<Value> {
        return {arith::AddIOp::create(nb, l, v[1], v[0])};
      })[0];
  // visitExpert[v] += (firstVisit[e] + tiles[e] <= v). Loops (v, e).
  dispatch.visitExpert = buildGeneric(
      b, loc, ValueRange{dispatch.firstVisit, tiles},
      ValueRange{createFilled(b, loc, {maxVisits}, i64, 0)},
      {loopsMap(ctx, 2, {1}), loopsMap(ctx, 2, {1}), loopsMap(ctx, 2, {0})},
      {kPar, kRed},
      [&](OpBuilder &nb, Location l, ValueRange v) -> SmallVector<Value> {
        Value v0 = arith::IndexCastOp::create(
            nb, l, i64, linalg::IndexOp::create(nb, l, 0));
        Value done =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ule,
                                  arith::AddIOp::create(nb, l, v[0], v[1]), v0);
        return {arith::AddIOp::create(
            nb, l, v[2], arith::ExtUIOp::create(nb, l, i64, done))};
      })[0];
}
} // namespace

Dispatch mlir::npu::buildDispatch(OpBuilder &b, Location loc, MoEExpertsOp op,
                                  Value flatIdx, bool sort, int64_t tileM) {
  int64_t numExperts = op.getNumExperts();
  MLIRContext *ctx = b.getContext();
  Type i64 = b.getI64Type();
  // counts[e] += (idx[a] == e). Loops (e, a).
  Value counts = buildGeneric(
      b, loc, ValueRange{flatIdx},
      ValueRange{createFilled(b, loc, {numExperts}, i64, 0)},
      {loopsMap(ctx, 2, {1}), loopsMap(ctx, 2, {0})}, {kPar, kRed},
      [&](OpBuilder &nb, Location l, ValueRange v) -> SmallVector<Value> {
        Value hit =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                  clampedExpert(nb, l, v[0], numExperts),
                                  linalg::IndexOp::create(nb, l, 0));
        return {arith::AddIOp::create(nb, l, v[1],
                                      arith::ExtUIOp::create(nb, l, i64, hit))};
      })[0];
  // offsets[e] = sum of counts[e'], e' < e.
  Value offsets = sumOfEarlier(b, loc, counts);
  // order: the assignments sorted by (expert, assignment), densely where
  // the sort's keys fit the working set; else order[where[a]] = a, the
  // scalar unit's scatter.
  Value order;
  if (sort) {
    order = sortByExpert(b, loc, flatIdx, numExperts);
  } else {
    Value where = buildWhere(b, loc, flatIdx, offsets, numExperts);
    int64_t a = cast<RankedTensorType>(flatIdx.getType()).getDimSize(0);
    order = scf::ForOp::create(
                b, loc, constIndex(b, loc, 0), constIndex(b, loc, a),
                constIndex(b, loc, 1),
                ValueRange{createFilled(b, loc, {a}, i64, 0)},
                [&](OpBuilder &lb, Location l, Value i, ValueRange iter) {
                  Value at = arith::IndexCastOp::create(
                      lb, l, lb.getIndexType(),
                      tensor::ExtractOp::create(lb, l, where, i));
                  scf::YieldOp::create(
                      lb, l,
                      ValueRange{tensor::InsertOp::create(
                          lb, l, arith::IndexCastOp::create(lb, l, i64, i),
                          iter[0], ValueRange{at})});
                })
                .getResult(0);
  }
  // Under the static plan: the first `active` experts get `rows` each.
  int64_t active = op.getPlannedActiveExperts(),
          rows = op.getPlannedRowsPerExpert();
  SmallVector<int64_t> plannedCounts, plannedOffsets;
  for (int64_t e = 0; e < numExperts; ++e) {
    plannedCounts.push_back(e < active ? rows : 0);
    plannedOffsets.push_back(std::min(e, active) * rows);
  }
  setPlannedValues(counts, plannedCounts);
  setPlannedValues(offsets, plannedOffsets);
  Dispatch dispatch{counts, offsets, order, {}, {}, {}};
  // The table holds the visits of the routing and of the plan, whose
  // counts are rounded up (moeVisitTableSize).
  int64_t maxVisits =
      moeVisitTableSize(cast<RankedTensorType>(flatIdx.getType()).getDimSize(0),
                        active * rows, numExperts, tileM);
  buildVisits(b, loc, dispatch, maxVisits, numExperts, tileM);
  // Under the plan each active expert has ceil(rows / tileM) visits.
  int64_t perExpert = llvm::divideCeil(rows, tileM);
  SmallVector<int64_t> plannedFirst, plannedExpert;
  for (int64_t e = 0; e < numExperts; ++e)
    plannedFirst.push_back(std::min(e, active) * perExpert);
  int64_t plannedVisits = active * perExpert;
  for (int64_t v = 0; v < maxVisits; ++v)
    plannedExpert.push_back(v < plannedVisits ? v / perExpert : numExperts);
  setPlannedValues(dispatch.firstVisit, plannedFirst);
  setPlannedValues(dispatch.visits, {plannedVisits});
  setPlannedValues(dispatch.visitExpert, plannedExpert);
  return dispatch;
}
