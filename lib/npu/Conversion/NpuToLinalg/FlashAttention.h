//===- FlashAttention.h - the flash-attention tiling's builder --*- C++ -*-===//
//
// The loop nest npu-tile-kernels builds for an attention kernel
// (TileAttention.cpp: the loops and the online softmax;
// FlashAttentionOperands.cpp: the tiles of Q, K and V, through the concats
// and broadcasts that make them, and the on-chip copy of held K/V).
// Private to lib/npu/Conversion/NpuToLinalg.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_CONVERSION_NPUTOLINALG_FLASHATTENTION_H
#define NPU_CONVERSION_NPUTOLINALG_FLASHATTENTION_H

#include "Patterns.h"
#include "Tiling.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <limits>

namespace mlir::npu::flash {
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

/// The online-softmax state of a block of queries: running max, running
/// sum ([nb, G, rows]) and running output ([nb, G, rows, Dv]), all f32.
struct SoftmaxState {
  Value m, l, acc;
};

/// The flash-attention loop nest of one npu.attention.
class FlashAttention {
public:
  /// `cores`: the TPU-like target's cores (1 on a GPU-like one), over
  /// which a head's query blocks are dealt when there are fewer heads.
  FlashAttention(AttentionOp op, TilingAttr tiling, int64_t kvSplits,
                 bool gpuBlocks, int64_t cores)
      : op(op), ctx(op.getContext()), dims(op.getDims()), gpuBlocks(gpuBlocks),
        splits(kvSplits) {
    AttentionNest<> tile = AttentionNest<>::from(tiling.getTile());
    held = getHeldKvPrefix(tile);
    group = dims.qHeads / dims.kvHeads;
    heads = dims.batch * dims.kvHeads;
    tileHeads = std::min(tile.heads, heads);
    tileQ = std::min(tile.q, dims.qLen);
    tileKv = std::min(tile.kv, dims.kvLen);
    tileSub = std::min(tile.qSub, tileQ);
    heldCopies =
        getHeldKvCopies(llvm::divideCeil(heads, tileHeads),
                        llvm::divideCeil(dims.qLen, tileQ), cores, held);
    causal = op.getCausal();
    window = op.getWindowSize();
    chunk = op.getChunkSize();
    scale = op.getScaleValue();
    if (FloatAttr c = op.getSoftcapAttr())
      softcap = c.getValueAsDouble();
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
  /// `tile` in a buffer of its own, copied once: a tile concatTiles built
  /// is one already.
  Value onChip(OpBuilder &b, Location loc, Value tile) const;
  /// Split `split` of the query block's KV range: its state as one
  /// [1, nb, G, nq, Dv + 2] f32 partial (acc, then m, then l).
  Value buildPartial(OpBuilder &b, Location loc, Value b0, Value nb, Value q0,
                     Value nq, Value split);
  /// The output [heads, G, Sq, Dv] from the partials [splits, heads, G, Sq,
  /// Dv + 2]: rescaled to their common max and summed.
  Value combine(OpBuilder &b, Location loc, Value partials);
  /// The update of the state of queries [q0, q0 + nq) (tile `qt`) by the KV
  /// tile (`kt`, `vt`) of nk keys at k0.
  /// The score tile `s` scaled (and soft-capped), -inf where masked, in
  /// place of s; its queries start at q0 and its keys at k0.
  Value buildLogits(OpBuilder &b, Location loc, Value s, Value q0, Value k0);
  SmallVector<Value> buildKvStep(OpBuilder &b, Location loc, Value nb, Value q0,
                                 Value nq, Value qt, Value k0, Value nk,
                                 Value kt, Value vt, SoftmaxState state);
  /// acc / (l [+ exp(sink - m)]) rounded to the result type, for the rows
  /// of the head block starting at b0.
  Value normalize(OpBuilder &b, Location loc, Value acc, Value l, Value m,
                  Value b0, ArrayRef<OpFoldResult> sizes);
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
  /// Cores that each copy a head's held keys, its query blocks dealt over
  /// them (getHeldKvCopies).
  int64_t heldCopies = 1;
  int64_t group, heads, tileHeads, tileQ, tileKv, tileSub;
  bool causal;
  int64_t window, chunk; ///< sliding window, chunk (0: none)
  double scale;
  std::optional<double> softcap; ///< logit soft-cap c, if any
  /// Q, K and V as the graph gives them (V null in the latent form: the
  /// value tile is the key tile's first Dv columns).
  Value q, k, v;
  /// The views of makeViews, for Q's tiles and for K's and V's (one value
  /// may be both: self-attention on one tensor).
  llvm::DenseMap<Value, Value> qViews, kvViews;
  /// The on-chip copies of the head block's held keys ([nb, held, D]).
  Value kHeld, vHeld;
  /// The tiles concatTiles built (each a new buffer, filled by its parts).
  llvm::DenseSet<Value> builtTiles;
};
} // namespace mlir::npu::flash

#endif // NPU_CONVERSION_NPUTOLINALG_FLASHATTENTION_H
