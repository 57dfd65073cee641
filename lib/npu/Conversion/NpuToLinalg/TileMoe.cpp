//===- TileMoe.cpp - expert-major tiling of moe_ffn kernels ---------------===//
//
// npu.moe_experts (T tokens, each routed to K of E experts) becomes, on
// tensors, with A = T K assignments a = t K + j:
//
//   counts[e]  = #{a : idx[a] == e}                      once, [E]
//   offsets[e] = sum of counts[e'] for e' < e            once, [E]
//   order      = the a's sorted by expert, stable           (a bitonic
//                sort on the vector unit where its keys fit the working
//                set, else order[where[a]] = a on the scalar unit, with
//                where[a] = offsets[e(a)] + #{a' < a : e(a') == e(a)}
//                dense in blocks of kMoeDispatchBlock: TileMoeDispatch.cpp)
//   visits     = per expert ceil(counts[e] / tm) M tiles; per visit its
//                expert (the visit table, densely: TileMoeDispatch.cpp)
//   for each visit (expert e, M tile m0) (run-time trip count):
//       x tile = the rows x[order[..] / K], gathered     [tm, D]
//                (the last tile padded with its last row)
//       acc    = gated MLP of the x tile with expert e's weights, over
//                F tiles as TileGatedMlp's               [tm, D] f32
//       o[order[offsets[e] + m0 + r]] = acc's real row r, rounded to the
//                result type (as vLLM's and MaxText's expert outputs),
//                one copy per row, by the next visit (in its first F step
//                where that step's loads run beside them: buildRoutedExperts)
//                or after the last                          o: [T K, D]
//   for each M tile of tokens (the shared expert's tile):
//     y tile = shared expert(x tile) (or 0)               [tm, D] f32
//     for each sub-tile of s tokens (moeCombineTokens: s K <= 256 rows),
//     each D chunk of the shared expert's tile:
//       rows  = o[t K + j, chunk] for its tokens t, slots j: one block
//               [s, K, chunk] (o's rows are the assignments' in order)
//       y[t, chunk] += w[t, j] rows[t, j], j = 0..K-1 in order
//     result tile = y tile rounded to the result type
//
// so an expert's weights are read once per M tile of its rows (the model's
// static plan reads them once per expected M tile, docs/cost-model-tpu.md),
// its outputs leave row by row to where the combine reads them as blocks
// (vLLM's fused_moe writes its down projection's rows to the same places
// for moe_sum), and no [T, K, F] intermediate exists. All
// arithmetic is in f32 and each token's outputs are added in slot order,
// as the reference lowering's; each routed output is rounded once to the
// result type before the combine (exact when the result is f32).
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "Tiling.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::npu;

