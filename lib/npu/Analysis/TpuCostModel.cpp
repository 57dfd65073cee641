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
#include "TpuLoopTotals.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::tpu_detail;

FailureOr<TpuParams> TpuParams::get(TargetAttr target) {
  TpuTargetAttr tpu = target.getTpu();
  if (!tpu)
    return failure();
  TpuParams p;
  p.target = target;
  p.cores = tpu.getTensorCoreCount();
  p.mxuDim = tpu.getMatrixUnitDimElements();
  p.sublanes = tpu.getSublanes();
  p.sramBytes = tpu.getVmemBytesPerCore();
  p.dmaEngines = tpu.getDmaEnginesPerCore();
  p.dmaSetupNs = tpu.getDmaSetupLatencyNs().convertToDouble();
  p.rowDmas = tpu.getRowDmasInFlightPerCore();
  p.stepOverheadNs = tpu.getGridStepOverheadNs().convertToDouble();
  // One clock for the whole core: its vector, transcendental and scalar
  // units run at the sustained clock the matrix unit was calibrated at.
  double cores = double(p.cores), clockShare = getSustainedClockShare(target);
  p.vectorPerNs =
      target.getVectorFlopPerS().convertToDouble() * clockShare / cores * 1e-9;
  p.transcPerNs = target.getTranscendentalPerS().convertToDouble() *
                  clockShare / cores * 1e-9;
  p.hbmBytesPerNs =
      target.getSustainedHbmBandwidthBytesPerS().convertToDouble() / cores *
      1e-9;
  p.scalarOpsPerNs = target.getMatrixClockHz().convertToDouble() * 1e-9;
  p.matrixRates = MatrixRates::get(target, p.cores);
  return p;
}

void TpuParams::appendKey(SmallVectorImpl<uint64_t> &key) const {
  // A field added to TpuParams must be added here too.
  static_assert(sizeof(void *) != 8 || sizeof(TpuParams) == 136,
                "TpuParams changed: update appendKey");
  key.append({uint64_t(cores), uint64_t(mxuDim), uint64_t(sublanes),
              uint64_t(sramBytes), uint64_t(dmaEngines), uint64_t(rowDmas)});
  for (double v : {dmaSetupNs, stepOverheadNs, vectorPerNs, transcPerNs,
                   hbmBytesPerNs, scalarOpsPerNs})
    key.push_back(llvm::bit_cast<uint64_t>(v));
  // The matrix rates are the target's (MatrixRates::get).
  key.push_back(uint64_t(uintptr_t(target.getAsOpaquePointer())));
}

TpuCost &TpuCost::operator+=(const TpuCost &o) {
  add(o);
  crossCoreBytes += o.crossCoreBytes;
  sramBytes = std::max(sramBytes, o.sramBytes);
  steps += o.steps;
  return *this;
}

/// A stream or copy kernel's working set with tiles of `tileRows` rows and
/// `nb` buffers: the bytes moved per row (what is held whole is not), for
/// the tile's rows, per buffer; what a row holds while it is computed, once;
/// what the kernel holds whole, once. (Rounded up: a kernel that moves less
/// than a byte per row, a cache append of one row, still holds a row's
/// bytes.)
static Count streamWorkingSet(const KernelDesc &k, int64_t tileRows, Count nb) {
  int64_t rows = k.rowLoops().rows;
  // A combine's routed rows are staged per gather, not per row (below).
  Count perRow = (k.work.bytesRead - k.combineReadBytes() +
                  k.work.bytesWritten - c(k.heldReadBytes) + c(rows - 1)) /
                 c(rows);
  // The rotary table: whole, or (per tile) the inverse frequencies and the
  // tile's positions' cos and sin, f32.
  Count table = c(k.tableBytes);
  if (k.tablePerTile && k.tableRows > 0)
    table = c(4) * c(k.tableEntries) *
            (c(1) + c(2) * c(std::min(tileRows, k.tableRows)));
  // Each tiled operand's buffer, rounded up to 64 bytes, where they are
  // known one by one.
  Count tiles = nb * perRow * c(tileRows);
  if (!k.rowBufferBytes.empty()) {
    tiles = Count();
    for (int64_t b : k.rowBufferBytes)
      tiles += nb * c(llvm::alignTo(b * tileRows, 64));
  }
  // The state held in buffers of its own (a norm's statistics, a router's
  // scores and slots), each at least the 64 bytes every allocation is
  // aligned to.
  Count state = c(k.rowStateBytes) * c(tileRows);
  for (int64_t b : k.rowStateBuffers)
    state += c(llvm::alignTo(b * tileRows, 64));
  return tiles + state + table + c(k.heldBytes);
}

