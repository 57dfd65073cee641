//===- TileAttention.cpp - flash-attention tiling of attention kernels ----===//
//
// The kernel's npu.attention becomes, on tensors (tile [tb, tq, tkv, D,
// ts, tr], docs/cost-model-tpu.md):
//
//   q, out viewed as [B*Hkv, G, Sq, D] (the G query heads of a KV head
//   together: a query block of tq positions holds all of them, so one K/V
//   tile serves the group); key, value viewed as [B*Hkv, Skv, D].
//   for each block of tb KV heads x tq query positions:
//     (K/V held, tr > tkv: the heads' first tr keys of K and V are copied
//      on chip once per head block, before its query blocks; the K/V
//      tiles below among them are views of that copy, those past them are
//      streamed; tr = Skv: all of them, resident)
//     m = -inf, l = 0, acc = 0                    (for the whole block)
//     for each KV tile in the range some query of the block can see
//     (two loops with a held prefix: the held tiles, then the others):
//       for each sub-tile of ts positions that sees a key of the KV tile:
//         s     = scale * q k^T, -inf where masked (causal, window)
//         m'    = max(m, rowmax(s))
//         p     = exp(s - m'),  alpha = exp(m - m')
//         l     = l * alpha + rowsum(p)
//         acc   = acc * alpha + p v
//         m     = m'
//     out block = acc / l
//
// With ts = tq the sub-tile loop is not built (the block is one sub-tile).
//
// A row with no visible key yet has m' = -inf; the exponents then use 0 in
// place of m' so that p and alpha are 0, not NaN. In the latent form
// (absorbed MLA) the value tile is key[..., 0:Dv] of the same KV tile.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "Tiling.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <limits>

using namespace mlir;
using namespace mlir::npu;

namespace {
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

/// The online-softmax state of a block of queries: running max, running
/// sum ([nb, G, rows]) and running output ([nb, G, rows, Dv]), all f32.
struct SoftmaxState {
  Value m, l, acc;
};

/// The flash-attention loop nest of one npu.attention.
class FlashAttention {
public:
  FlashAttention(AttentionOp op, TilingAttr tiling, int64_t kvSplits,
                 bool gpuBlocks)
      : op(op), ctx(op.getContext()), dims(op.getDims()), gpuBlocks(gpuBlocks),
        splits(kvSplits) {
    ArrayRef<int64_t> tile = tiling.getTile();
    held = TilingAttr::getHeldKvPrefix(tiling.getLoops(), tile);
    group = dims.qHeads / dims.kvHeads;
    heads = dims.batch * dims.kvHeads;
    tileHeads = std::min(tile[0], heads);
    tileQ = std::min(tile[1], dims.qLen);
    tileKv = std::min(tile[2], dims.kvLen);
    tileSub = std::min(tile[4], tileQ);
    causal = op.getCausal();
    if (IntegerAttr w = op.getWindowAttr())
      window = w.getInt();
    scale = op.getScaleValue();
  }

  Value build(OpBuilder &b, Location loc);