namespace {
/// `tensor[i]` (i64) as an index.
Value extractIndex(OpBuilder &b, Location loc, Value tensor, ValueRange i) {
  return arith::IndexCastOp::create(
      b, loc, b.getIndexType(), tensor::ExtractOp::create(b, loc, tensor, i));
}

/// Expert `e`'s slice of `w` (stacked over the experts: [E, ...]) at
/// `offsets` with `sizes` in the other dims, without the expert dim: a
/// weight's [F, D] or [D, F] tile, a bias's [F] or [D] slice.
Value expertSlice(OpBuilder &b, Location loc, Value w, Value e,
                  ArrayRef<OpFoldResult> offsets,
                  ArrayRef<OpFoldResult> sizes) {
  auto type = cast<RankedTensorType>(w.getType());
  SmallVector<OpFoldResult> at = {e}, extent = {b.getIndexAttr(1)};
  llvm::append_range(at, offsets);
  llvm::append_range(extent, sizes);
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  auto resType = tensor::ExtractSliceOp::inferCanonicalRankReducedResultType(
      type.getRank() - 1, type, extent);
  return tensor::ExtractSliceOp::create(b, loc, resType, w, at, extent,
                                        strides);
}

/// The gated MLP of the tile `xt` ([nm, D]) over F tiles of `tileF` and D
/// chunks of `tileD`, in f32 (buildGatedFLoop): `weights(f0, nf, which, d0,
/// nd)` gives the gate (0) and up (1) tiles ([nf, nd]) and the down tile
/// (2, [nd, nf]); `combine(g, u, f0)` the activation (siluGate, or an
/// expert's biased and clamped one). The [nm, D] f32 result.
Value gatedTile(
    OpBuilder &b, Location loc, Value xt, OpFoldResult nm, int64_t d, int64_t f,
    int64_t tileF, int64_t tileD,
    function_ref<Value(OpBuilder &, Location, Value, OpFoldResult, unsigned,
                       OpFoldResult, OpFoldResult)>
        weights,
    function_ref<Value(OpBuilder &, Location, Value, Value, Value)> combine,
    GatedBiasesFn biases = nullptr, GatedSide *side = nullptr) {
  Type f32 = b.getF32Type();
  return buildGatedFLoop(
      b, loc, xt, filledTile(b, loc, {nm, b.getIndexAttr(d)}, f32, 0.0), nm, f,
      tileF, d, tileD, f32, f32,
      [&](OpBuilder &wb, Location wl, Value f0, OpFoldResult nf, unsigned which,
          OpFoldResult d0, OpFoldResult nd) {
        return GatedWeightTile{weights(wb, wl, f0, nf, which, d0, nd), true};
      },
      combine, biases, side);
}

} // namespace

/// A loop over a visit's `tileM` rows, one row copy per iteration: `copy`
/// gives the new carried value from row i, its real row r (rows past the
/// visit's `rows` real ones repeat the last) and r's assignment `a` (its
/// `dispatch.order` entry at `first` + r). The gather of x and the stores
/// into o (npu-tpu-pipeline-row-dmas keeps their copies in flight).
static Value visitRowLoop(OpBuilder &b, Location loc, const Dispatch &dispatch,
                          int64_t tileM, Value first, Value rows, Value init,
                          function_ref<Value(OpBuilder &, Location, Value i,
                                             Value r, Value a, Value carried)>
                              copy) {
  Value one = constIndex(b, loc, 1);
  Value lastRow = arith::SubIOp::create(b, loc, rows, one);
  auto loop = scf::ForOp::create(
      b, loc, constIndex(b, loc, 0), constIndex(b, loc, tileM), one,
      ValueRange{init},
      [&](OpBuilder &lb, Location ll, Value i, ValueRange iter) {
        Value r = arith::MinSIOp::create(lb, ll, i, lastRow);
        Value a =
            extractIndex(lb, ll, dispatch.order,
                         arith::AddIOp::create(lb, ll, first, r).getResult());
        scf::YieldOp::create(lb, ll, copy(lb, ll, i, r, a, iter[0]));
      });
  return loop.getResult(0);
}

/// A visit's rows, each stored at its assignment's row of o (one copy per
/// row; copies past the last real row repeat it): `prev` is (o, the tile
/// [tileM, D] that holds the visit's real rows, their first position in
/// expert order, their count). Stored by the next visit's first F step
/// (`when`: the step is the first), beside the next F step's loads, or
/// after the last visit; not at all where the count is 0 (before the first
/// visit). Returns o.
static Value storeVisitRows(OpBuilder &b, Location loc,
                            const Dispatch &dispatch, int64_t tileM, int64_t d,
                            ValueRange prev, Value when = nullptr) {
  Value o = prev[0], tile = prev[1], first = prev[2], rows = prev[3];
  OpFoldResult zero = b.getIndexAttr(0), dd = b.getIndexAttr(d);
  Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, rows,
                                    constIndex(b, loc, 0));
  if (when)
    any = arith::AndIOp::create(b, loc, when, any);
  auto stored = scf::IfOp::create(
      b, loc, any,
      [&](OpBuilder &ib, Location il) {
        Value stored = visitRowLoop(
            ib, il, dispatch, tileM, first, rows, o,
            [&](OpBuilder &lb, Location ll, Value, Value r, Value a,
                Value dest) {
              OpFoldResult unit = lb.getIndexAttr(1);
              Value row = sliceOf(lb, ll, tile, {r, zero}, {unit, dd});
              return insertSliceOf(lb, ll, row, dest, {a, zero}, {unit, dd});
            });
        scf::YieldOp::create(ib, il, stored);
      },
      [&](OpBuilder &ib, Location il) { scf::YieldOp::create(ib, il, o); });
  return stored.getResult(0);
}

