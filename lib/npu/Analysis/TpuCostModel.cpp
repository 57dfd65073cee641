//===- TpuCostModel.cpp - the compile-time-decided cost model -------------===//
//
// Equations: docs/cost-model-tpu.md. Every loop nest reduces to the same
// pipelined loop: S grid steps on each core, each step loading `in` bytes,
// computing for `c` ns and storing `out` bytes, with loads and stores sharing
// the core's share of HBM bandwidth:
//
//   T = in + c + out + (S - 1) * P,   P = max(c, in + out)   (buffers >= 2)
//                                     P = c + in + out       (buffers == 1)
//
// where the per-step quantities are averages over the loop (exact when every
// step moves the same bytes).
//
//===----------------------------------------------------------------------===//

#include "npu/Analysis/TpuCostModel.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::npu;

FailureOr<TpuParams> TpuParams::get(TargetAttr target) {
  TpuTargetAttr tpu = target.getTpu();
  if (!tpu)
    return failure();
  TpuParams p;
  p.target = target;
  p.cores = tpu.getTensorCoreCount();
  p.mxuDim = tpu.getMatrixUnitDimElements();
  p.sramBytes = tpu.getVmemBytesPerCore();
  p.dmaEngines = tpu.getDmaEnginesPerCore();
  p.dmaSetupNs = tpu.getDmaSetupLatencyNs().convertToDouble();
  p.stepOverheadNs = tpu.getGridStepOverheadNs().convertToDouble();
  double cores = double(p.cores);
  p.vectorPerNs = target.getVectorFlopPerS().convertToDouble() / cores * 1e-9;
  p.transcPerNs =
      target.getTranscendentalPerS().convertToDouble() / cores * 1e-9;
  p.hbmBytesPerNs =
      target.getHbmBandwidthBytesPerS().convertToDouble() / cores * 1e-9;
  p.scalarOpsPerNs = target.getClockHz().convertToDouble() * 1e-9;
  return p;
}

double TpuParams::matrixPerNs(Type matrixType) const {
  return getMatrixPeakFlopPerS(target, matrixType) / double(cores) * 1e-9;
}

CostBound TpuCost::getBound() const {
  return classifyBound(computeNs, memoryNs, overheadNs);
}

TpuCost &TpuCost::operator+=(const TpuCost &o) {
  timeNs += o.timeNs;
  computeNs += o.computeNs;
  memoryNs += o.memoryNs;
  overheadNs += o.overheadNs;
  hbmReadBytes += o.hbmReadBytes;
  hbmWriteBytes += o.hbmWriteBytes;
  crossCoreBytes += o.crossCoreBytes;
  sramBytes = std::max(sramBytes, o.sramBytes);
  paddedMatrixFlops += o.paddedMatrixFlops;
  steps += o.steps;
  return *this;
}