  /// The result's one user if it is an npu.transpose to [B, Sq, Hq, Dv]
  /// (heads and positions swapped, as before an output projection) that
  /// the output tiles can be written in directly: each tile transposed on
  /// chip and stored into the transposed layout, so that neither layout is
  /// transposed whole.
  TransposeOp transposedUser() const {
    if (!op->hasOneUse() || splits != 1 ||
        (dims.batch != 1 && dims.kvHeads % tileHeads != 0))
      return {};
    auto t = dyn_cast<TransposeOp>(*op->getUsers().begin());
    if (!t || t.getPerm() != ArrayRef<int64_t>{0, 2, 1, 3})
      return {};
    return t;
  }

private:
  /// The KV range [begin, end) some query of [q0, q0 + nq) can see.
  std::pair<Value, Value> kvRange(OpBuilder &b, Location loc, Value q0,
                                  Value nq);
  /// The online-softmax state of the query block (m, l, acc) after the
  /// KV tiles of [begin, end).
  SmallVector<Value> buildKvLoop(OpBuilder &b, Location loc, Value b0, Value nb,
                                 Value q0, Value nq, Value begin, Value end);
  /// The loop over the KV tiles of [begin, end) from `state`, sliced from
  /// the on-chip copy (`onChip`) or from K and V.
  scf::ForOp buildKvTileLoop(OpBuilder &b, Location loc, Value b0, Value nb,
                             Value q0, Value nq, Value qt, Value begin,
                             Value end, ValueRange state, bool onChip);
  /// One KV tile against the block: directly, or sub-tile by sub-tile.
  SmallVector<Value> buildBlockStep(OpBuilder &b, Location loc, Value b0,
                                    Value nb, Value q0, Value nq, Value qt,
                                    Value k0, Value nk, ValueRange carried,
                                    bool onChip);
  Value buildQueryTile(OpBuilder &b, Location loc, Value b0, Value nb, Value q0,
                       Value nq);
  /// The tile of heads [h0, h0 + nh) (of the B*H heads) and rows [s0, s0 +
  /// ns) of K or V (`v`, [B, H, S, D]), as [nh, ns, D]. Taken through an
  /// npu.concat along D (a tile per input, concatenated on chip) and an
  /// npu.broadcast along the heads (one head's rows, repeated) of the body,
  /// so that these are never computed whole (MLA's K = concat(k_nope,
  /// broadcast(k_rope))).
  Value kvTile(OpBuilder &b, Location loc, Value v, Value h0, OpFoldResult nh,
               OpFoldResult s0, OpFoldResult ns,
               std::optional<int64_t> width = {});
  /// The [B*H, S, D] (K, V) or [B*Hkv, G, S, D] (Q) views of the values
  /// tiles are sliced from, made before the loops (qViews, kvViews): Q, K
  /// and V, or the inputs of the concats and broadcasts they are taken
  /// through.
  void makeViews(OpBuilder &b, Location loc, Value x, bool query);
  /// The query block [nb, G, nq, D] of KV heads [b0, b0 + nb) at rows q0 of
  /// Q (`v`, [B, Hq, Sq, D]), through an npu.concat along D likewise.
  Value qTile(OpBuilder &b, Location loc, Value v, Value b0, Value nb, Value q0,
              Value nq);
  /// `tiles` (of dynamic sizes, the same but in the last dim) side by side
  /// along the last dim, in a tile of static size `bound` (the largest
  /// tile) of which the result is the used part. (tensor.concat of the
  /// dynamic tiles would bufferize to views of a view, which a folded
  /// empty prefetch past the last tile makes invalid.)
  Value concatTiles(OpBuilder &b, Location loc, ArrayRef<Value> tiles,
                    ArrayRef<int64_t> bound);
  /// The static bound of a K/V tile's row count.
  int64_t tileRowsBound(OpFoldResult rows) const {
    if (std::optional<int64_t> n = getConstantIntValue(rows))
      return *n;
    return tileKv;
  }
  /// K/V held: the head block's first `held` keys of K and V copied on
  /// chip (kHeld, vHeld), for its query blocks to slice K/V tiles from.
  void copyKvOnChip(OpBuilder &b, Location loc, Value b0, Value nb);
  /// Split `split` of the query block's KV range: its state as one
  /// [1, nb, G, nq, Dv + 2] f32 partial (acc, then m, then l).
  Value buildPartial(OpBuilder &b, Location loc, Value b0, Value nb, Value q0,
                     Value nq, Value split);
  /// The output [heads, G, Sq, Dv] from the partials [splits, heads, G, Sq,
  /// Dv + 2]: rescaled to their common max and summed.
  Value combine(OpBuilder &b, Location loc, Value partials);
  /// The update of the state of queries [q0, q0 + nq) (tile `qt`) by the KV
  /// tile (`kt`, `vt`) of nk keys at k0.
  SmallVector<Value> buildKvStep(OpBuilder &b, Location loc, Value nb, Value q0,
                                 Value nq, Value qt, Value k0, Value nk,
                                 Value kt, Value vt, SoftmaxState state);
  /// acc / l over a block of `sizes` [.., Dv], rounded to the result type.
  Value normalize(OpBuilder &b, Location loc, Value acc, Value l,
                  ArrayRef<OpFoldResult> sizes);
  /// m, or 0 where m = -inf (a row that has seen no key yet).
  static Value safeMax(OpBuilder &b, Location loc, Value m) {
    Value ninf = f32Const(b, loc, kNegInf);
    Value isInf =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, m, ninf);
    return arith::SelectOp::create(b, loc, isInf, f32Const(b, loc, 0.0), m);
  }
  AffineMap map(unsigned n, ArrayRef<unsigned> dims) const {
    return loopsMap(ctx, n, dims);
  }
  /// Sizes [nb, G, nq] (and `last` if given) of a block's tensors.
  SmallVector<OpFoldResult> blockSizes(OpBuilder &b, Value nb, Value nq,
                                       std::optional<int64_t> last = {}) {
    SmallVector<OpFoldResult> sizes = {nb, b.getIndexAttr(group), nq};
    if (last)
      sizes.push_back(b.getIndexAttr(*last));
    return sizes;
  }

  AttentionOp op;
  MLIRContext *ctx;
  AttentionOp::Dims dims;
  bool gpuBlocks; ///< the (head, query) tile loops as a thread-block grid
  int64_t splits; ///< split KV: blocks per query tile, each a part of its KV
  /// Keys of each head copied on chip once per head block (0: none, Skv:
  /// all of them).
  int64_t held = 0;
  int64_t group, heads, tileHeads, tileQ, tileKv, tileSub;
  bool causal;
  std::optional<int64_t> window;
  double scale;
  /// Q, K and V as the graph gives them (V null in the latent form: the
  /// value tile is the key tile's first Dv columns).
  Value q, k, v;
  /// The views of makeViews, for Q's tiles and for K's and V's (one value
  /// may be both: self-attention on one tensor).
  llvm::DenseMap<Value, Value> qViews, kvViews;
  /// The on-chip copies of the head block's held keys ([nb, held, D]).
  Value kHeld, vHeld;
};