/// The routed experts of `op`, each over M tiles (`tileM` rows, F tiles of
/// `tileF`) of the rows `dispatch` routes to it, writing their outputs,
/// rounded to the result type, into o ([T x K, D]) at their assignments'
/// rows (each row of an expert's tile at its `dispatch.order` entry). With
/// `buffers` >= 2, several F tiles and D whole (a pipelined F loop whose
/// steps load their own weights), a visit's rows are stored by the next
/// visit's first F step, after it has issued its second step's loads (so
/// that the weight stream runs beside them); else at the next visit's
/// start, before its first loads.
static Value buildRoutedExperts(OpBuilder &b, Location loc, MoEExpertsOp op,
                                const Dispatch &dispatch, int64_t tileM,
                                int64_t tileF, int64_t tileD, int64_t buffers) {
  Type f32 = b.getF32Type();
  Value x = op.getX();
  int64_t t = op.getNumTokens(), d = op.getModelDim(), k = op.getTopK();
  int64_t f = op.getFfnDim();
  OpFoldResult zero = b.getIndexAttr(0), dd = b.getIndexAttr(d);
  Value kC = constIndex(b, loc, k), tileMC = constIndex(b, loc, tileM);
  Type xElem = cast<RankedTensorType>(x.getType()).getElementType();
  Type oElem = op.getResult().getType().getElementType();
  Value o0 = emptyTile(b, loc, {b.getIndexAttr(t * k), dd}, oElem);
  FloatAttr limit = op.getSwigluLimitAttr();
  bool inFirstStep = buffers >= 2 && tileF < f && tileD >= d;
  // One loop over the visits (expert, M tile of its rows), in expert
  // order: a run-time count, each visit's expert from the visit table.
  Value zeroC = constIndex(b, loc, 0);
  Value noRows = emptyTile(b, loc, {b.getIndexAttr(tileM), dd}, oElem);
  auto visits = scf::ForOp::create(
      b, loc, zeroC, extractIndex(b, loc, dispatch.visits, zeroC),
      constIndex(b, loc, 1), ValueRange{o0, noRows, zeroC, zeroC},
      [&](OpBuilder &mb, Location ml, Value v, ValueRange iterM) {
        Value o = inFirstStep
                      ? iterM[0]
                      : storeVisitRows(mb, ml, dispatch, tileM, d, iterM);
        Value ex = extractIndex(mb, ml, dispatch.visitExpert, v);
        Value count = extractIndex(mb, ml, dispatch.counts, ex);
        Value m0 = arith::MulIOp::create(
            mb, ml,
            arith::SubIOp::create(
                mb, ml, v, extractIndex(mb, ml, dispatch.firstVisit, ex)),
            tileMC);
        Value first = arith::AddIOp::create(
            mb, ml, extractIndex(mb, ml, dispatch.offsets, ex), m0);
        Value rows = arith::MinSIOp::create(
            mb, ml, tileMC, arith::SubIOp::create(mb, ml, count, m0));
        // The tile's rows of x, one row per assignment; rows past the
        // expert's last repeat it (computed, never stored).
        Value xt = visitRowLoop(
            mb, ml, dispatch, tileM, first, rows,
            emptyTile(mb, ml, {mb.getIndexAttr(tileM), dd}, xElem),
            [&](OpBuilder &gb, Location gl, Value i, Value, Value a,
                Value dest) {
              Value tok = arith::DivUIOp::create(gb, gl, a, kC);
              OpFoldResult unit = gb.getIndexAttr(1);
              Value row = sliceOf(gb, gl, x, {tok, zero}, {unit, dd});
              return insertSliceOf(gb, gl, row, dest, {i, zero}, {unit, dd});
            });
        // A tile of one row (its gather loop of one step folds into a
        // view of x) with D in chunks: copied on chip once, as the
        // gathered tiles are, not loaded per chunk.
        if (tileM == 1 && tileD < d)
          xt = copyTile(mb, ml, xt, {mb.getIndexAttr(tileM), dd});
        // Or by this visit's first F step.
        auto storeFirst = [&](OpBuilder &sb, Location sl, Value f0,
                              Value dest) {
          Value first = arith::CmpIOp::create(sb, sl, arith::CmpIPredicate::eq,
                                              f0, constIndex(sb, sl, 0));
          return storeVisitRows(sb, sl, dispatch, tileM, d,
                                {dest, iterM[1], iterM[2], iterM[3]}, first);
        };
        GatedSide stores{o, storeFirst};
        Value acc = gatedTile(
            mb, ml, xt, mb.getIndexAttr(tileM), d, f, tileF, tileD,
            [&](OpBuilder &wb, Location wl, Value f0, OpFoldResult nf,
                unsigned which, OpFoldResult d0, OpFoldResult nd) {
              Value w = which == 0   ? op.getWGate()
                        : which == 1 ? op.getWUp()
                                     : op.getWDown();
              // Gate and up: [F, D] tiles; down: [D, F].
              if (which == 2)
                return expertSlice(wb, wl, w, ex, {d0, f0}, {nd, nf});
              return expertSlice(wb, wl, w, ex, {f0, d0}, {nf, nd});
            },
            [&](OpBuilder &nb, Location l, Value g, Value u, Value) {
              return expertGate(nb, l, g, u, limit);
            },
            // The gate and up biases: the F tile's slices, loaded
            // with its weights.
            op.hasBiases() ? GatedBiasesFn([&](OpBuilder &bb, Location bl,
                                               Value f0, OpFoldResult nf) {
              return std::array<Value, 2>{
                  expertSlice(bb, bl, op.getBGate(), ex, {f0}, {nf}),
                  expertSlice(bb, bl, op.getBUp(), ex, {f0}, {nf})};
            })
                           : GatedBiasesFn(),
            inFirstStep ? &stores : nullptr);
        o = stores.init;
        // The down projection's bias, its expert's row once per M
        // tile, added once per output element.
        if (op.hasBiases()) {
          MLIRContext *ctx = mb.getContext();
          Value bias = expertSlice(mb, ml, op.getBDown(), ex, {zero}, {dd});
          acc = buildGeneric(mb, ml, ValueRange{bias}, ValueRange{acc},
                             {loopsMap(ctx, 2, {1}), loopsMap(ctx, 2, {0, 1})},
                             {kPar, kPar},
                             [&](OpBuilder &nb, Location l,
                                 ValueRange a) -> SmallVector<Value> {
                               return {arith::AddFOp::create(
                                   nb, l, a[1], castFloat(nb, l, a[0], f32))};
                             })[0];
        }
        // The tile rounded to the result type, into the buffer the next
        // visit stores its real rows from.
        Value tile = castTensorInto(mb, ml, acc, iterM[1]);
        scf::YieldOp::create(mb, ml, ValueRange{o, tile, first, rows});
      });
  // The last visit's rows.
  return storeVisitRows(b, loc, dispatch, tileM, d, visits.getResults());
}