namespace {
Count c(int64_t v) { return Count::fromSigned(v); }
double d(Count v) { return double(v.value()); }
int64_t pad(int64_t n, int64_t g) { return int64_t(llvm::alignTo(n, g)); }

/// Rows of a loop of n tiled by t as the matrix unit streams them: each
/// tile's rows padded to the sublanes, and to at least the unit's dim.
int64_t streamExtent(int64_t n, int64_t t, int64_t sub, int64_t mxu) {
  auto rows = [&](int64_t r) { return r ? std::max(pad(r, sub), mxu) : 0; };
  return (n / t) * rows(t) + rows(n % t);
}

/// One (loop, tile) pair of a matrix product's dimension.
struct Dim {
  int64_t n, t;
};

/// The matrix-unit time of the product [M x K] x [K x N], tiled, as FLOPs
/// at the peak rate. The unit is weight-stationary: it holds a mxu x mxu
/// block of one operand and streams the other's rows through it; loading
/// the next block (mxu cycles) overlaps the current stream only if that
/// stream is at least mxu rows long, so a block costs max(rows, mxu) cycles
/// (docs/cost-model-tpu.md, "Matrix unit"). The compiler holds whichever
/// operand makes the product cheaper.
Count matrixPassFlops(Dim m, Dim k, Dim n, int64_t sub, int64_t mxu) {
  Count padK = c(paddedExtent(k.n, k.t, mxu));
  Count holdB = padK * c(paddedExtent(n.n, n.t, mxu)) *
                c(streamExtent(m.n, m.t, sub, mxu));
  Count holdA = padK * c(paddedExtent(m.n, m.t, mxu)) *
                c(streamExtent(n.n, n.t, sub, mxu));
  if (holdB.isOverflow() || holdA.isOverflow())
    return Count::overflowed();
  return c(2) * std::min(holdB.value(), holdA.value());
}

/// What one loop nest does in total, before it is spread over steps.
struct LoopTotals {
  int64_t parallelTiles = 1; ///< independent tiles, split over the cores
  int64_t steps = 1;         ///< grid steps in all (parallel x sequential)
  Count readBytes, writeBytes;
  Count readTransfers, writeTransfers;
  Count paddedMatrixFlops;
  Count vectorFlops, transcendentalFlops;
  /// A reduction loop split over cores: each core but one writes its f32
  /// partial sum (reductionBytes) and one reads and adds them.
  int64_t reductionCores = 1;
  Count reductionBytes;
  /// reductionBytes x (cores that split the reduction - 1), once known.
  Count crossCoreBytes;
  /// Of the reads, operands loaded once before the loops and held (a GEMM
  /// operand that is one block whole): the first step waits for them, the
  /// later steps do not load them.
  Count heldReadBytes;
  int64_t heldReadTransfers = 0;
  /// What the first step loads before any compute can start, and what the
  /// last step stores after all compute (the fill and the drain); unset:
  /// the average step's.
  std::optional<Count> firstReadBytes, lastWriteBytes;
  /// What each parallel tile after a core's first waits for before its
  /// first step: the first step's loads of an inner pipelined loop (a
  /// GEMM's K loop, a block's KV loop), which the lowering issues during
  /// the previous tile only when the buffer slot they go to is free then
  /// (handsOff); 0: they overlap the previous tile.
  Count refillBytes;
  int64_t refillTransfers = 0;
  /// The outer tiles whose inner loop refills, dealt to the cores like the
  /// parallel tiles (0: the parallel tiles themselves).
  int64_t refillTiles = 0;
  /// Of each core's refills, those the fill already made (1: its first
  /// tile's; 0: the fill loads something else, a held K/V prefix).
  int64_t fillRefills = 1;
  /// Of the first step's loads (fill and refill), the bytes loaded in
  /// `chunks` DMAs each, which the step's compute consumes chunk by chunk.
  Count chunkedBytes;
  int64_t chunks = 1;
  /// The last step stores its output in `bands` row bands, each as soon as
  /// the last K chunk has computed its rows (1: one store after the step).
  int64_t bands = 1;
};

/// Whether the lowering loads the first step of an inner loop of `steps`
/// iterations during the previous outer tile (npu-tpu-double-buffer,
/// docs/memory-tpu.md "Handing the next tile its first operands"): a loop of
/// one step is no loop (its loads are the outer loop's, prefetched); a
/// pipelined one hands off when its last step reads the other slot of its
/// two buffers (an even number of steps), and never when its trip count is
/// known only at run time.
bool handsOff(int64_t steps, bool dynamic) {
  return steps == 1 || (!dynamic && steps % 2 == 0);
}

std::optional<LoopTotals> gemmTotals(const KernelDesc &k, ArrayRef<int64_t> t,
                                     int64_t chunks, int64_t mxu, int64_t sub) {
  int64_t b = k.loops[0], m = k.loops[1], n = k.loops[2], kk = k.loops[3];
  if (t[0] != 1 || (k.needsFullK && t[3] != kk))
    return std::nullopt;
  // Chunks split K tiles of one static size (the lowering's condition) of
  // a tiled GEMM (one output); the matrix unit pads each chunk's K.
  if (!TilingAttr::isValidGemmChunks(k.loops, t, chunks) ||
      (chunks > 1 && !k.singleOutput))
    return std::nullopt;
  int64_t kChunk = t[3] / chunks;
  int64_t nm = llvm::divideCeil(m, t[1]), nk = llvm::divideCeil(kk, t[3]);
  // Sibling outputs (projections of one input) are one loop nest each with
  // the same tiles (TileGemm.cpp): each reads A once per N tile of its own
  // and its own B once per M tile; an N tile wider than an output is that
  // output whole.
  SmallVector<int64_t, 2> outputs(k.siblingN.begin(), k.siblingN.end());
  if (outputs.empty())
    outputs.push_back(n);
  LoopTotals l;
  int64_t nn = 0;
  for (int64_t ni : outputs)
    nn += llvm::divideCeil(ni, t[2]);
  l.parallelTiles = b * nm * nn;
  l.steps = l.parallelTiles * nk;
  Count aBytes = c(b) * c(m) * c(kk) * c(k.lhsBytes);
  // Every step loads its A and B tiles (the lowering does not skip a load
  // whose block is the previous step's): A once per N tile, B once per M
  // tile (and batch), each load `chunks` DMAs. An operand that is one block
  // whole (one tile along each of its dimensions) is the same in every
  // step: the lowering loads it once, before the loops, and holds it
  // (npu-tpu-assign-memory-spaces); it is part of the fill, not of the
  // steps. (A single step is the fill: nothing to hold across steps; a
  // GEMM that loads in chunks keeps its chunked per-step loads, so that
  // compute starts on the first chunk.)
  bool holds = l.steps > 1 && chunks == 1;
  auto hold = [&](Count bytes) {
    l.readBytes += bytes;
    l.readTransfers += c(1);
    l.heldReadBytes += bytes;
    l.heldReadTransfers += 1;
  };
  bool wholeA = b == 1 && nm == 1 && nk == 1 && holds;
  if (!k.inputOnChip) {
    if (wholeA) {
      hold(aBytes);
    } else {
      l.readBytes += aBytes * c(nn);
      l.readTransfers += c(l.steps) * c(chunks);
    }
  }
  bool firstBHeld = false;
  for (auto [i, ni] : llvm::enumerate(outputs)) {
    int64_t nni = llvm::divideCeil(ni, t[2]);
    Count bBytes = c(kk) * c(ni) * c(k.rhsBytes) * (k.rhsBatched ? c(b) : c(1));
    if (nni == 1 && nk == 1 && (b == 1 || !k.rhsBatched) && holds) {
      firstBHeld |= i == 0;
      hold(bBytes);
    } else {
      l.readBytes += bBytes * c(nm) * (k.rhsBatched ? c(1) : c(b));
      l.readTransfers += c(b) * c(nm) * c(nni) * c(nk) * c(chunks);
    }
    l.paddedMatrixFlops +=
        c(b) * matrixPassFlops({m, t[1]}, {kk, kChunk},
                               {ni, std::min(ni, t[2])}, sub, mxu);
  }
  l.readBytes += c(k.extraReadBytes);
  if (k.extraReadBytes > 0)
    l.readTransfers += c(l.parallelTiles);
  // With one K step the output tile is complete inside the step: its last
  // K chunk is computed in `chunks` row bands of static size, each stored
  // as it completes (npu-tpu-chunk-loads).
  if (!k.outputOnChip && !k.foldedBatch &&
      TilingAttr::isGemmOutputBanded(k.loops, t, chunks))
    l.bands = chunks;
  if (!k.outputOnChip) {
    l.writeBytes = c(b) * c(m) * c(n) * c(k.outBytes);
    l.writeTransfers = c(l.parallelTiles) * c(l.bands);
  }
  // Fill: the first A and B tiles (and the first tile of an epilogue
  // input; a held operand whole); drain: the last output tile. The first K
  // step's A and B tiles are also each later output tile's refill, unless
  // handed off.
  int64_t tn = std::min(outputs.front(), t[2]);
  Count firstA = k.inputOnChip ? c(0) : c(t[1]) * c(t[3]) * c(k.lhsBytes);
  Count firstB = c(t[3]) * c(tn) * c(k.rhsBytes);
  Count firstKStep = firstA + firstB;
  l.firstReadBytes = firstKStep + c(k.extraReadBytes) / c(l.parallelTiles);
  l.lastWriteBytes =
      k.outputOnChip
          ? c(0)
          : c(t[1]) * c(std::min(outputs.back(), t[2])) * c(k.outBytes);
  // Only the streamed tiles are loaded in chunks; a held operand is loaded
  // whole before the loops.
  l.chunkedBytes = (wholeA ? c(0) : firstA) + (firstBHeld ? c(0) : firstB);
  l.chunks = chunks;
  if (!handsOff(nk, /*dynamic=*/false)) {
    l.refillBytes = firstKStep;
    l.refillTransfers = (k.inputOnChip ? 1 : 2) * chunks;
  }
  l.vectorFlops = k.work.vectorFlops;
  l.transcendentalFlops = k.work.transcendentalFlops;
  return l;
}

std::optional<LoopTotals> gatedTotals(const KernelDesc &k, ArrayRef<int64_t> t,
                                      int64_t mxu, int64_t sub) {
  int64_t m = k.loops[0], f = k.loops[1], dm = k.loops[2];
  if (t[2] != dm)
    return std::nullopt;
  int64_t nm = llvm::divideCeil(m, t[0]), nf = llvm::divideCeil(f, t[1]);
  LoopTotals l;
  // M and F tiles are independent: with F split over cores, each core adds
  // its partial down projection into y (the reduction is counted below).
  l.parallelTiles = nm * nf;
  l.steps = nm * nf;
  // x rows stay on chip across the F loop; the three weight tiles stream
  // once per M tile; y accumulates on chip and is written once (MoE routed
  // experts: x rows gathered one DMA each, padded to whole tiles; y in
  // f32).
  int64_t outBytes = k.accBytes > 0 ? k.accBytes : k.outBytes;
  if (k.gatheredRows) {
    l.readBytes += c(nm) * c(t[0]) * c(dm) * c(k.lhsBytes);
    l.readTransfers += c(nm) * c(t[0]);
  } else if (!k.inputOnChip) {
    l.readBytes += c(m) * c(dm) * c(k.lhsBytes);
    l.readTransfers += c(nm);
  }
  l.readBytes += c(3) * c(f) * c(dm) * c(k.rhsBytes) * c(nm);
  l.readTransfers += c(3) * c(l.steps);
  l.readBytes += c(k.extraReadBytes);
  if (k.extraReadBytes > 0)
    l.readTransfers += k.rowReads > 0 ? c(k.rowReads) : c(nm);
  if (!k.outputOnChip) {
    l.writeBytes = c(m) * c(dm) * c(outBytes);
    l.writeTransfers = c(nm);
  }
  l.reductionCores = nf;
  l.reductionBytes = c(m) * c(dm) * c(4);
  // Each M tile's F loop starts with its first three weight tiles (a
  // refill, unless handed off).
  Count firstWeights = c(3) * c(t[1]) * c(dm) * c(k.rhsBytes);
  if (!handsOff(nf, /*dynamic=*/false)) {
    l.refillBytes = firstWeights;
    l.refillTransfers = 3;
    l.refillTiles = nm;
  }
  // Fill: the first x tile and the first three weight tiles; drain: the
  // last y tile.
  l.firstReadBytes = (k.inputOnChip ? c(0) : c(t[0]) * c(dm) * c(k.lhsBytes)) +
                     firstWeights + c(k.extraReadBytes) / c(nm);
  l.lastWriteBytes = k.outputOnChip ? c(0) : c(t[0]) * c(dm) * c(outBytes);
  // Gate and up: [M x D] x [D x F]; down: [M x F] x [F x D].
  l.paddedMatrixFlops =
      c(2) * matrixPassFlops({m, t[0]}, {dm, dm}, {f, t[1]}, sub, mxu) +
      matrixPassFlops({m, t[0]}, {f, t[1]}, {dm, dm}, sub, mxu);
  l.vectorFlops = k.work.vectorFlops;
  l.transcendentalFlops = k.work.transcendentalFlops;
  return l;
}

std::optional<LoopTotals> attentionTotals(const KernelDesc &k,
                                          ArrayRef<int64_t> t, int64_t mxu,
                                          int64_t sub, int64_t cores) {
  int64_t bh = k.loops[0], sq = k.loops[1], skv = k.loops[2], dqk = k.loops[3],
          dv = k.vDim;
  int64_t tq = t[1], tkv = t[2], ts = t[4];
  // The sub-tiles of a block are the global sub-tiles of ts queries (the
  // last block's last one may be short).
  if (t[0] != 1 || t[3] != dqk || ts > tq || (tq % ts != 0 && tq != sq) ||
      !TilingAttr::isValidHeldKv(k.loops, t))
    return std::nullopt;
  // The keys of a head held on chip (none, a prefix, or all: resident),
  // loaded once per head; the keys past them stream past each block in K/V
  // tiles. A prefix with a sliding window is lowered but not priced.
  int64_t held = TilingAttr::getHeldKvPrefix(k.loops, t);
  if (held > 0 && held < skv && k.window > 0)
    return std::nullopt;
  int64_t rowsSub = ts * k.group;
  int64_t nq = llvm::divideCeil(sq, tq);
  // Compute: (query sub-tile, KV tile) pairs, the same count a tiling with
  // query tiles of ts would visit, since sub-tiles that see no key of the
  // KV tile are skipped.
  int64_t visited = countVisitedTiles(sq, skv, tq, tkv, k.causal, k.window);
  int64_t pairs = ts == tq
                      ? visited
                      : countVisitedTiles(sq, skv, ts, tkv, k.causal, k.window);
  // The (query block, K/V tile) pairs that load their tile: those past the
  // held keys (a multiple of tkv).
  int64_t streamed =
      held == 0 ? visited
      : held == skv
          ? 0
          : countVisitedTilesFrom(sq, skv, tq, tkv, k.causal, held / tkv);
  LoopTotals l;
  // Held keys: a core holds them for the heads it works on. With at least
  // as many heads as cores a head's blocks stay on one core; with fewer
  // (MQA on two cores), a head's blocks are split over `share` cores,
  // each loading its own copy. Grid steps are the iterations that load:
  // one per query block when keys are held (its KV tiles of the held keys
  // are a loop over VMEM inside the step like the sub-tiles: no DMA, no
  // step overhead), and one per streamed pair.
  int64_t share = held > 0 && bh < cores ? std::min(nq, cores / bh) : 1;
  l.parallelTiles = held > 0 ? bh * share : bh * nq;
  // Quadratic in the sequence: checked (a step count past int64 is no
  // tiling to price).
  std::optional<int64_t> steps =
      (c(held > 0 ? bh * nq : 0) + c(bh) * c(streamed)).toInt64();
  if (!steps)
    return std::nullopt;
  l.steps = *steps;
  if (!k.inputOnChip) {
    l.readBytes += c(bh) * c(k.group) * c(sq) * c(dqk) * c(k.lhsBytes);
    l.readTransfers += c(bh) * c(nq);
  }
  // The held keys once per head (and core sharing it); each streamed pair
  // one K tile (and one V tile unless V is part of K); non-causal, the
  // keys past the held ones once per query block, exactly.
  int64_t kvWidth = k.kvWidth();
  int64_t kvTensors = k.latent ? 1 : 2;
  Count streamedRows = k.causal ? c(streamed) * c(tkv) : c(nq) * c(skv - held);
  l.readBytes +=
      c(bh) * (c(share) * c(held) + streamedRows) * c(kvWidth) * c(k.rhsBytes);
  l.readTransfers += (held > 0 ? c(l.parallelTiles) : c(0)) * c(kvTensors) +
                     c(bh) * c(streamed) * c(kvTensors);
  if (!k.outputOnChip) {
    l.writeBytes = c(bh) * c(k.group) * c(sq) * c(dv) * c(k.outBytes);
    l.writeTransfers = c(bh) * c(nq);
  }
  // Per visited pair: S = Q K^T and O += P V on padded tiles; the online
  // softmax on every score of the tile (masked ones too): scale, running
  // max, subtract, exp, sum; then the rescale of the running output.
  Count computed = c(bh) * c(pairs);
  // Fill: the first query block and K/V tile (held keys: the first head's
  // held K/V); drain: the last output block.
  int64_t rows = tq * k.group;
  Count kvTileBytes = c(tkv) * c(kvWidth) * c(k.rhsBytes);
  l.firstReadBytes =
      (k.inputOnChip ? c(0) : c(rows) * c(dqk) * c(k.lhsBytes)) +
      (held > 0 ? c(held) * c(kvWidth) * c(k.rhsBytes) : kvTileBytes);
  l.lastWriteBytes = k.outputOnChip ? c(0) : c(rows) * c(dv) * c(k.outBytes);
  // Each block's streamed KV loop starts with its first K/V tile, loaded
  // during the previous block only if handsOff; a causal or windowed KV
  // range depends on the block (a run-time trip count) unless there is one.
  // Nothing held: a core's first block has it in the fill. A prefix held:
  // the fill holds the prefix, so a head's first block that streams waits
  // for it too, and without a hand-off every block that streams (those
  // that visit tile held / tkv: their range starts at 0).
  bool dynamicKv = (k.causal || k.window > 0) && nq > 1;
  int64_t kvSteps = nq == 1 ? streamed : llvm::divideCeil(skv - held, tkv);
  bool handed = handsOff(kvSteps, dynamicKv);
  if (held == 0 && !handed) {
    l.refillBytes = kvTileBytes;
    l.refillTransfers = kvTensors;
  } else if (held > 0 && streamed > 0) {
    l.refillBytes = kvTileBytes;
    l.refillTransfers = kvTensors;
    if (!handed)
      l.refillTiles =
          bh * (streamed - countVisitedTilesFrom(sq, skv, tq, tkv, k.causal,
                                                 held / tkv + 1));
    l.fillRefills = 0;
  }
  Dim r = {rowsSub, rowsSub};
  l.paddedMatrixFlops =
      computed * (matrixPassFlops(r, {dqk, dqk}, {tkv, tkv}, sub, mxu) +
                  matrixPassFlops(r, {tkv, tkv}, {dv, dv}, sub, mxu));
  l.vectorFlops = computed * c(rowsSub) * (c(4) * c(tkv) + c(dv) + c(3)) +
                  c(bh) * c(k.group) * c(sq) * c(dv);
  l.transcendentalFlops = computed * c(rowsSub) * (c(tkv) + c(1));
  return l;
}

std::optional<LoopTotals> streamTotals(const KernelDesc &k,
                                       ArrayRef<int64_t> t) {
  int64_t rows = k.loops[0];
  if (t[1] != k.loops[1])
    return std::nullopt;
  LoopTotals l;
  l.parallelTiles = l.steps = llvm::divideCeil(rows, t[0]);
  l.readBytes = k.work.bytesRead;
  l.writeBytes = k.work.bytesWritten;
  l.readTransfers = c(l.steps) + c(k.rowReads);
  l.writeTransfers = c(l.steps);
  l.vectorFlops = k.work.vectorFlops;
  l.transcendentalFlops = k.work.transcendentalFlops;
  // Matrix work in a stream kernel (none in practice) runs unpadded.
  l.paddedMatrixFlops = k.work.matrixFlops;
  return l;
}
} // namespace