Value FlashAttention::build(OpBuilder &b, Location loc) {
  Type resElem = op.getResult().getType().getElementType();
  int64_t B = dims.batch, Hkv = dims.kvHeads, Sq = dims.qLen;
  using RI = ReassociationIndices;
  q = op.getQuery();
  k = op.getKey();
  v = op.getValue();
  makeViews(b, loc, q, /*query=*/true);
  makeViews(b, loc, k, /*query=*/false);
  if (v)
    makeViews(b, loc, v, /*query=*/false);

  // One tile per (KV heads, query positions) block; on a GPU-like target
  // the grid of thread blocks. Split KV: `splits` blocks per tile write
  // partials, which are then combined.
  OpFoldResult zero = b.getIndexAttr(0), all = b.getIndexAttr(group);
  Value out;
  // K/V held: the head loop's body copies the head block's held K/V on
  // chip before the query-block loop.
  auto copyHeads = [&](OpBuilder &hb, Location hl, unsigned d, ValueRange ivs) {
    if (d == 0)
      copyKvOnChip(hb, hl, ivs[0], tileSize(hb, hl, ivs[0], tileHeads, heads));
  };
  if (splits == 1) {
    // The output [B*Hkv, G, Sq, Dv]; folding a transpose to [B, Sq, Hq, Dv]
    // (transposedUser), [B, Sq, Hkv, G, Dv] with each [nb, G, nq, Dv] tile
    // stored as [1, nq, nb, G, Dv] at (batch, q0, head).
    bool transposed = static_cast<bool>(transposedUser());
    Value outInit =
        transposed
            ? tensor::EmptyOp::create(
                  b, loc, ArrayRef<int64_t>{B, Sq, Hkv, group, dims.vDim},
                  resElem)
            : tensor::EmptyOp::create(
                  b, loc, ArrayRef<int64_t>{heads, group, Sq, dims.vDim},
                  resElem);
    Value hkv =
        transposed ? arith::ConstantIndexOp::create(b, loc, Hkv) : Value();
    out = buildTileGrid(
        b, loc, {heads, Sq}, {tileHeads, tileQ}, outInit, gpuBlocks,
        [&](OpBuilder &qb, Location ql, ValueRange ivs) -> OutputTile {
          Value b0 = ivs[0], q0 = ivs[1];
          Value nb = tileSize(qb, ql, b0, tileHeads, heads);
          Value nq = tileSize(qb, ql, q0, tileQ, Sq);
          Value tile = buildQueryTile(qb, ql, b0, nb, q0, nq);
          OpFoldResult dv = qb.getIndexAttr(dims.vDim);
          if (!transposed)
            return {tile, {b0, zero, q0, zero}, {nb, all, nq, dv}};
          SmallVector<OpFoldResult> sizes = {qb.getIndexAttr(1), nq, nb, all,
                                             dv};
          AffineMap swap = AffineMap::get(
              5, 0,
              {getAffineDimExpr(2, ctx), getAffineDimExpr(3, ctx),
               getAffineDimExpr(1, ctx), getAffineDimExpr(4, ctx)},
              ctx);
          Value moved = buildGeneric(
              qb, ql, ValueRange{tile},
              ValueRange{emptyTile(qb, ql, sizes, resElem)},
              {swap, qb.getMultiDimIdentityMap(5)},
              SmallVector<utils::IteratorType>(5,
                                               utils::IteratorType::parallel),
              [](OpBuilder &, Location, ValueRange a) -> SmallVector<Value> {
                return {a[0]};
              })[0];
          return {moved,
                  {arith::DivUIOp::create(qb, ql, b0, hkv).getResult(), q0,
                   arith::RemUIOp::create(qb, ql, b0, hkv).getResult(), zero,
                   zero},
                  sizes};
        },
        held > 0
            ? function_ref<void(OpBuilder &, Location, unsigned, ValueRange)>(
                  copyHeads)
            : nullptr);
    // [B, Sq, Hkv, G, Dv] -> [B, Sq, Hq, Dv]: the transpose's result.
    if (transposed)
      return tensor::CollapseShapeOp::create(
          b, loc, out, SmallVector<RI>{{0}, {1}, {2, 3}, {4}});
  } else {
    Value partInit = tensor::EmptyOp::create(
        b, loc, ArrayRef<int64_t>{splits, heads, group, Sq, dims.vDim + 2},
        b.getF32Type());
    Value partials = buildTileGrid(
        b, loc, {heads, Sq, splits}, {tileHeads, tileQ, 1}, partInit, gpuBlocks,
        [&](OpBuilder &qb, Location ql, ValueRange ivs) -> OutputTile {
          Value b0 = ivs[0], q0 = ivs[1], sp = ivs[2];
          Value nb = tileSize(qb, ql, b0, tileHeads, heads);
          Value nq = tileSize(qb, ql, q0, tileQ, Sq);
          return {buildPartial(qb, ql, b0, nb, q0, nq, sp),
                  {sp, b0, zero, q0, zero},
                  {qb.getIndexAttr(1), nb, all, nq,
                   qb.getIndexAttr(dims.vDim + 2)}};
        });
    out = combine(b, loc, partials);
  }
  // [B*Hkv, G, Sq, Dv] -> [B, Hkv, G, Sq, Dv] -> [B, Hq, Sq, Dv].
  Value o5 = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({B, Hkv, group, Sq, dims.vDim}, resElem),
      out, SmallVector<RI>{{0, 1}, {2}, {3}, {4}});
  return tensor::CollapseShapeOp::create(
      b, loc, o5, SmallVector<RI>{{0}, {1, 2}, {3}, {4}});
}

std::pair<Value, Value> FlashAttention::kvRange(OpBuilder &b, Location loc,
                                                Value q0, Value nq) {
  // Query i sees keys [i + off - window + 1, i + off], off = Skv - Sq.
  Value kvBegin = constIndex(b, loc, 0), kvEnd = constIndex(b, loc, dims.kvLen);
  if (!causal)
    return {kvBegin, kvEnd};
  int64_t off = dims.kvLen - dims.qLen;
  kvEnd = arith::AddIOp::create(b, loc, arith::AddIOp::create(b, loc, q0, nq),
                                constIndex(b, loc, off));
  if (window) {
    Value lo = arith::AddIOp::create(b, loc, q0,
                                     constIndex(b, loc, off - *window + 1));
    kvBegin = arith::MaxSIOp::create(b, loc, lo, constIndex(b, loc, 0));
  }
  return {kvBegin, kvEnd};
}

SmallVector<Value> FlashAttention::buildKvLoop(OpBuilder &b, Location loc,
                                               Value b0, Value nb, Value q0,
                                               Value nq, Value begin,
                                               Value end) {
  Type f32 = b.getF32Type();
  OpFoldResult zero = b.getIndexAttr(0);
  Value qt = qTile(b, loc, q, b0, nb, q0, nq);
  // A block computed in sub-tiles is copied on chip once (a buffer of its
  // own: its sub-tiles are views of it, not loads of their own).
  if (tileSub < tileQ)
    qt = bufferization::AllocTensorOp::create(
        b, loc, cast<RankedTensorType>(qt.getType()), ValueRange{},
        /*copy=*/qt);
  SmallVector<Value> state = {
      filledTile(b, loc, blockSizes(b, nb, nq), f32, kNegInf),
      filledTile(b, loc, blockSizes(b, nb, nq), f32, 0.0),
      filledTile(b, loc, blockSizes(b, nb, nq, dims.vDim), f32, 0.0)};
  if (held == 0 || held == dims.kvLen)
    return buildKvTileLoop(b, loc, b0, nb, q0, nq, qt, begin, end, state,
                           /*onChip=*/held > 0)
        .getResults();
  // The held tiles of the range, [begin, min(end, held)), then the
  // streamed ones, [max(begin, held), end) (either may be empty; held is a
  // multiple of the K/V tile, so both start on a tile boundary).
  Value heldEnd = constIndex(b, loc, held);
  scf::ForOp onChip = buildKvTileLoop(
      b, loc, b0, nb, q0, nq, qt, begin,
      arith::MinSIOp::create(b, loc, end, heldEnd), state, /*onChip=*/true);
  return buildKvTileLoop(b, loc, b0, nb, q0, nq, qt,
                         arith::MaxSIOp::create(b, loc, begin, heldEnd), end,
                         onChip.getResults(), /*onChip=*/false)
      .getResults();
}