/// Adds to `acc` ([nm, D] f32, the M tile of tokens at `t0`) each token's
/// routed outputs weighted by its routing weights, `sub` tokens and `tileD`
/// columns at a time: their rows of o (each token's K rows, in slot order:
/// the routed experts stored them at their assignments' rows) as one block,
/// then one weighted sum over the slots in slot order (the reference's).
static Value buildCombine(OpBuilder &b, Location loc, MoEExpertsOp op, Value o,
                          Value acc, Value t0, OpFoldResult nm, int64_t sub,
                          int64_t tileD) {
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  int64_t k = op.getTopK(), d = op.getModelDim();
  OpFoldResult zero = b.getIndexAttr(0), kk = b.getIndexAttr(k);
  Type oElem = cast<RankedTensorType>(o.getType()).getElementType();
  Value kC = constIndex(b, loc, k), subC = constIndex(b, loc, sub);
  Value tokens = getValueOrCreateConstantIndexOp(b, loc, nm);
  auto subTiles = scf::ForOp::create(
      b, loc, constIndex(b, loc, 0), tokens, subC, ValueRange{acc},
      [&](OpBuilder &sb, Location sl, Value s0, ValueRange iterS) {
        Value ns = arith::MinSIOp::create(
            sb, sl, subC, arith::SubIOp::create(sb, sl, tokens, s0));
        Value tok0 = arith::AddIOp::create(sb, sl, t0, s0);
        Value firstA = arith::MulIOp::create(sb, sl, tok0, kC);
        Value weights =
            sliceOf(sb, sl, op.getWeights(), {tok0, zero}, {ns, kk});
        auto chunks = scf::ForOp::create(
            sb, sl, constIndex(sb, sl, 0), constIndex(sb, sl, d),
            constIndex(sb, sl, tileD), ValueRange{iterS[0]},
            [&](OpBuilder &cb, Location cl, Value d0, ValueRange iterC) {
              OpFoldResult nd = tileExtent(cb, cl, d0, tileD, d);
              // The sub-tile's tokens' rows of o: one block, in slot order.
              Value block = sliceOf(
                  cb, cl, o, {firstA, d0},
                  {arith::MulIOp::create(cb, cl, ns, kC).getResult(), nd});
              SmallVector<int64_t> rowsShape = {ShapedType::kDynamic, k,
                                                ShapedType::kDynamic};
              if (std::optional<int64_t> n = getConstantIntValue(nd))
                rowsShape[2] = *n;
              Value rows = tensor::ExpandShapeOp::create(
                  cb, cl, RankedTensorType::get(rowsShape, oElem), block,
                  SmallVector<ReassociationIndices>{{0, 1}, {2}},
                  SmallVector<OpFoldResult>{ns, kk, nd});
              Value accRows = sliceOf(cb, cl, iterC[0], {s0, d0}, {ns, nd});
              // Loops (i, j, d), j a reduction: each element adds its slots
              // in order.
              Value sum = buildGeneric(
                  cb, cl, ValueRange{rows, weights}, ValueRange{accRows},
                  {loopsMap(ctx, 3, {0, 1, 2}), loopsMap(ctx, 3, {0, 1}),
                   loopsMap(ctx, 3, {0, 2})},
                  {kPar, kRed, kPar},
                  [&](OpBuilder &nb, Location bl,
                      ValueRange v) -> SmallVector<Value> {
                    return {arith::AddFOp::create(
                        nb, bl, v[2],
                        arith::MulFOp::create(nb, bl,
                                              castFloat(nb, bl, v[1], f32),
                                              castFloat(nb, bl, v[0], f32)))};
                  })[0];
              scf::YieldOp::create(
                  cb, cl,
                  insertSliceOf(cb, cl, sum, iterC[0], {s0, d0}, {ns, nd}));
            });
        scf::YieldOp::create(sb, sl, chunks.getResult(0));
      });
  return subTiles.getResult(0);
}