/// An attention kernel's working set: the query block's Q, running output
/// and (max, sum) stay on chip; the scores are one sub-tile's (the logits
/// and exponentials overwrite them), with its row max, new max and rescale
/// factor; the K/V held (a prefix of the head's keys, or all of them) and
/// the streamed K/V tile (unless all are held), with the other operands'
/// buffers (2: the next head's held K/V is loaded during this head's
/// blocks).
static Count attentionWorkingSet(const KernelDesc &k,
                                 const AttentionNest<> &tile, int64_t buffers) {
  Count nb = c(buffers);
  int64_t rows = tile.q * k.group, rowsSub = tile.qSub * k.group, tkv = tile.kv,
          dqk = tile.headDim, dv = k.vDim;
  int64_t kvWidth = dqk + (k.latent ? 0 : dv);
  int64_t held = getHeldKvPrefix(tile);
  int64_t kvRows = held + (held < k.attentionLoops().kv ? tkv : 0);
  Count qBytes = c(rows) * c(dqk) * c(k.lhsBytes);
  Count outBytes = c(rows) * c(dv) * c(k.outBytes);
  // With one buffer the block's Q is dead when its output is staged, and
  // the liveness-based SRAM plan puts the output where Q was.
  Count qAndOut = nb * (qBytes + outBytes);
  if (buffers == 1 && !qAndOut.isOverflow())
    qAndOut = std::max(qBytes.value(), outBytes.value());
  // Plus what the body computes whole before the loops (a transposed
  // query), held. The row max and sum and the sub-tile's three row vectors
  // are buffers of their own, each 64-byte aligned like every allocation.
  return qAndOut + nb * bytesOf(c(kvRows) * c(kvWidth), k.rhsBytes) +
         c(rows) * c(dv) * c(4) + c(2) * c(llvm::alignTo(rows * 4, 64)) +
         c(rowsSub) * c(tkv) * c(4) + c(3) * c(llvm::alignTo(rowsSub * 4, 64)) +
         c(k.heldBytes);
}