scf::ForOp FlashAttention::buildKvTileLoop(OpBuilder &b, Location loc, Value b0,
                                           Value nb, Value q0, Value nq,
                                           Value qt, Value begin, Value end,
                                           ValueRange state, bool onChip) {
  return scf::ForOp::create(
      b, loc, begin, end, constIndex(b, loc, tileKv), state,
      [&](OpBuilder &kb, Location kl, Value k0, ValueRange carried) {
        Value rest = arith::SubIOp::create(kb, kl, end, k0);
        Value nk =
            arith::MinSIOp::create(kb, kl, constIndex(kb, kl, tileKv), rest);
        scf::YieldOp::create(kb, kl,
                             buildBlockStep(kb, kl, b0, nb, q0, nq, qt, k0, nk,
                                            carried, onChip));
      });
}

SmallVector<Value> FlashAttention::buildBlockStep(OpBuilder &b, Location loc,
                                                  Value b0, Value nb, Value q0,
                                                  Value nq, Value qt, Value k0,
                                                  Value nk, ValueRange carried,
                                                  bool onChip) {
  OpFoldResult zero = b.getIndexAttr(0);
  // The KV tile, loaded once for all sub-tiles (or a view of the on-chip
  // copy, at head 0). Latent form: vc is kc, and the value tile its first
  // Dv columns.
  Value kt, vt;
  if (onChip) {
    kt = sliceOf(b, loc, kHeld, {zero, k0, zero},
                 {nb, nk, b.getIndexAttr(dims.qkDim)});
    vt = sliceOf(b, loc, vHeld, {zero, k0, zero},
                 {nb, nk, b.getIndexAttr(dims.vDim)});
  } else {
    kt = kvTile(b, loc, k, b0, nb, k0, nk);
    vt = v ? kvTile(b, loc, v, b0, nb, k0, nk)
           : kvTile(b, loc, k, b0, nb, k0, nk, dims.vDim);
  }
  if (tileSub >= tileQ)
    return buildKvStep(b, loc, nb, q0, nq, qt, k0, nk, kt, vt,
                       {carried[0], carried[1], carried[2]});
  // The sub-tiles [sLo, sHi) of the block (offsets from q0) that see a key
  // of [k0, k0 + nk): their last query at or past k0 - off and, with a
  // window, their first before k0 + nk - 1 - off + window.
  int64_t off = dims.kvLen - dims.qLen;
  Value sLo = constIndex(b, loc, 0), sHi = nq;
  if (causal) {
    Value first = arith::SubIOp::create(
        b, loc, k0, arith::AddIOp::create(b, loc, q0, constIndex(b, loc, off)));
    first = arith::MaxSIOp::create(b, loc, first, constIndex(b, loc, 0));
    sLo = arith::MulIOp::create(
        b, loc,
        arith::DivUIOp::create(b, loc, first, constIndex(b, loc, tileSub)),
        constIndex(b, loc, tileSub));
    if (window) {
      Value end = arith::SubIOp::create(
          b, loc, arith::AddIOp::create(b, loc, k0, nk),
          arith::AddIOp::create(b, loc, q0,
                                constIndex(b, loc, off - *window + 1)));
      sHi = arith::MinSIOp::create(b, loc, end, nq);
    }
  }
  auto sub = scf::ForOp::create(
      b, loc, sLo, sHi, constIndex(b, loc, tileSub), carried,
      [&](OpBuilder &sb, Location sl, Value s0, ValueRange st) {
        Value rest = arith::SubIOp::create(sb, sl, nq, s0);
        Value ns =
            arith::MinSIOp::create(sb, sl, constIndex(sb, sl, tileSub), rest);
        SmallVector<OpFoldResult> at = {zero, zero, s0},
                                  atD = {zero, zero, s0, zero};
        Value qs = sliceOf(sb, sl, qt, atD, blockSizes(sb, nb, ns, dims.qkDim));
        SoftmaxState part = {
            sliceOf(sb, sl, st[0], at, blockSizes(sb, nb, ns)),
            sliceOf(sb, sl, st[1], at, blockSizes(sb, nb, ns)),
            sliceOf(sb, sl, st[2], atD, blockSizes(sb, nb, ns, dims.vDim))};
        Value qStart = arith::AddIOp::create(sb, sl, q0, s0);
        SmallVector<Value> next =
            buildKvStep(sb, sl, nb, qStart, ns, qs, k0, nk, kt, vt, part);
        SmallVector<Value> yields;
        for (auto [i, v] : llvm::enumerate(next)) {
          SmallVector<OpFoldResult> offsets = i == 2 ? atD : at;
          SmallVector<OpFoldResult> sizes =
              i == 2 ? blockSizes(sb, nb, ns, dims.vDim)
                     : blockSizes(sb, nb, ns);
          SmallVector<OpFoldResult> strides(sizes.size(), sb.getIndexAttr(1));
          yields.push_back(tensor::InsertSliceOp::create(
              sb, sl, v, st[i], offsets, sizes, strides));
        }
        scf::YieldOp::create(sb, sl, yields);
      });
  return SmallVector<Value>(sub.getResults());
}

Value FlashAttention::buildQueryTile(OpBuilder &b, Location loc, Value b0,
                                     Value nb, Value q0, Value nq) {
  auto [kvBegin, kvEnd] = kvRange(b, loc, q0, nq);
  SmallVector<Value> state =
      buildKvLoop(b, loc, b0, nb, q0, nq, kvBegin, kvEnd);
  return normalize(b, loc, state[2], state[1],
                   blockSizes(b, nb, nq, dims.vDim));
}

