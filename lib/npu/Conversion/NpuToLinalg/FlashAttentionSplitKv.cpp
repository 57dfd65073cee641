//===- FlashAttentionSplitKv.cpp - split-KV partials and their combine ----===//
//
// Split KV ("flash-decoding", a GPU-like target's #npu.launch kv_splits):
// each split of a query block's KV range writes its softmax state as an f32
// partial, and the partials are rescaled to their common max and summed
// (TileAttention.cpp builds the grid around them).
//
//===----------------------------------------------------------------------===//

#include "FlashAttention.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::flash;

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
  return normalize(b, loc, accSum, lSum, mMax, constIndex(b, loc, 0), outSizes);
}
