//===- KernelModelMoE.cpp - the loop nests of a moe_ffn kernel ------------===//
//
// The routed experts as one nest of M tiles, the dispatch's serial sort and
// arrays, and the combine (with the shared expert), as npu-tile-kernels
// lowers them (TileMoe.cpp).
//
//===----------------------------------------------------------------------===//

#include "KernelModelDetail.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::npu;

/// The dispatch of `moe` (TileMoeDispatch.cpp, buildDispatch) for `active`
/// experts of `rows` planned rows each: its serial work and arrays into
/// `model`. False on overflow.
static bool describeMoeDispatch(MoEExpertsOp moe, int64_t active, int64_t rows,
                                KernelModel &model) {
  int64_t t = moe.getNumTokens();
  int64_t assignments = t * moe.getTopK();
  // The dispatch (TileMoeDispatch.cpp, buildDispatch). On the vector unit,
  // each iteration of its passes a compare or two and an add (A = T K, E
  // experts, blocks of B = kMoeDispatchBlock, nb = ceil(A / B) of them):
  //   counts A E x 2, offsets E E x 2.
  // Then the order. Sorted: a bitonic sort of A' = A rounded up to a power
  // of two keys, building them A' x 7 (the test for padding, a min, the
  // clamp's two, the padding's select, a multiply and an add), log A'
  // (log A' + 1) / 2 passes, two per iteration (a pass past the last keeps
  // every key), of A' x 8 each (the partner's xor, the direction's and and
  // compare, the order compare, a min, a max, the choice's compare and
  // select), and each key's low part, A x 1. Scattered: first each
  // assignment's position in expert order (`where`, on the vector unit:
  // per-block counts nb B E x 3 (the real-assignment test too), the blocks
  // before nb E (a scan), ranks in the block nb B B x 3, where nb B x 2, and
  // each index clamped once, a max and a min, A x 2), from the indices
  // loaded again in blocks; then per assignment a load, a store and the
  // loop's increment and compare on the scalar unit, and the order (A i64)
  // stored to HBM first.
  int64_t e = moe.getNumExperts(), blk = kMoeDispatchBlock,
          nb = llvm::divideCeil(assignments, blk);
  int64_t padded = moeSortKeys(assignments),
          passes = moeSortPasses(assignments);
  Count ca = Count::fromSigned(assignments), ce = Count::fromSigned(e),
        cb = Count::fromSigned(blk), cnb = Count::fromSigned(nb),
        cp = Count::fromSigned(padded);
  std::optional<int64_t> vectorOps =
      (Count(2) * ca * ce + Count(2) * ce * ce).toInt64();
  std::optional<int64_t> whereOps =
      (Count(3) * cnb * cb * ce + cnb * ce + Count(3) * cnb * cb * cb +
       Count(2) * cnb * cb + Count(2) * ca)
          .toInt64();
  std::optional<int64_t> sortOps =
      (Count(7) * cp + Count(8) * Count::fromSigned(passes) * cp + ca)
          .toInt64();
  constexpr int64_t kScatterOpsPerAssignment = 4;
  std::optional<int64_t> scatterOps =
      (ca * Count(kScatterOpsPerAssignment)).toInt64();
  // The dispatch's arrays as the lowering moves them in bulk: the indices
  // loaded on chip (the count pass; again in blocks for `where`) and the
  // routing weights by the combine sub-tile by sub-tile. A GPU-like
  // dispatch kernel writes the order for the kernels after it (A i64).
  int64_t ib = kernel_model_detail::elementBytes(moe.getIndices()),
          rb = kernel_model_detail::elementBytes(moe.getWeights());
  std::optional<int64_t> dispatchRead =
      (ca * Count::fromSigned(ib + rb)).toInt64();
  std::optional<int64_t> whereRead = (ca * Count::fromSigned(ib)).toInt64();
  std::optional<int64_t> orderBytes = (ca * Count(8)).toInt64();
  if (!vectorOps || !whereOps || !sortOps || !scatterOps || !dispatchRead ||
      !whereRead || !orderBytes)
    return false;
  model.serialVectorFlops = *vectorOps;
  model.serialReadBytes = *dispatchRead;
  std::optional<int64_t> plannedRows =
      (Count::fromSigned(active) * Count::fromSigned(rows)).toInt64();
  if (!plannedRows)
    return false;
  model.dispatchOrder = KernelModel::DispatchOrder{
      assignments, *sortOps, *whereOps, *scatterOps, *whereRead,
      *orderBytes, e,        t,         *plannedRows};
  return true;
}