/// The [B, 1, S, D] input of `x` if `x` is an npu.broadcast of it along
/// the heads whose tiles of `tileHeads` heads stay within one batch
/// element.
static Value headBroadcastInput(Value x, int64_t tileHeads) {
  auto bc = x.getDefiningOp<BroadcastOp>();
  if (!bc)
    return nullptr;
  auto type = cast<RankedTensorType>(x.getType());
  auto in = cast<RankedTensorType>(bc.getInput().getType());
  int64_t B = type.getDimSize(0), H = type.getDimSize(1);
  if (in.getShape() !=
          ArrayRef<int64_t>{B, 1, type.getDimSize(2), type.getDimSize(3)} ||
      (B != 1 && H % tileHeads != 0))
    return nullptr;
  return bc.getInput();
}

/// `x`'s defining npu.concat if it joins along the last of 4 dims.
static ConcatOp lastDimConcat(Value x) {
  auto cat = x.getDefiningOp<ConcatOp>();
  return cat && cat.getDim() == 3 ? cat : ConcatOp();
}

void FlashAttention::makeViews(OpBuilder &b, Location loc, Value x,
                               bool query) {
  using RI = ReassociationIndices;
  llvm::DenseMap<Value, Value> &views = query ? qViews : kvViews;
  if (views.count(x))
    return;
  if (ConcatOp cat = lastDimConcat(x)) {
    for (Value in : cat.getInputs())
      makeViews(b, loc, in, query);
    return;
  }
  auto type = cast<RankedTensorType>(x.getType());
  if (!query) {
    Value in = headBroadcastInput(x, tileHeads);
    // [B, H, S, D] -> [B*H, S, D]; a broadcast's input [B, 1, S, D] ->
    // [B, S, D].
    views[x] = tensor::CollapseShapeOp::create(
        b, loc, in ? in : x, SmallVector<RI>{{0, 1}, {2}, {3}});
    return;
  }
  // [B, Hq, Sq, D] -> [B, Hkv, G, Sq, D] -> [B*Hkv, G, Sq, D].
  Value q5 = tensor::ExpandShapeOp::create(
      b, loc,
      RankedTensorType::get({type.getDimSize(0), dims.kvHeads, group,
                             type.getDimSize(2), type.getDimSize(3)},
                            type.getElementType()),
      x, SmallVector<RI>{{0}, {1, 2}, {3}, {4}});
  views[x] = tensor::CollapseShapeOp::create(
      b, loc, q5, SmallVector<RI>{{0, 1}, {2}, {3}, {4}});
}

Value FlashAttention::kvTile(OpBuilder &b, Location loc, Value x, Value h0,
                             OpFoldResult nh, OpFoldResult s0, OpFoldResult ns,
                             std::optional<int64_t> width) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t H = type.getDimSize(1), D = type.getDimSize(3);
  OpFoldResult zero = b.getIndexAttr(0);
  OpFoldResult cols = b.getIndexAttr(width.value_or(D));
  if (ConcatOp cat = lastDimConcat(x)) {
    SmallVector<Value> tiles;
    for (Value in : cat.getInputs())
      tiles.push_back(kvTile(b, loc, in, h0, nh, s0, ns));
    Value tile = concatTiles(b, loc, tiles, {tileHeads, tileRowsBound(ns), D});
    return width ? sliceOf(b, loc, tile, {zero, zero, zero}, {nh, ns, cols})
                 : tile;
  }
  if (headBroadcastInput(x, tileHeads)) {
    // One head's rows (of the tile's batch element), repeated.
    Value batch = arith::DivUIOp::create(
        b, loc, h0, arith::ConstantIndexOp::create(b, loc, H));
    Value rows = sliceOf(b, loc, kvViews.lookup(x), {batch, s0, zero},
                         {b.getIndexAttr(1), ns, cols});
    AffineMap first =
        AffineMap::get(3, 0,
                       {getAffineConstantExpr(0, ctx), getAffineDimExpr(1, ctx),
                        getAffineDimExpr(2, ctx)},
                       ctx);
    return buildGeneric(
        b, loc, ValueRange{rows},
        ValueRange{emptyTile(b, loc, {nh, ns, cols}, type.getElementType())},
        {first, b.getMultiDimIdentityMap(3)},
        {utils::IteratorType::parallel, utils::IteratorType::parallel,
         utils::IteratorType::parallel},
        [](OpBuilder &, Location, ValueRange a) -> SmallVector<Value> {
          return {a[0]};
        })[0];
  }
  return sliceOf(b, loc, kvViews.lookup(x), {h0, s0, zero}, {nh, ns, cols});
}

Value FlashAttention::concatTiles(OpBuilder &b, Location loc,
                                  ArrayRef<Value> tiles,
                                  ArrayRef<int64_t> bound) {
  auto first = cast<RankedTensorType>(tiles.front().getType());
  unsigned rank = first.getRank();
  SmallVector<OpFoldResult> sizes =
      tensor::getMixedSizes(b, loc, tiles.front());
  Value full = tensor::EmptyOp::create(b, loc, bound, first.getElementType());
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  int64_t column = 0;
  for (Value t : tiles) {
    int64_t width = cast<RankedTensorType>(t.getType()).getShape().back();
    offsets.back() = b.getIndexAttr(column);
    sizes.back() = b.getIndexAttr(width);
    full = insertSliceOf(b, loc, t, full, offsets, sizes);
    column += width;
  }
  offsets.back() = b.getIndexAttr(0);
  sizes.back() = b.getIndexAttr(column);
  return sliceOf(b, loc, full, offsets, sizes);
}

