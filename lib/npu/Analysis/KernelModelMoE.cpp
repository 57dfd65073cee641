//===- KernelModelMoE.cpp - the loop nests of a moe_ffn kernel ------------===//
//
// The routed experts as one nest of M tiles, the dispatch's serial sort and
// arrays, and the combine (with the shared expert), as npu-tile-kernels
// lowers them (TileMoe.cpp).
//
//===----------------------------------------------------------------------===//

#include "KernelModelDetail.h"

using namespace mlir;
using namespace mlir::npu;

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
  // its rows of x and stores its outputs, rounded to the result type, as
  // blocks; per tile of tokens, the shared expert's output plus each
  // token's K rows of those outputs (one DMA each) is the result tile.
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
  int64_t assignments = t * moe.getTopK();
  // The dispatch's counting sort (TileMoe.cpp, buildDispatch) visits the
  // assignments in order on the scalar unit: per assignment a load of its
  // expert, the clamp (max, min), a load of the expert's cursor, its
  // increment and three stores (order, cursor, where), plus the loop's
  // increment and compare.
  constexpr int64_t kScalarOpsPerAssignment = 10;
  std::optional<int64_t> sortOps =
      (Count::fromSigned(assignments) * Count(kScalarOpsPerAssignment))
          .toInt64();
  if (!sortOps)
    return failure();
  model.serialScalarOps = *sortOps;
  // The dispatch's arrays as the lowering moves them (TileMoe.cpp,
  // buildDispatch, once bufferized): the count pass loads the indices on
  // chip; the sort's cursor (the offsets, E i64) and its order and where
  // (T K i64 each, filled on chip) go to HBM, where the scalar unit then
  // reads and writes single elements (priced as its operations above, as
  // if the arrays were in its own memory, not as traffic); the combine
  // loads the routing weights on chip, sub-tile by sub-tile.
  int64_t ib = elementBytes(moe.getIndices()),
          rb = elementBytes(moe.getWeights()), e = moe.getNumExperts();
  Count perAssignment = Count::fromSigned(assignments);
  std::optional<int64_t> dispatchRead =
      (perAssignment * Count::fromSigned(ib + rb)).toInt64();
  std::optional<int64_t> dispatchWrite =
      (Count::fromSigned(e) * Count(8) + Count(2) * perAssignment * Count(8))
          .toInt64();
  if (!dispatchRead || !dispatchWrite)
    return failure();
  model.serialReadBytes = *dispatchRead;
  model.serialWriteBytes = *dispatchWrite;
  // The combine: per M tile of tokens (the shared expert's), each token's
  // K rows of o read back and summed (combineSlots: the TPU-like lowering
  // gathers them).
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
  combine.combineWeightBytes = rb;
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