int64_t mlir::npu::getTpuWorkingSet(const KernelDesc &k, ArrayRef<int64_t> t,
                                    int64_t buffers) {
  if (t.size() != k.loops.size())
    return 0;
  Count s;
  Count nb = c(buffers);
  switch (k.kind) {
  case KernelKind::Gemm: {
    int64_t tm = t[1], tn = t[2], tk = t[3];
    s = nb * (c(tm) * c(tk) * c(k.lhsBytes) + c(tk) * c(tn) * c(k.rhsBytes)) +
        c(tm) * c(tn) * c(4) + nb * c(tm) * c(tn) * c(k.outBytes);
    if (k.extraReadBytes > 0)
      s += nb * c(tm) * c(tn) * c(k.outBytes);
    // A norm of A in the tile (K = tk, whole rows): its output tile, the
    // rows' f32 sum and scale, and its weight vector.
    if (k.normBytes > 0)
      s += c(tm) * c(tk) * c(k.normBytes) + c(tm) * c(8) +
           nb * c(tk) * c(k.normBytes);
    break;
  }
  case KernelKind::GatedMlp:
  case KernelKind::MoeFfn: {
    int64_t tm = t[0], tf = t[1], dm = t[2];
    s = nb * c(tm) * c(dm) * c(k.lhsBytes) +
        nb * c(3) * c(tf) * c(dm) * c(k.rhsBytes) +
        c(2) * c(tm) * c(tf) * c(4) + c(tm) * c(dm) * c(4) +
        nb * c(tm) * c(dm) * c(k.outBytes);
    // A norm in the M tile: its output tile beside x, the rows' f32 sum
    // and scale, and its weight vector.
    if (k.normBytes > 0)
      s += c(tm) * c(dm) * c(k.normBytes) + c(tm) * c(8) +
           nb * c(dm) * c(k.normBytes);
    break;
  }
  case KernelKind::Attention:
  case KernelKind::MlaAbsorbed: {
    // The query block's Q, running output and (max, sum) stay on chip;
    // the scores are one sub-tile's (the logits and exponentials overwrite
    // them), with its row max, new max and rescale factor; the K/V held (a
    // prefix of the head's keys, or all of them) and the streamed K/V tile
    // (unless all are held), with the other operands' buffers (2: the next
    // head's held K/V is loaded during this head's blocks).
    if (!TilingAttr::isValidHeldKv(k.loops, t))
      return 0;
    int64_t rows = t[1] * k.group, rowsSub = t[4] * k.group, tkv = t[2],
            dqk = t[3], dv = k.vDim;
    int64_t kvWidth = dqk + (k.latent ? 0 : dv);
    int64_t held = TilingAttr::getHeldKvPrefix(k.loops, t);
    int64_t kvRows = held + (held < k.loops[2] ? tkv : 0);
    Count qBytes = c(rows) * c(dqk) * c(k.lhsBytes);
    Count outBytes = c(rows) * c(dv) * c(k.outBytes);
    // With one buffer the block's Q is dead when its output is staged, and
    // the liveness-based SRAM plan puts the output where Q was.
    Count qAndOut = nb * (qBytes + outBytes);
    if (buffers == 1 && !qAndOut.isOverflow())
      qAndOut = std::max(qBytes.value(), outBytes.value());
    s = qAndOut + nb * c(kvRows) * c(kvWidth) * c(k.rhsBytes) +
        c(rows) * c(dv) * c(4) + c(rows) * c(8) +
        c(rowsSub) * (c(tkv) + c(3)) * c(4);
    break;
  }
  case KernelKind::Stream:
  case KernelKind::Copy: {
    // Bytes moved per row (what is held whole is not), for the tile's rows,
    // per buffer; what a row holds while it is computed, once; what the
    // kernel holds whole, once.
    // (Rounded up: a kernel that moves less than a byte per row, a cache
    // append of one row, still holds a row's bytes.)
    Count perRow = (k.work.bytesRead + k.work.bytesWritten - c(k.heldBytes) +
                    c(k.loops[0] - 1)) /
                   c(k.loops[0]);
    s = (nb * perRow + c(k.rowStateBytes)) * c(t[0]) + c(k.tableBytes) +
        c(k.heldBytes);
    break;
  }
  }
  // An input that an earlier phase of the kernel left on chip, or an output
  // a later phase reads there, is held whole while this phase runs (the
  // MLA absorbed kernel's projected query and latent output).
  if (k.inputOnChip || k.outputOnChip) {
    Count in, out;
    const SmallVector<int64_t, 4> &l = k.loops;
    switch (k.kind) {
    case KernelKind::Gemm:
      in = c(l[0]) * c(l[1]) * c(l[3]) * c(k.lhsBytes);
      out = c(l[0]) * c(l[1]) * c(l[2]) * c(k.outBytes);
      break;
    case KernelKind::Attention:
    case KernelKind::MlaAbsorbed:
      in = c(l[0]) * c(k.group) * c(l[1]) * c(l[3]) * c(k.lhsBytes);
      out = c(l[0]) * c(k.group) * c(l[1]) * c(k.vDim) * c(k.outBytes);
      break;
    case KernelKind::GatedMlp:
    case KernelKind::MoeFfn:
      in = c(l[0]) * c(l[2]) * c(k.lhsBytes);
      out = c(l[0]) * c(l[2]) * c(k.outBytes);
      break;
    case KernelKind::Stream:
    case KernelKind::Copy:
      break;
    }
    if (k.inputOnChip)
      s += in;
    if (k.outputOnChip)
      s += out;
  }
  return s.toInt64().value_or(0);
}