Value FlashAttention::qTile(OpBuilder &b, Location loc, Value x, Value b0,
                            Value nb, Value q0, Value nq) {
  if (ConcatOp cat = lastDimConcat(x)) {
    SmallVector<Value> tiles;
    for (Value in : cat.getInputs())
      tiles.push_back(qTile(b, loc, in, b0, nb, q0, nq));
    return concatTiles(b, loc, tiles,
                       {tileHeads, group, tileQ,
                        cast<RankedTensorType>(x.getType()).getDimSize(3)});
  }
  OpFoldResult zero = b.getIndexAttr(0);
  return sliceOf(
      b, loc, qViews.lookup(x), {b0, zero, q0, zero},
      blockSizes(b, nb, nq, cast<RankedTensorType>(x.getType()).getDimSize(3)));
}

void FlashAttention::copyKvOnChip(OpBuilder &b, Location loc, Value b0,
                                  Value nb) {
  OpFoldResult zero = b.getIndexAttr(0);
  // One copy per tensor (one DMA each on the TPU-like path); the latent
  // form's value tiles are views of the key copy.
  auto copy = [&](Value src) -> Value {
    Value heads = kvTile(b, loc, src, b0, nb, zero, b.getIndexAttr(held));
    return bufferization::AllocTensorOp::create(
        b, loc, cast<RankedTensorType>(heads.getType()), ValueRange{},
        /*copy=*/heads);
  };
  kHeld = copy(k);
  vHeld = v ? copy(v) : kHeld;
}

Value FlashAttention::normalize(OpBuilder &b, Location loc, Value acc, Value l,
                                ArrayRef<OpFoldResult> sizes) {
  Type resElem = op.getResult().getType().getElementType();
  return buildGeneric(
      b, loc, ValueRange{acc, l}, ValueRange{emptyTile(b, loc, sizes, resElem)},
      {map(4, {0, 1, 2, 3}), map(4, {0, 1, 2}), map(4, {0, 1, 2, 3})},
      {kPar, kPar, kPar, kPar},
      [&](OpBuilder &nb2, Location l2, ValueRange a) -> SmallVector<Value> {
        Value x = arith::DivFOp::create(nb2, l2, a[0], a[1]);
        return {castFloat(nb2, l2, x, resElem)};
      })[0];
}

Value FlashAttention::buildPartial(OpBuilder &b, Location loc, Value b0,
                                   Value nb, Value q0, Value nq, Value split) {
  // The range's KV tiles in `splits` parts of equally many whole tiles
  // (the last parts may be short or empty).
  auto [kvBegin, kvEnd] = kvRange(b, loc, q0, nq);
  Value len = arith::SubIOp::create(b, loc, kvEnd, kvBegin);
  Value tiles =
      arith::CeilDivSIOp::create(b, loc, len, constIndex(b, loc, tileKv));
  Value per = arith::MulIOp::create(
      b, loc,
      arith::CeilDivSIOp::create(b, loc, tiles, constIndex(b, loc, splits)),
      constIndex(b, loc, tileKv));
  Value lo = arith::MinSIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, kvBegin,
                            arith::MulIOp::create(b, loc, split, per)),
      kvEnd);
  Value hi = arith::MinSIOp::create(
      b, loc, arith::AddIOp::create(b, loc, lo, per), kvEnd);
  SmallVector<Value> state = buildKvLoop(b, loc, b0, nb, q0, nq, lo, hi);
  // [acc | m | l] in one f32 tile of the partials.
  OpFoldResult one = b.getIndexAttr(1), zero = b.getIndexAttr(0),
               all = b.getIndexAttr(group);
  Value part =
      emptyTile(b, loc, {one, nb, all, nq, b.getIndexAttr(dims.vDim + 2)},
                b.getF32Type());
  SmallVector<OpFoldResult> strides(5, one);
  part = tensor::InsertSliceOp::create(
      b, loc, state[2], part, SmallVector<OpFoldResult>(5, zero),
      SmallVector<OpFoldResult>{one, nb, all, nq, b.getIndexAttr(dims.vDim)},
      strides);
  for (auto [i, col] :
       llvm::enumerate(SmallVector<int64_t>{dims.vDim, dims.vDim + 1}))
    part = tensor::InsertSliceOp::create(
        b, loc, state[i], part,
        SmallVector<OpFoldResult>{zero, zero, zero, zero, b.getIndexAttr(col)},
        SmallVector<OpFoldResult>{one, nb, all, nq, one}, strides);
  return part;
}

