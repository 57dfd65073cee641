//===- FlashAttentionLogits.cpp - the masked logits of a score tile -------===//
//
// One step of the flash-attention loop turns its score tile s = q k^T into
// logits: scaled, soft-capped (c tanh(s / c)) when the op has softcap, and
// -inf where the causal mask, the sliding window or the chunk hides the key.
//
//===----------------------------------------------------------------------===//

#include "FlashAttention.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::flash;

Value FlashAttention::buildLogits(OpBuilder &b, Location loc, Value s, Value q0,
                                  Value k0) {
  AffineMap id4 = map(4, {0, 1, 2, 3});
  // logits = scale * s, -inf where masked, in place of s (one score tile
  // on chip: p overwrites the logits below too). Query q0 + i is at
  // position Skv - Sq + q0 + i; key k0 + j is visible iff it is at most
  // that position (and within the window or chunk).
  return buildGeneric(
      b, loc, ValueRange{}, ValueRange{s}, {id4}, {kPar, kPar, kPar, kPar},
      [&](OpBuilder &nb2, Location l2, ValueRange a) -> SmallVector<Value> {
        Value x =
            arith::MulFOp::create(nb2, l2, a[0], f32Const(nb2, l2, scale));
        if (softcap)
          x = buildSoftcap(nb2, l2, x, *softcap);
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
        if (Value lo = buildFirstVisibleKey(nb2, l2, pos, window, chunk))
          visible = arith::AndIOp::create(
              nb2, l2, visible,
              arith::CmpIOp::create(nb2, l2, arith::CmpIPredicate::sge, j, lo));
        return {arith::SelectOp::create(nb2, l2, visible, x,
                                        f32Const(nb2, l2, kNegInf))};
      })[0];
}