int64_t mlir::npu::getTpuWorkingSet(const KernelDesc &k, ArrayRef<int64_t> t,
                                    int64_t buffers, const MatrixRates *rates) {
  bool converts =
      k.storedRhs && (!rates || getMatrixPath(k, *rates).dequantFlops > 0);
  if (t.size() != k.loops.size())
    return 0;
  Count s;
  Count nb = c(buffers);
  switch (k.kind) {
  case KernelKind::Gemm: {
    GemmNest<> tile = GemmNest<>::from(t);
    int64_t tm = tile.m, tn = tile.n, tk = tile.k;
    s = nb * (c(tm) * c(tk) * c(k.lhsBytes) +
              bytesOf(c(tk) * c(tn), k.rhsBytes)) +
        c(tm) * c(tn) * c(4) + nb * c(tm) * c(tn) * c(k.outBytes);
    // An epilogue input's tile; a per-column vector's slice (64-B aligned).
    if (k.extraReadBytes > k.columnBytes)
      s += nb * c(tm) * c(tn) * c(k.outBytes);
    if (k.columnBytes > 0) {
      int64_t n = k.gemmLoops().n;
      s += nb * c(llvm::alignTo(
                    llvm::divideCeil(k.columnBytes, n) * std::min(tn, n), 64));
    }
    // A stored B the matrix unit does not take: its tile converted for the
    // matrix unit, in the activations' type.
    if (converts)
      s += c(tk) * c(tn) * c(getElementBytes(k.storedRhs.fallbackType));
    // A norm of A in the tile (K = tk, whole rows): its output tile, the
    // rows' f32 sum and scale, and its weight vector.
    if (k.normBytes > 0)
      s += c(tm) * c(tk) * c(k.normBytes) + c(tm) * c(8) +
           nb * c(tk) * c(k.normBytes);
    break;
  }
  case KernelKind::GatedMlp:
  case KernelKind::MoeFfn: {
    // x and y's f32 accumulator whole in D; the weight tiles one D chunk;
    // y's tiles, and as many of an input the epilogue adds (Llama-4's shared
    // expert plus the routed output).
    auto [tm, tf, td] = MlpNest<>::from(t);
    int64_t dm = k.mlpLoops().d;
    s = nb * c(tm) * c(dm) * c(k.lhsBytes) +
        nb * bytesOf(c(3) * c(tf) * c(td), k.rhsBytes) +
        c(2) * c(tm) * c(tf) * c(4) + c(tm) * c(dm) * c(4) +
        c(k.epilogueInput ? 2 : 1) * nb * c(tm) * c(dm) * c(k.outBytes) +
        c(k.heldBytes);
    if (converts)
      s += c(3) * c(tf) * c(td) * c(getElementBytes(k.storedRhs.fallbackType));
    // A MoE expert's biases (its other reads: (2 F + D) elements): the F
    // tile's gate and up slices and the down bias, each its own buffer.
    if (k.gatheredRows && k.extraReadBytes > 0) {
      int64_t f = k.mlpLoops().f;
      int64_t eb = k.extraReadBytes / (2 * f + dm);
      s += nb * c(2 * llvm::alignTo(tf * eb, 64) + llvm::alignTo(dm * eb, 64));
    }
    // A norm in the M tile: its output tile beside x, the rows' f32 sum
    // and scale, and its weight vector.
    if (k.normBytes > 0)
      s += c(tm) * c(dm) * c(k.normBytes) + c(tm) * c(8) +
           nb * c(dm) * c(k.normBytes);
    break;
  }
  case KernelKind::Attention:
  case KernelKind::MlaAbsorbed:
    if (!isValidHeldKv(k.attentionLoops(), AttentionNest<>::from(t)))
      return 0;
    s = attentionWorkingSet(k, AttentionNest<>::from(t), buffers);
    if (!s.isOverflow())
      s = std::max(s.value(), uint64_t(k.prologueBytes));
    break;
  case KernelKind::Stream:
  case KernelKind::Copy:
    s = streamWorkingSet(k, RowNest<>::from(t).rows, nb);
    break;
  }
  // The combine: a block of its tokens' rows (a D chunk of the tile's) and
  // their routing weights, each in `buffers` copies (read one ahead).
  if (k.combineSlots > 0) {
    int64_t rows = moeCombineTokens(t.front(), k.combineSlots) * k.combineSlots;
    s += nb * (c(rows) * c(t.back()) * c(k.outBytes) +
               c(llvm::alignTo(rows * k.combineWeightBytes, 64)));
  }
  // An input that an earlier phase of the kernel left on chip, or an output
  // a later phase reads there, is held whole while this phase runs (the
  // MLA absorbed kernel's projected query and latent output).
  if (k.inputOnChip || k.outputOnChip) {
    Count in, out;
    switch (k.kind) {
    case KernelKind::Gemm: {
      GemmNest<> l = k.gemmLoops();
      in = c(l.batch) * c(l.m) * c(l.k) * c(k.lhsBytes);
      out = c(l.batch) * c(l.m) * c(l.n) * c(k.outBytes);
      break;
    }
    case KernelKind::Attention:
    case KernelKind::MlaAbsorbed: {
      AttentionNest<> l = k.attentionLoops();
      in = c(l.heads) * c(k.group) * c(l.q) * c(l.headDim) * c(k.lhsBytes);
      out = c(l.heads) * c(k.group) * c(l.q) * c(k.vDim) * c(k.outBytes);
      break;
    }
    case KernelKind::GatedMlp:
    case KernelKind::MoeFfn: {
      MlpNest<> l = k.mlpLoops();
      in = c(l.m) * c(l.d) * c(k.lhsBytes);
      out = c(l.m) * c(l.d) * c(k.outBytes);
      break;
    }
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

/// The totals of the loop nest of `k` with tile `t` (valid for the kind,
/// counts that fit 64 bits); nullopt otherwise.
static std::optional<LoopTotals>
getLoopTotals(const KernelDesc &k, ArrayRef<int64_t> t, int64_t buffers,
              const TpuParams &p, int64_t chunks) {
  // Only a gated MLP nests repetitions (a MoE's experts) in its loops.
  bool gated = k.kind == KernelKind::GatedMlp || k.kind == KernelKind::MoeFfn;
  if (t.size() != k.loops.size() || buffers < 1 || chunks < 1 ||
      (chunks > 1 && k.kind != KernelKind::Gemm) || (k.repeat != 1 && !gated))
    return std::nullopt;
  for (auto [n, ti] : llvm::zip(k.loops, t))
    if (ti < 1 || ti > n)
      return std::nullopt;
  std::optional<LoopTotals> l;
  switch (k.kind) {
  case KernelKind::Gemm:
    l = gemmTotals(k, GemmNest<>::from(t), chunks, p.mxuDim, p.sublanes);
    break;
  case KernelKind::GatedMlp:
  case KernelKind::MoeFfn:
    l = gatedTotals(k, MlpNest<>::from(t), p.mxuDim, p.sublanes, p.cores);
    break;
  case KernelKind::Attention:
  case KernelKind::MlaAbsorbed:
    l = attentionTotals(k, AttentionNest<>::from(t), p.mxuDim, p.sublanes,
                        p.cores);
    break;
  case KernelKind::Stream:
  case KernelKind::Copy:
    l = streamTotals(k, RowNest<>::from(t));
    break;
  }
  if (!l)
    return std::nullopt;
  // A stored B the matrix unit does not take: the vector unit converts each
  // B tile as it loads.
  if (int64_t dq = getMatrixPath(k, p.matrixRates).dequantFlops)
    l->vectorFlops += c(dq) * l->rhsLoadedElements;
  if (l->readBytes.isOverflow() || l->writeBytes.isOverflow() ||
      l->paddedMatrixFlops.isOverflow() || l->vectorFlops.isOverflow() ||
      l->transcendentalFlops.isOverflow() || l->readTransfers.isOverflow() ||
      l->rowReadTransfers.isOverflow() || l->writeTransfers.isOverflow() ||
      (l->firstReadBytes && l->firstReadBytes->isOverflow()) ||
      l->refillBytes.isOverflow() || l->prefetchBytes.isOverflow() ||
      l->chunkedBytes.isOverflow() || l->combineBytes.isOverflow() ||
      l->combineVectorFlops.isOverflow() ||
      (l->lastWriteBytes && l->lastWriteBytes->isOverflow()))
    return std::nullopt;
  return l;
}

/// A reduction split over `splitCores` cores: each but one writes its f32
/// partial sum and one reads and adds them. False on overflow.
static bool addPartialSums(LoopTotals &l, int64_t splitCores) {
  if (splitCores <= 1)
    return true;
  Count partials = l.reductionBytes * c(splitCores - 1);
  l.readBytes += partials;
  l.writeBytes += partials;
  l.crossCoreBytes = partials;
  l.vectorFlops += l.reductionBytes / c(4) * c(splitCores - 1);
  return !l.readBytes.isOverflow() && !l.writeBytes.isOverflow() &&
         !l.vectorFlops.isOverflow();
}

std::optional<TpuCost> mlir::npu::getTpuPhaseCost(const KernelDesc &k,
                                                  ArrayRef<int64_t> t,
                                                  int64_t buffers,
                                                  const TpuParams &p,
                                                  int64_t chunks) {
  // The working set first: it is the cheaper test.
  int64_t sram = getTpuWorkingSet(k, t, buffers, &p.matrixRates);
  if (sram <= 0 || sram > p.sramBytes)
    return std::nullopt;
  return getFittingTpuPhaseCost(k, t, buffers, p, chunks, sram);
}

std::optional<TpuCost>
mlir::npu::getFittingTpuPhaseCost(const KernelDesc &k, ArrayRef<int64_t> t,
                                  int64_t buffers, const TpuParams &p,
                                  int64_t chunks, int64_t sram) {
  std::optional<LoopTotals> l = getLoopTotals(k, t, buffers, p, chunks);
  if (!l)
    return std::nullopt;

  // Parallel tiles are dealt to the cores in equal shares (the last share
  // may be short: the busiest core has ceil(tiles / cores) of them). The
  // cores that have work share the HBM bandwidth.
  int64_t activeCores = std::min(p.cores, l->parallelTiles);
  if (!addPartialSums(*l, std::min(activeCores, l->reductionCores)))
    return std::nullopt;
  double seqPerTile = double(l->steps) / double(l->parallelTiles);
  int64_t tilesPerCore = llvm::divideCeil(l->parallelTiles, p.cores);
  double stepsPerCore = double(tilesPerCore) * seqPerTile;
  double share = double(tilesPerCore) / double(l->parallelTiles);
  double steps = double(l->steps);
  double bwPerNs = p.hbmBytesPerNs * double(p.cores) / double(activeCores);

  // Per-step averages on the busiest core.
  double matrixNs = d(l->paddedMatrixFlops) / steps /
                    p.matrixPerNs(getMatrixPath(k, p.matrixRates).type);
  double vectorNs = d(l->vectorFlops) / steps / p.vectorPerNs;
  double transcNs = d(l->transcendentalFlops) / steps / p.transcPerNs;
  double computeStep = std::max({matrixNs, vectorNs, transcNs});
  double engines = double(p.dmaEngines);
  // A step's loads: the streamed reads in equal shares (held operands are
  // the fill's only).
  double stepReadTransfers =
      (d(l->readTransfers) - double(l->heldReadTransfers + l->combineBlocks)) /
      steps;
  double inStep = (d(l->readBytes) - d(l->heldReadBytes) - d(l->combineBytes)) /
                      steps / bwPerNs +
                  p.dmaSetupNs * stepReadTransfers / engines;
  double outStep = d(l->writeBytes) / steps / bwPerNs +
                   p.dmaSetupNs * d(l->writeTransfers) / steps / engines;
  // Row copies (their bytes are in inStep) go `rowDmas` at a time beside
  // the tile transfers, each waiting the setup latency: a chain that bounds
  // the step's transfers from below (Little's law), not a sum.
  auto rowChain = [&](double rows) {
    return p.dmaSetupNs * rows / double(p.rowDmas);
  };
  double stepRows = d(l->rowReadTransfers) / steps;
  double moveStep = std::max(inStep + outStep, rowChain(stepRows));
  double stage = computeStep + p.stepOverheadNs;
  double period = buffers >= 2 ? std::max(stage, moveStep) : stage + moveStep;
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
  double fill = std::max(
      l->firstReadBytes ? chunkedWait(*l->firstReadBytes) + setupIn : inStep,
      rowChain(l->firstRowTransfers ? double(*l->firstRowTransfers)
                                    : stepRows));
  // Banded stores: the bands of the last K chunk leave as they are done.
  double setupOut =
      p.dmaSetupNs * d(l->writeTransfers) / steps / engines / double(l->bands);
  // A tile's rows stored one copy each: a chain the core waits for after
  // the last tile, and at the next tile's start before it issues a load or
  // (two buffers) in its first step after that step issued the second
  // step's loads, beside a period's loads.
  double rowWrites = rowChain(double(l->tileRowWrites));
  bool writesInStep = buffers >= 2 && l->rowWritesInFirstStep;
  double startWrites = writesInStep ? 0.0 : rowWrites;
  double stepWrites =
      writesInStep ? std::max(0.0, rowWrites + stage - period) : 0.0;
  double drain = std::max(
      rowWrites,
      l->lastWriteBytes
          ? staggered(d(*l->lastWriteBytes) / double(l->bands) / bwPerNs,
                      l->bands,
                      computeStep / double(l->chunks) / double(l->bands)) +
                setupOut
          : outStep);

  // Tiles after a core's first that wait for their first inner loads.
  // One refill in refillsPerRowWait also waits for the gathered rows: the
  // average refill.
  double refill = 0.0;
  bool prefetched = buffers == 2 && l->prefetchBytes.value() > 0;
  double firstRows =
      rowChain(l->firstRowTransfers ? double(*l->firstRowTransfers) : 0.0);
  if (prefetched) {
    // The last step of a tile carries the next tile's first weights and
    // runs the next tile's rows' chain before its compute (and the tile's
    // own row stores after it, when the next tile starts with them): the
    // core's chains and compute take the place of a period, or the loads,
    // whichever is longer.
    double loads = d(l->prefetchBytes) / bwPerNs +
                   p.dmaSetupNs * l->prefetchTransfers / engines;
    refill = std::max(0.0, std::max(firstRows + stage + startWrites, loads) -
                               period);
  } else if (buffers >= 2 && l->refillBytes.value() > 0) {
    double loads =
        chunkedWait(l->refillBytes) +
        p.dmaSetupNs * l->refillTransfers / engines / double(l->chunks);
    // The tile before may store its rows first, before these loads.
    double withRows = startWrites + std::max(loads, firstRows);
    double perRow = double(l->refillsPerRowWait);
    refill = (withRows + (perRow - 1) * loads) / perRow;
  }

  TpuCost cost;
  int64_t refilledTilesPerCore = llvm::divideCeil(
      l->refillTiles ? l->refillTiles : l->parallelTiles, p.cores);
  // The step before a refill loads nothing for the next one (the refill
  // does): it takes max(stage, its stores), not a period.
  double refills =
      double(std::max<int64_t>(0, refilledTilesPerCore - l->fillRefills));
  double lastBeforeRefill =
      refill > 0 && !prefetched ? period - std::max(stage, outStep) : 0.0;
  // The combine's blocks, after the compute of their tiles (dealt to the
  // cores like them): per tile a loop that reads each block one ahead of
  // its weighted sum, so the first block's load, then the longer of a load
  // and a sum per block, then the last sum.
  double combineNs = 0.0;
  if (l->combineBlocks > 0) {
    double blocks = double(l->combineBlocks);
    double load = p.dmaSetupNs + d(l->combineBytes) / blocks / bwPerNs;
    double sum = d(l->combineVectorFlops) / blocks / p.vectorPerNs;
    double perLoop = blocks / double(l->combineLoops);
    combineNs = double(llvm::divideCeil(l->combineLoops, activeCores)) *
                (load + (perLoop - 1) * std::max(load, sum) + sum);
  }
  // A refill costs at least nothing: the step before it saves at most what
  // the refill waits. Per-step averages (a period moves an average step's
  // bytes) can otherwise price a tile's first loads below what they move,
  // and the kernel below its own HBM time, which is a floor too.
  cost.computeNs = stepsPerCore * computeStep;
  cost.memoryNs = d(l->readBytes + l->writeBytes) * share / bwPerNs;
  cost.timeNs = std::max(
      cost.memoryNs,
      fill + stage + drain + (stepsPerCore - 1) * period +
          refills * (std::max(0.0, refill - std::max(0.0, lastBeforeRefill)) +
                     stepWrites) +
          combineNs);
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

KernelModel mlir::npu::withTpuDispatch(const KernelModel &model,
                                       const TpuParams &p) {
  KernelModel out = model;
  if (const auto &order = model.dispatchOrder) {
    if (moeDispatchSorts(order->assignments, p.sramBytes)) {
      out.phases[out.mainPhase].heldBytes +=
          moeSortedOrderBytes(order->assignments);
      out.serialVectorFlops += order->sortVectorFlops;
    } else {
      out.serialVectorFlops += order->whereVectorFlops;
      out.serialReadBytes += order->whereReadBytes;
      out.serialScalarOps += order->scatterScalarOps;
      out.serialWriteBytes += order->orderBytes;
    }
    out.dispatchOrder.reset();
  }
  return out;
}

/// The vector operations of a MoE's visit table for M tiles of `tileM`
/// rows (TileMoeDispatch.cpp, buildVisits), with E experts and V =
/// moeVisitTableSize visits: per expert its tiles (an add and a divide),
/// the prefix sum of those (E E x 2, as the offsets') and their sum (E);
/// per visit and expert, whether the expert's visits end by it (an add, a
/// compare and an add): 3 E + 2 E^2 + 3 V E.
static std::optional<int64_t>
visitTableOps(const KernelModel::DispatchOrder &order, int64_t tileM) {
  int64_t tm = std::min(tileM, order.tokens);
  Count e = Count::fromSigned(order.experts);
  Count v = Count::fromSigned(moeVisitTableSize(
      order.assignments, order.plannedRows, order.experts, tm));
  return (Count(3) * e + Count(2) * e * e + Count(3) * v * e).toInt64();
}

std::optional<TpuCost> mlir::npu::getTpuKernelCost(
    const KernelModel &model, ArrayRef<int64_t> mainTile, int64_t buffers,
    const TpuParams &p, int64_t chunks, ArrayRef<int64_t> sharedTile) {
  // A MoE dispatch's order and visit table, resolved for this core and
  // this tile first.
  if (const auto &order = model.dispatchOrder) {
    KernelModel resolved = withTpuDispatch(model, p);
    if (!mainTile.empty()) {
      std::optional<int64_t> visits = visitTableOps(*order, mainTile.front());
      if (!visits || llvm::AddOverflow(resolved.serialVectorFlops, *visits,
                                       resolved.serialVectorFlops))
        return std::nullopt;
    }
    return getTpuKernelCost(resolved, mainTile, buffers, p, chunks, sharedTile);
  }
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
    } else if (phase.combineSlots > 0 && phase.kind == KernelKind::Stream &&
               !mainTile.empty()) {
      // A MoE's combine without a shared expert: the main tile's M tokens
      // at a time, D whole (TileMoe.cpp), not a tile of its own.
      RowNest<> loops = phase.rowLoops();
      cost = getTpuPhaseCost(
          phase,
          RowNest<>{std::min(loops.rows, mainTile.front()), loops.cols}.list(),
          buffers, p);
    } else if (std::optional<TpuTileChoice> choice = chooseTpuTile(phase, p)) {
      cost = choice->cost;
    }
    if (!cost)
      return std::nullopt;
    // A phase's repetitions (a MoE's experts) are part of its loop nest
    // (gatedTotals): its cost covers them.
    total += *cost;
  }
  // Serial scalar work before the tile loops (one core's scalar unit; the
  // other cores wait for its result): time nothing overlaps.
  double scalarNs = double(model.serialScalarOps) / p.scalarOpsPerNs;
  total.timeNs += scalarNs;
  total.overheadNs += scalarNs;
  // Serial vector work before them (one core's vector unit).
  double vectorNs = double(model.serialVectorFlops) / p.vectorPerNs;
  total.timeNs += vectorNs;
  total.computeNs += vectorNs;
  // Its arrays' traffic, at one core's bandwidth, before the loops too.
  double serialMemoryNs =
      double(model.serialReadBytes + model.serialWriteBytes) / p.hbmBytesPerNs;
  total.timeNs += serialMemoryNs;
  total.memoryNs += serialMemoryNs;
  total.hbmReadBytes += c(model.serialReadBytes);
  total.hbmWriteBytes += c(model.serialWriteBytes);
  return total;
}