std::optional<TpuCost> mlir::npu::getTpuPhaseCost(const KernelDesc &k,
                                                  ArrayRef<int64_t> t,
                                                  int64_t buffers,
                                                  const TpuParams &p,
                                                  int64_t chunks) {
  if (t.size() != k.loops.size() || buffers < 1 || chunks < 1 ||
      (chunks > 1 && k.kind != KernelKind::Gemm))
    return std::nullopt;
  for (auto [n, ti] : llvm::zip(k.loops, t))
    if (ti < 1 || ti > n)
      return std::nullopt;
  std::optional<LoopTotals> l;
  switch (k.kind) {
  case KernelKind::Gemm:
    l = gemmTotals(k, t, chunks, p.mxuDim, p.sublanes);
    break;
  case KernelKind::GatedMlp:
  case KernelKind::MoeFfn:
    l = gatedTotals(k, t, p.mxuDim, p.sublanes);
    break;
  case KernelKind::Attention:
  case KernelKind::MlaAbsorbed:
    l = attentionTotals(k, t, p.mxuDim, p.sublanes, p.cores);
    break;
  case KernelKind::Stream:
  case KernelKind::Copy:
    l = streamTotals(k, t);
    break;
  }
  if (!l)
    return std::nullopt;
  int64_t sram = getTpuWorkingSet(k, t, buffers);
  if (sram <= 0 || sram > p.sramBytes)
    return std::nullopt;
  if (l->readBytes.isOverflow() || l->writeBytes.isOverflow() ||
      l->paddedMatrixFlops.isOverflow() || l->vectorFlops.isOverflow() ||
      l->transcendentalFlops.isOverflow() || l->readTransfers.isOverflow() ||
      l->writeTransfers.isOverflow() ||
      (l->firstReadBytes && l->firstReadBytes->isOverflow()) ||
      l->refillBytes.isOverflow() || l->chunkedBytes.isOverflow() ||
      (l->lastWriteBytes && l->lastWriteBytes->isOverflow()))
    return std::nullopt;

  // Parallel tiles are dealt to the cores in equal shares (the last share
  // may be short: the busiest core has ceil(tiles / cores) of them). The
  // cores that have work share the HBM bandwidth.
  int64_t activeCores = std::min(p.cores, l->parallelTiles);
  int64_t splitCores = std::min(activeCores, l->reductionCores);
  if (splitCores > 1) {
    Count partials = l->reductionBytes * c(splitCores - 1);
    l->readBytes += partials;
    l->writeBytes += partials;
    l->crossCoreBytes = partials;
    l->vectorFlops += l->reductionBytes / c(4) * c(splitCores - 1);
    if (l->readBytes.isOverflow() || l->writeBytes.isOverflow() ||
        l->vectorFlops.isOverflow())
      return std::nullopt;
  }
  double seqPerTile = double(l->steps) / double(l->parallelTiles);
  int64_t tilesPerCore = llvm::divideCeil(l->parallelTiles, p.cores);
  double stepsPerCore = double(tilesPerCore) * seqPerTile;
  double share = double(tilesPerCore) / double(l->parallelTiles);
  double steps = double(l->steps);
  double bwPerNs = p.hbmBytesPerNs * double(p.cores) / double(activeCores);

  // Per-step averages on the busiest core.
  double matrixNs =
      d(l->paddedMatrixFlops) / steps / p.matrixPerNs(k.matrixType);
  double vectorNs = d(l->vectorFlops) / steps / p.vectorPerNs;
  double transcNs = d(l->transcendentalFlops) / steps / p.transcPerNs;
  double computeStep = std::max({matrixNs, vectorNs, transcNs});
  double engines = double(p.dmaEngines);
  // A step's loads: the streamed reads in equal shares (held operands are
  // the fill's only).
  double stepReadTransfers =
      (d(l->readTransfers) - double(l->heldReadTransfers)) / steps;
  double inStep = (d(l->readBytes) - d(l->heldReadBytes)) / steps / bwPerNs +
                  p.dmaSetupNs * stepReadTransfers / engines;
  double outStep = d(l->writeBytes) / steps / bwPerNs +
                   p.dmaSetupNs * d(l->writeTransfers) / steps / engines;
  double stage = computeStep + p.stepOverheadNs;
  double period = buffers >= 2 ? std::max(stage, inStep + outStep)
                               : stage + inStep + outStep;
  // Fill and drain move the first step's loads and the last step's stores.
  // A transfer in n pieces of `piece` ns each, interleaved with compute
  // pieces of `compute` ns (load chunks before their compute, row bands'
  // stores after theirs): what is exposed is one piece, plus what each of
  // the others takes beyond the compute piece beside it.
  auto staggered = [](double piece, int64_t n, double compute) {
    return piece + double(n - 1) * std::max(0.0, piece - compute);
  };
  // Chunked loads: compute starts on the first chunk.
  double setupIn =
      p.dmaSetupNs *
      (stepReadTransfers / double(l->chunks) + double(l->heldReadTransfers)) /
      engines;
  auto chunkedWait = [&](Count bytes) {
    double chunked = std::min(d(l->chunkedBytes), d(bytes));
    return (d(bytes) - chunked) / bwPerNs +
           staggered(chunked / double(l->chunks) / bwPerNs, l->chunks,
                     computeStep / double(l->chunks));
  };
  double fill =
      l->firstReadBytes ? chunkedWait(*l->firstReadBytes) + setupIn : inStep;
  // Banded stores: the bands of the last K chunk leave as they are done.
  double setupOut =
      p.dmaSetupNs * d(l->writeTransfers) / steps / engines / double(l->bands);
  double drain =
      l->lastWriteBytes
          ? staggered(d(*l->lastWriteBytes) / double(l->bands) / bwPerNs,
                      l->bands,
                      computeStep / double(l->chunks) / double(l->bands)) +
                setupOut
          : outStep;

  // Tiles after a core's first that wait for their first inner loads.
  double refill = buffers >= 2 && l->refillBytes.value() > 0
                      ? chunkedWait(l->refillBytes) +
                            p.dmaSetupNs * double(l->refillTransfers) /
                                engines / double(l->chunks)
                      : 0.0;

  TpuCost cost;
  int64_t refilledTilesPerCore = llvm::divideCeil(
      l->refillTiles ? l->refillTiles : l->parallelTiles, p.cores);
  cost.timeNs =
      fill + stage + drain + (stepsPerCore - 1) * period +
      double(std::max<int64_t>(0, refilledTilesPerCore - l->fillRefills)) *
          refill;
  cost.computeNs = stepsPerCore * computeStep;
  cost.memoryNs = d(l->readBytes + l->writeBytes) * share / bwPerNs;
  cost.overheadNs =
      std::max(0.0, cost.timeNs - std::max(cost.computeNs, cost.memoryNs));
  cost.hbmReadBytes = l->readBytes;
  cost.hbmWriteBytes = l->writeBytes;
  cost.crossCoreBytes = l->crossCoreBytes;
  cost.sramBytes = sram;
  cost.paddedMatrixFlops = l->paddedMatrixFlops;
  cost.steps = int64_t(std::ceil(stepsPerCore));
  return cost;
}

