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
//         s     = scale * q k^T (soft-capped: c tanh(s / c)), -inf where
//                 masked (causal, window)
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

#include "FlashAttention.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <limits>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::flash;

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
  // chip before the query-block loop; with the query blocks dealt over
  // cores, each core's lane copies it before its blocks.
  unsigned copyDim = heldCopies > 1 ? 1 : 0;
  SmallVector<int64_t, 2> lanes;
  if (heldCopies > 1)
    lanes = {1, heldCopies};
  auto copyHeads = [&](OpBuilder &hb, Location hl, unsigned d, ValueRange ivs) {
    if (d == copyDim)
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
            : nullptr,
        lanes);
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
  // Query i sees keys [first(i + off), i + off], off = Skv - Sq, first =
  // the first key of its window or chunk; the block's range starts at its
  // first query's (first is non-decreasing).
  Value kvBegin = constIndex(b, loc, 0), kvEnd = constIndex(b, loc, dims.kvLen);
  if (!causal)
    return {kvBegin, kvEnd};
  int64_t off = dims.kvLen - dims.qLen;
  kvEnd = arith::AddIOp::create(b, loc, arith::AddIOp::create(b, loc, q0, nq),
                                constIndex(b, loc, off));
  Value pos0 = arith::AddIOp::create(b, loc, q0, constIndex(b, loc, off));
  if (Value lo = buildFirstVisibleKey(b, loc, pos0, window, chunk))
    kvBegin = arith::MaxSIOp::create(b, loc, lo, constIndex(b, loc, 0));
  return {kvBegin, kvEnd};
}

SmallVector<Value> FlashAttention::buildKvLoop(OpBuilder &b, Location loc,
                                               Value b0, Value nb, Value q0,
                                               Value nq, Value begin,
                                               Value end) {
  Type f32 = b.getF32Type();
  Value qt = qTile(b, loc, q, b0, nb, q0, nq);
  // A block computed in sub-tiles is copied on chip once (a buffer of its
  // own: its sub-tiles are views of it, not loads of their own).
  if (tileSub < tileQ)
    qt = onChip(b, loc, qt);
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
    if (v) {
      vt = kvTile(b, loc, v, b0, nb, k0, nk);
    } else {
      // Latent: the tile's rows are loaded once, the values a view of them.
      kt = FlashAttention::onChip(b, loc, kt);
      vt = sliceOf(b, loc, kt, {zero, zero, zero},
                   {nb, nk, b.getIndexAttr(dims.vDim)});
    }
  }
  if (tileSub >= tileQ)
    return buildKvStep(b, loc, nb, q0, nq, qt, k0, nk, kt, vt,
                       {carried[0], carried[1], carried[2]});
  // The sub-tiles [sLo, sHi) of the block (offsets from q0) that see a key
  // of [k0, k0 + nk): their last query at or past k0 - off and, with a
  // window, their first before k0 + nk - 1 - off + window; with chunks,
  // their first in the chunk of key k0 + nk - 1 or before.
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
    // The first position whose first key is past k0 + nk - 1 bounds them.
    if (window || chunk) {
      Value lastKey = arith::SubIOp::create(
          b, loc, arith::AddIOp::create(b, loc, k0, nk), constIndex(b, loc, 1));
      Value past = buildFirstPositionPast(b, loc, lastKey, window, chunk);
      Value end = arith::SubIOp::create(
          b, loc, past,
          arith::AddIOp::create(b, loc, q0, constIndex(b, loc, off)));
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
  return normalize(b, loc, state[2], state[1], state[0], b0,
                   blockSizes(b, nb, nq, dims.vDim));
}

Value FlashAttention::normalize(OpBuilder &b, Location loc, Value acc, Value l,
                                Value m, Value b0,
                                ArrayRef<OpFoldResult> sizes) {
  Type resElem = op.getResult().getType().getElementType();
  Value sinks = op.getSinks();
  return buildGeneric(
      b, loc, ValueRange{acc, l, m},
      ValueRange{emptyTile(b, loc, sizes, resElem)},
      {map(4, {0, 1, 2, 3}), map(4, {0, 1, 2}), map(4, {0, 1, 2}),
       map(4, {0, 1, 2, 3})},
      {kPar, kPar, kPar, kPar},
      [&](OpBuilder &nb2, Location l2, ValueRange a) -> SmallVector<Value> {
        Value sum = a[1];
        if (sinks) {
          // Row (b0 + i, g) is query head (b0 + i) mod Hkv * G + g: its
          // sink joins the sum once (m as the running max left it).
          Value bh = arith::AddIOp::create(nb2, l2, b0,
                                           linalg::IndexOp::create(nb2, l2, 0));
          Value kvh = arith::RemSIOp::create(nb2, l2, bh,
                                             constIndex(nb2, l2, dims.kvHeads));
          Value h = arith::AddIOp::create(
              nb2, l2,
              arith::MulIOp::create(nb2, l2, kvh, constIndex(nb2, l2, group)),
              linalg::IndexOp::create(nb2, l2, 1));
          Value s = tensor::ExtractOp::create(nb2, l2, sinks, ValueRange{h});
          sum = addSink(nb2, l2, sum, safeMax(nb2, l2, a[2]),
                        castFloat(nb2, l2, s, nb2.getF32Type()));
        }
        Value x = arith::DivFOp::create(nb2, l2, a[0], sum);
        return {castFloat(nb2, l2, x, resElem)};
      })[0];
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

  Value logits = buildLogits(b, loc, s, q0, k0);

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

LogicalResult mlir::npu::tileAttentionKernel(RewriterBase &rewriter,
                                             KernelOp kernel, TilingAttr tiling,
                                             int64_t kvSplits, bool gpuBlocks) {
  if (tiling.getTile().size() != AttentionNest<>::kSize ||
      tiling.getLoops().size() != AttentionNest<>::kSize)
    return kernel.emitError("attention tiling needs 6 loops and tile sizes "
                            "[heads, q, kv, head dim, q sub-tile, held kv], "
                            "got ")
           << tiling.getTile().size();
  AttentionNest<> loops = AttentionNest<>::from(tiling.getLoops()),
                  tile = AttentionNest<>::from(tiling.getTile());
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
  if (!isValidHeldKv(loops, tile))
    return kernel.emitError("attention tile #5 (the K/V held on chip) is ")
           << tile.kvHeld << ": expected the K/V tile (" << tile.kv
           << "), the KV length (" << loops.kv
           << ") or a multiple of the K/V tile between them";
  if (getHeldKvPrefix(tile) > 0 && (gpuBlocks || kvSplits != 1))
    return kernel.emitError(
        "a held K/V (tile #5 > K/V tile) is not lowered as a "
        "thread-block grid or with split KV");
  rewriter.setInsertionPoint(op);
  SmallVector<Value> operands(op->getOperands());
  // The TPU-like target's cores (a GPU-like grid: the hardware's).
  int64_t cores = 1;
  if (TpuTargetAttr tpu = getKernelTpuTarget(kernel); tpu && !gpuBlocks)
    cores = tpu.getTensorCoreCount();
  FlashAttention flash(op, tiling, kvSplits, gpuBlocks, cores);
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
  // The block's normalization (acc / l, rounded) and its transposed store
  // are one pass: no rounded tile beside the transposed one.
  fuseElementwiseInTileLoops(kernel, /*soleUsersOnly=*/true);
  return success();
}