LogicalResult mlir::npu::tileMoeKernel(RewriterBase &rewriter, KernelOp kernel,
                                       TilingAttr tiling) {
  SmallVector<MoEExpertsOp> moes(kernel.getBodyBlock().getOps<MoEExpertsOp>());
  if (tiling.getTile().size() != MlpNest<>::kSize || moes.size() != 1)
    return failure();
  MlpNest<> tile = MlpNest<>::from(tiling.getTile());
  MoEExpertsOp op = moes.front();
  Value x = op.getX();
  if (cast<RankedTensorType>(x.getType()).getRank() != 2)
    return failure();
  Location loc = op.getLoc();
  OpBuilder &b = rewriter;
  rewriter.setInsertionPoint(op);
  Type f32 = b.getF32Type();
  int64_t t = op.getNumTokens(), d = op.getModelDim(), k = op.getTopK();
  int64_t f = op.getFfnDim();
  int64_t tileM = std::min(tile.m, t), tileF = std::min(tile.f, f);
  OpFoldResult zero = b.getIndexAttr(0), dd = b.getIndexAttr(d);

  // The assignments sorted by expert.
  Value flatIdx = tensor::CollapseShapeOp::create(
      b, loc, op.getIndices(), SmallVector<ReassociationIndices>{{0, 1}});
  // The order sorted on the vector unit where the TPU-like core's SRAM
  // holds the keys (moeDispatchSorts), else scattered.
  TpuTargetAttr tpu = getKernelTpuTarget(kernel);
  int64_t vmem = tpu ? tpu.getVmemBytesPerCore() : 0;
  Dispatch dispatch =
      buildDispatch(b, loc, op, flatIdx, moeDispatchSorts(t * k, vmem), tileM);

  // The routed experts write their outputs into o, in assignment order.
  Value o = buildRoutedExperts(b, loc, op, dispatch, tileM, tileF,
                               std::min(tile.d, d), tiling.getBuffers());

  // Per M tile of tokens: the shared expert's output (or 0), plus each
  // token's routed outputs in slot order (the reference's order), its K
  // rows of o (buildCombine); rounded to the result type.
  // The shared expert's own tile (the main one when it has none).
  MlpNest<> shared = tiling.getSharedTile().empty()
                         ? MlpNest<>{tileM, tileF, tile.d}
                         : MlpNest<>::from(tiling.getSharedTile());
  int64_t tileC = std::min(shared.m, t);
  Type resElem = op.getResult().getType().getElementType();
  Value result = buildTileGrid(
      b, loc, {t}, {tileC}, emptyTile(b, loc, {b.getIndexAttr(t), dd}, resElem),
      /*gpuBlocks=*/false,
      [&](OpBuilder &tb, Location l, ValueRange ivs) -> OutputTile {
        Value t0 = ivs[0];
        OpFoldResult nm = tileExtent(tb, l, t0, tileC, t);
        Value acc;
        if (op.hasShared()) {
          int64_t fs = op.getSharedGate().getType().getDimSize(0);
          int64_t tileS = std::min(shared.f, fs);
          Value xt = sliceOf(tb, l, x, {t0, zero}, {nm, dd});
          // With D in chunks, every F tile reads x's chunks: the M tile of
          // x is copied on chip once (as TileGatedMlp's), not per chunk.
          if (shared.d < d)
            xt = copyTile(tb, l, xt, {nm, dd});
          acc = gatedTile(
              tb, l, xt, nm, d, fs, tileS, std::min(shared.d, d),
              [&](OpBuilder &wb, Location wl, Value f0, OpFoldResult nf,
                  unsigned which, OpFoldResult d0, OpFoldResult nd) {
                if (which == 2)
                  return sliceOf(wb, wl, op.getSharedDown(), {d0, f0},
                                 {nd, nf});
                return sliceOf(
                    wb, wl, which == 0 ? op.getSharedGate() : op.getSharedUp(),
                    {f0, d0}, {nf, nd});
              },
              [](OpBuilder &nb, Location l, Value g, Value u, Value) {
                return siluGate(nb, l, g, u);
              });
        } else {
          acc = filledTile(tb, l, {nm, dd}, f32, 0.0);
        }
        // In the shared expert's D chunks (D whole without one).
        Value combined =
            buildCombine(tb, l, op, o, acc, t0, nm, moeCombineTokens(tileC, k),
                         op.hasShared() ? std::min(shared.d, d) : d);
        return {castTensor(tb, l, combined, resElem), {t0, zero}, {nm, dd}};
      });
  rewriter.replaceOp(op, result);
  return success();
}
