//===- FlashAttentionOperands.cpp - Q, K and V tiles of flash attention ---===//
//
// The tiles a flash-attention loop nest reads: views of Q, K and V as
// [B*Hkv, (G,) S, D]; a tile of an operand that an npu.concat along the last
// dim (MLA's no-rope and rope parts) or an npu.broadcast along the heads (a
// key shared by every head) makes is taken from the parts, not from the
// whole concatenated or broadcast tensor; and the on-chip copy of the keys a
// head block holds.
//
//===----------------------------------------------------------------------===//

#include "FlashAttention.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::flash;

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
    // A tile of (at most) one head is those rows: loaded where the tile
    // wants them (a concatenated K's columns), not staged and copied.
    if (tileHeads == 1) {
      auto rowsType = cast<RankedTensorType>(rows.getType());
      SmallVector<int64_t> shape(rowsType.getShape());
      if (!getConstantIntValue(nh))
        shape[0] = ShapedType::kDynamic;
      return tensor::CastOp::create(
          b, loc, RankedTensorType::get(shape, rowsType.getElementType()),
          rows);
    }
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
  Value tile = sliceOf(b, loc, full, offsets, sizes);
  builtTiles.insert(tile);
  return tile;
}

Value FlashAttention::onChip(OpBuilder &b, Location loc, Value tile) const {
  if (builtTiles.contains(tile))
    return tile;
  return bufferization::AllocTensorOp::create(
      b, loc, cast<RankedTensorType>(tile.getType()), ValueRange{},
      /*copy=*/tile);
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
    return onChip(b, loc,
                  kvTile(b, loc, src, b0, nb, zero, b.getIndexAttr(held)));
  };
  kHeld = copy(k);
  vHeld = v ? copy(v) : kHeld;
}