Value FlashAttention::combine(OpBuilder &b, Location loc, Value partials) {
  Type f32 = b.getF32Type();
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  // Columns [col, col + width) of the partials; a single column drops its
  // dim.
  auto columns = [&](int64_t col, int64_t width) -> Value {
    SmallVector<int64_t> shape = {splits, heads, group, dims.qLen};
    if (width > 1)
      shape.push_back(width);
    return tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get(shape, f32), partials,
        SmallVector<OpFoldResult>{zero, zero, zero, zero, b.getIndexAttr(col)},
        SmallVector<OpFoldResult>{b.getIndexAttr(splits), b.getIndexAttr(heads),
                                  b.getIndexAttr(group),
                                  b.getIndexAttr(dims.qLen),
                                  b.getIndexAttr(width)},
        SmallVector<OpFoldResult>(5, one));
  };
  Value acc = columns(0, dims.vDim), m = columns(dims.vDim, 1),
        l = columns(dims.vDim + 1, 1);
  SmallVector<OpFoldResult> rowSizes = {
      b.getIndexAttr(heads), b.getIndexAttr(group), b.getIndexAttr(dims.qLen)};
  SmallVector<OpFoldResult> outSizes = {rowSizes[0], rowSizes[1], rowSizes[2],
                                        b.getIndexAttr(dims.vDim)};
  // Loops (s, h, g, r): the common max, each split's weight exp(m_s - max)
  // (0 for an empty split), the common sum.
  AffineMap sRow = map(4, {0, 1, 2, 3}), row = map(4, {1, 2, 3});
  Value mMax = buildGeneric(
      b, loc, ValueRange{m},
      ValueRange{filledTile(b, loc, rowSizes, f32, kNegInf)}, {sRow, row},
      {kRed, kPar, kPar, kPar},
      [&](OpBuilder &nb2, Location l2, ValueRange a) -> SmallVector<Value> {
        return {arith::MaximumFOp::create(nb2, l2, a[0], a[1])};
      })[0];
  Value w = buildGeneric(
      b, loc, ValueRange{m, mMax},
      ValueRange{emptyTile(
          b, loc,
          {b.getIndexAttr(splits), rowSizes[0], rowSizes[1], rowSizes[2]},
          f32)},
      {sRow, row, sRow}, {kPar, kPar, kPar, kPar},
      [&](OpBuilder &nb2, Location l2, ValueRange a) -> SmallVector<Value> {
        Value x = arith::SubFOp::create(nb2, l2, a[0], safeMax(nb2, l2, a[1]));
        return {math::ExpOp::create(nb2, l2, x)};
      })[0];
  Value lSum = buildGeneric(
      b, loc, ValueRange{l, w},
      ValueRange{filledTile(b, loc, rowSizes, f32, 0.0)}, {sRow, sRow, row},
      {kRed, kPar, kPar, kPar},
      [&](OpBuilder &nb2, Location l2, ValueRange a) -> SmallVector<Value> {
        Value x = arith::MulFOp::create(nb2, l2, a[0], a[1]);
        return {arith::AddFOp::create(nb2, l2, a[2], x)};
      })[0];
  // Loops (s, h, g, r, d): the weighted sum of the accumulators.
  Value accSum = buildGeneric(
      b, loc, ValueRange{acc, w},
      ValueRange{filledTile(b, loc, outSizes, f32, 0.0)},
      {map(5, {0, 1, 2, 3, 4}), map(5, {0, 1, 2, 3}), map(5, {1, 2, 3, 4})},
      {kRed, kPar, kPar, kPar, kPar},
      [&](OpBuilder &nb2, Location l2, ValueRange a) -> SmallVector<Value> {
        Value x = arith::MulFOp::create(nb2, l2, a[0], a[1]);
        return {arith::AddFOp::create(nb2, l2, a[2], x)};
      })[0];
  return normalize(b, loc, accSum, lSum, outSizes);
}

SmallVector<Value> FlashAttention::buildKvStep(OpBuilder &b, Location loc,
                                               Value nb, Value q0, Value nq,
                                               Value qt, Value k0, Value nk,
                                               Value kt, Value vt,
                                               SoftmaxState state) {
  Type f32 = b.getF32Type();
  Value m = state.m, l = state.l, acc = state.acc;
  SmallVector<OpFoldResult> rowSizes = blockSizes(b, nb, nq);
  SmallVector<OpFoldResult> scoreSizes = {nb, b.getIndexAttr(group), nq, nk};
  // Loops (b, g, i[, j or c]): rows are (KV head, query head, query).
  AffineMap id3 = map(3, {0, 1, 2}), id4 = map(4, {0, 1, 2, 3}),
            row4 = map(4, {0, 1, 2});

  // s = q k^T. Loops (b, g, i, j, d).
  Value s = buildGeneric(
      b, loc, ValueRange{qt, kt},
      ValueRange{filledTile(b, loc, scoreSizes, f32, 0.0)},
      {map(5, {0, 1, 2, 4}), map(5, {0, 3, 4}), map(5, {0, 1, 2, 3})},
      {kPar, kPar, kPar, kPar, kRed},
      [&](OpBuilder &nb2, Location l2, ValueRange a) -> SmallVector<Value> {
        Value p = arith::MulFOp::create(nb2, l2, castFloat(nb2, l2, a[0], f32),
                                        castFloat(nb2, l2, a[1], f32));
        return {arith::AddFOp::create(nb2, l2, a[2], p)};
      })[0];

  // logits = scale * s, -inf where masked, in place of s (one score tile
  // on chip: p overwrites the logits below too). Query q0 + i is at
  // position Skv - Sq + q0 + i; key k0 + j is visible iff it is at most
  // that position (and within the window).
  Value logits = buildGeneric(
      b, loc, ValueRange{}, ValueRange{s}, {id4}, {kPar, kPar, kPar, kPar},
      [&](OpBuilder &nb2, Location l2, ValueRange a) -> SmallVector<Value> {
        Value x =
            arith::MulFOp::create(nb2, l2, a[0], f32Const(nb2, l2, scale));
        if (!causal)
          return {x};
        Value pos = arith::AddIOp::create(
            nb2, l2,
            arith::AddIOp::create(nb2, l2, q0,
                                  linalg::IndexOp::create(nb2, l2, 2)),
            constIndex(nb2, l2, dims.kvLen - dims.qLen));
        Value j = arith::AddIOp::create(nb2, l2, k0,
                                        linalg::IndexOp::create(nb2, l2, 3));
        Value visible =
            arith::CmpIOp::create(nb2, l2, arith::CmpIPredicate::sle, j, pos);
        if (window) {
          Value lo =
              arith::SubIOp::create(nb2, l2, pos, constIndex(nb2, l2, *window));
          visible = arith::AndIOp::create(
              nb2, l2, visible,
              arith::CmpIOp::create(nb2, l2, arith::CmpIPredicate::sgt, j, lo));
        }
        return {arith::SelectOp::create(nb2, l2, visible, x,
                                        f32Const(nb2, l2, kNegInf))};
      })[0];

  // m' = max(m, rowmax(logits)), in a new tensor: m is read again below.
  Value rowMax = buildGeneric(
      b, loc, ValueRange{logits},
      ValueRange{filledTile(b, loc, rowSizes, f32, kNegInf)}, {id4, row4},
      {kPar, kPar, kPar, kRed},
      [&](OpBuilder &nb2, Location l2, ValueRange a) -> SmallVector<Value> {
        return {arith::MaximumFOp::create(nb2, l2, a[0], a[1])};
      })[0];
  Value mNew = buildGeneric(
      b, loc, ValueRange{m, rowMax},
      ValueRange{emptyTile(b, loc, rowSizes, f32)}, {id3, id3, id3},
      {kPar, kPar, kPar},
      [&](OpBuilder &nb2, Location l2, ValueRange a) -> SmallVector<Value> {
        return {arith::MaximumFOp::create(nb2, l2, a[0], a[1])};
      })[0];
  // p = exp(logits - m'), in place of the logits (read last by rowMax).
  Value p = buildGeneric(
      b, loc, ValueRange{mNew}, ValueRange{logits}, {row4, id4},
      {kPar, kPar, kPar, kPar},
      [&](OpBuilder &nb2, Location l2, ValueRange a) -> SmallVector<Value> {
        Value x = arith::SubFOp::create(nb2, l2, a[1], safeMax(nb2, l2, a[0]));
        return {math::ExpOp::create(nb2, l2, x)};
      })[0];
  // alpha = exp(m - m'), the rescaling of what was accumulated so far.
  Value alpha = buildGeneric(
      b, loc, ValueRange{m, mNew}, ValueRange{emptyTile(b, loc, rowSizes, f32)},
      {id3, id3, id3}, {kPar, kPar, kPar},
      [&](OpBuilder &nb2, Location l2, ValueRange a) -> SmallVector<Value> {
        Value x = arith::SubFOp::create(nb2, l2, a[0], safeMax(nb2, l2, a[1]));
        return {math::ExpOp::create(nb2, l2, x)};
      })[0];
  // The carried values are updated in place (the loop's yields must be
  // its iteration arguments for bufferization): l and acc are scaled in
  // their own tensors, and m' is copied into m after its last read.
  auto scaleBy = [&](OpBuilder &nb2, Location l2,
                     ValueRange a) -> SmallVector<Value> {
    return {arith::MulFOp::create(nb2, l2, a[1], a[0])};
  };
  // l' = l * alpha + rowsum(p).
  Value lScaled = buildGeneric(b, loc, ValueRange{alpha}, ValueRange{l},
                               {id3, id3}, {kPar, kPar, kPar}, scaleBy)[0];
  Value lNew = buildGeneric(
      b, loc, ValueRange{p}, ValueRange{lScaled}, {id4, row4},
      {kPar, kPar, kPar, kRed},
      [&](OpBuilder &nb2, Location l2, ValueRange a) -> SmallVector<Value> {
        return {arith::AddFOp::create(nb2, l2, a[1], a[0])};
      })[0];
  // acc' = acc * alpha + p v. Loops (b, g, i, c, j).
  Value accScaled =
      buildGeneric(b, loc, ValueRange{alpha}, ValueRange{acc}, {row4, id4},
                   {kPar, kPar, kPar, kPar}, scaleBy)[0];
  Value accNew = buildGeneric(
      b, loc, ValueRange{p, vt}, ValueRange{accScaled},
      {map(5, {0, 1, 2, 4}), map(5, {0, 4, 3}), map(5, {0, 1, 2, 3})},
      {kPar, kPar, kPar, kPar, kRed},
      [&](OpBuilder &nb2, Location l2, ValueRange a) -> SmallVector<Value> {
        Value x =
            arith::MulFOp::create(nb2, l2, a[0], castFloat(nb2, l2, a[1], f32));
        return {arith::AddFOp::create(nb2, l2, a[2], x)};
      })[0];
  Value mOut = linalg::CopyOp::create(b, loc, ValueRange{mNew}, ValueRange{m})
                   .getResult(0);
  return {mOut, lNew, accNew};
}
} // namespace