std::optional<TpuCost> mlir::npu::getTpuKernelCost(
    const KernelModel &model, ArrayRef<int64_t> mainTile, int64_t buffers,
    const TpuParams &p, int64_t chunks, ArrayRef<int64_t> sharedTile) {
  TpuCost total;
  for (auto [i, phase] : llvm::enumerate(model.phases)) {
    std::optional<TpuCost> cost;
    if (i == model.mainPhase) {
      cost = getTpuPhaseCost(phase, mainTile, buffers, p, chunks);
    } else if (static_cast<int>(i) == model.sharedPhase) {
      // Its own tile, or the main one (what the lowering then uses).
      SmallVector<int64_t, 4> tile(sharedTile);
      if (tile.empty())
        for (auto [n, ti] : llvm::zip(phase.loops, mainTile))
          tile.push_back(std::min(n, ti));
      cost = getTpuPhaseCost(phase, tile, buffers, p);
    } else if (std::optional<TpuTileChoice> choice = chooseTpuTile(phase, p)) {
      cost = choice->cost;
    }
    if (!cost)
      return std::nullopt;
    TpuCost scaled = *cost;
    double r = double(phase.repeat);
    scaled.timeNs *= r;
    scaled.computeNs *= r;
    scaled.memoryNs *= r;
    scaled.overheadNs *= r;
    scaled.hbmReadBytes = cost->hbmReadBytes * c(phase.repeat);
    scaled.hbmWriteBytes = cost->hbmWriteBytes * c(phase.repeat);
    scaled.crossCoreBytes = cost->crossCoreBytes * c(phase.repeat);
    scaled.paddedMatrixFlops = cost->paddedMatrixFlops * c(phase.repeat);
    scaled.steps = cost->steps * phase.repeat;
    total += scaled;
  }
  // Serial scalar work before the tile loops (one core's scalar unit; the
  // other cores wait for its result): time nothing overlaps.
  double scalarNs = double(model.serialScalarOps) / p.scalarOpsPerNs;
  total.timeNs += scalarNs;
  total.overheadNs += scalarNs;
  // Its arrays' traffic, at one core's bandwidth, before the loops too.
  double serialMemoryNs =
      double(model.serialReadBytes + model.serialWriteBytes) / p.hbmBytesPerNs;
  total.timeNs += serialMemoryNs;
  total.memoryNs += serialMemoryNs;
  total.hbmReadBytes += c(model.serialReadBytes);
  total.hbmWriteBytes += c(model.serialWriteBytes);
  return total;
}