FailureOr<KernelModel>
mlir::npu::kernel_model_detail::describeMoeKernel(ArrayRef<Operation *> ops) {
  SmallVector<MoEExpertsOp> moes = opsOfType<MoEExpertsOp>(ops);
  if (moes.size() != 1)
    return failure();
  MoEExpertsOp moe = moes.front();
  int64_t t = moe.getNumTokens(), d = moe.getModelDim(), f = moe.getFfnDim();
  // Static plan: every active expert gets the expected number of tokens,
  // rounded up (the dynamic policies of npu-compare refine this).
  int64_t active = moe.getPlannedActiveExperts();
  int64_t perExpert = moe.getPlannedRowsPerExpert();
  Type xType = moe.getX().getType().getElementType();
  int64_t xb = elementBytes(moe.getX()), yb = elementBytes(moe.getResult());
  KernelModel model;
  model.kind = KernelKind::MoeFfn;
  model.work = sumFlops(ops);
  // As npu-tile-kernels lowers it (TileMoe.cpp): each routed expert gathers
  // its rows of x and stores its outputs, rounded to the result type, at
  // their assignments' rows (one copy each); per tile of tokens, the shared
  // expert's output plus each token's K rows of those outputs (blocks) is
  // the result tile.
  KernelDesc routed = gatedMlp(perExpert, f, d, xType, moe.getWGate(), xb, yb);
  Count rows = Count::fromSigned(perExpert);
  if (moe.getSwigluLimitAttr()) // GPT-OSS's clamped SwiGLU: 8 per element
    routed.work.vectorFlops = Count(8) * rows * Count::fromSigned(f);
  if (moe.hasBiases()) {
    // Each expert's biases, (2 F + D) of them: read with its weights, once
    // per M tile (the TPU-like loop totals, TileMoe.cpp) or once per expert
    // (the GPU-like grouped GEMMs), and added per element.
    routed.work.vectorFlops += rows * Count::fromSigned(2 * f + d);
    Count biasBytes = getNumBytes(moe.getBGate()) + getNumBytes(moe.getBUp()) +
                      getNumBytes(moe.getBDown());
    routed.extraReadBytes = static_cast<int64_t>(
        (biasBytes / Count::fromSigned(moe.getNumExperts())).value());
  }
  routed.repeat = active;
  routed.gatheredRows = true;
  model.phases.push_back(routed);
  if (!describeMoeDispatch(moe, active, perExpert, model))
    return failure();
  // The combine: per M tile of tokens (the shared expert's), each token's
  // K rows of o read back and summed (combineSlots: the TPU-like lowering
  // reads them as blocks, the routed experts having stored each row at its
  // assignment's).
  KernelDesc combine;
  if (moe.hasShared()) {
    int64_t fs = moe.getSharedGate().getType().getNumElements() / d;
    model.sharedPhase = model.phases.size();
    combine = gatedMlp(t, fs, d, xType, moe.getSharedGate(), xb, yb);
  } else {
    combine.kind = KernelKind::Stream;
    combine.loops = RowNest<>{t, d}.list();
    // Per row: its result, and y's f32 accumulator.
    combine.lhsBytes = combine.outBytes = yb;
    combine.rowStateBytes = 4 * d;
    combine.work.bytesWritten =
        Count::fromSigned(yb) * Count::fromSigned(t) * Count::fromSigned(d);
  }
  combine.combineSlots = moe.getTopK();
  combine.combineWeightBytes = elementBytes(moe.getWeights());
  std::optional<int64_t> combineBytes = combine.combineReadBytes().toInt64();
  if (!combineBytes)
    return failure();
  if (moe.hasShared())
    combine.extraReadBytes = *combineBytes;
  else
    combine.work.bytesRead = Count::fromSigned(*combineBytes);
  model.phases.push_back(combine);
  return model;
}

void kernel_model_detail::appendRouterState(MoERouterOp router,
                                            SmallVectorImpl<int64_t> &buffers) {
  int64_t e = router.getNumExperts();
  auto logits = cast<ShapedType>(router.getLogits().getType());
  if (!logits.getElementType().isF32())
    buffers.push_back(4 * e);
  buffers.push_back(4 * e);
  if (router.getScoring() != ScoringFunc::Sigmoid)
    buffers.append({4, 4});
  if (router.getBias())
    buffers.push_back(4 * e);
  if (std::optional<uint64_t> groups = router.getNGroup()) {
    auto n = static_cast<int64_t>(*groups);
    buffers.append({4 * n, 4 * n, 4 * n, 8 * n, 4 * e});
  }
  for (uint64_t slot = 0; slot <= router.getTopK(); ++slot)
    buffers.append({4, 8, 4});
}