LogicalResult mlir::npu::tileAttentionKernel(RewriterBase &rewriter,
                                             KernelOp kernel, TilingAttr tiling,
                                             int64_t kvSplits, bool gpuBlocks) {
  ArrayRef<int64_t> tile = tiling.getTile();
  if (tile.size() != 6)
    return kernel.emitError("attention tiling needs 6 tile sizes [tb, tq, "
                            "tkv, D, ts, tr], got ")
           << tile.size();
  SmallVector<AttentionOp> attentions(
      kernel.getBodyBlock().getOps<AttentionOp>());
  if (attentions.size() != 1)
    return kernel.emitError("attention tiling needs one npu.attention in the "
                            "kernel, found ")
           << attentions.size();
  AttentionOp op = attentions.front();
  // The held K/V is a K/V tile (streamed), all of it (resident) or a
  // prefix of whole K/V tiles; held keys are held by one core's loop over
  // its heads: not a thread-block grid, not split.
  if (!TilingAttr::isValidHeldKv(tiling.getLoops(), tile))
    return kernel.emitError("attention tile #5 (the K/V held on chip) is ")
           << tile[5] << ": expected the K/V tile (" << tile[2]
           << "), the KV length (" << tiling.getLoops()[2]
           << ") or a multiple of the K/V tile between them";
  if (TilingAttr::getHeldKvPrefix(tiling.getLoops(), tile) > 0 &&
      (gpuBlocks || kvSplits != 1))
    return kernel.emitError(
        "a held K/V (tile #5 > K/V tile) is not lowered as a "
        "thread-block grid or with split KV");
  rewriter.setInsertionPoint(op);
  SmallVector<Value> operands(op->getOperands());
  FlashAttention flash(op, tiling, kvSplits, gpuBlocks);
  TransposeOp transposed = flash.transposedUser();
  Value result = flash.build(rewriter, op.getLoc());
  if (transposed) {
    rewriter.replaceOp(transposed, result);
    rewriter.eraseOp(op);
  } else {
    rewriter.replaceOp(op, result);
  }
  // The concats and broadcasts the tiles were taken through, now unused,
  // are not computed whole.
  while (!operands.empty()) {
    Operation *producer = operands.pop_back_val().getDefiningOp();
    if (!isa_and_nonnull<ConcatOp, BroadcastOp>(producer) ||
        !producer->use_empty())
      continue;
    operands.append(producer->operand_begin(), producer->operand_end());
    rewriter.eraseOp(producer);
  }
  return success();
}
