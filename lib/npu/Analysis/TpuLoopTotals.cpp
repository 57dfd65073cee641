//===- TpuLoopTotals.cpp - what each kind of loop nest moves and computes -===//
//
// The totals of one kernel's loop nest under a tile, per kernel kind: bytes
// read and written (and in how many DMAs), padded matrix-unit FLOPs, vector
// and transcendental work, what is held across steps and what each tile
// refills. TpuCostModel.cpp spreads them over the pipelined steps.
// docs/cost-model-tpu.md.
//
//===----------------------------------------------------------------------===//

#include "TpuLoopTotals.h"

#include <cmath>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::tpu_detail;

namespace {

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
} // namespace

/// An operand loaded once before the loops and held (`bytes`, one DMA).
static void holdWhole(LoopTotals &l, Count bytes) {
  l.readBytes += bytes;
  l.readTransfers += c(1);
  l.heldReadBytes += bytes;
  l.heldReadTransfers += 1;
}

/// A GEMM's epilogue inputs (`extraReadBytes`) over `rowsOfTiles` rows of
/// `nn` output tiles: each output tile loads its tile of them, a per-column
/// vector (a bias, `columnBytes`) its slice: read once per row of output
/// tiles, or, one block whole (one N tile: the same slice for every tile),
/// loaded once before the loops and held (whatever the chunks: it is not
/// chunked).
static void addEpilogueInputs(LoopTotals &l, const KernelDesc &k,
                              int64_t rowsOfTiles, int64_t nn) {
  Count columns = c(k.columnBytes);
  l.readBytes += c(k.extraReadBytes) - columns;
  if (k.extraReadBytes > k.columnBytes)
    l.readTransfers += c(l.parallelTiles);
  if (k.columnBytes <= 0)
    return;
  if (nn == 1)
    return holdWhole(l, columns);
  l.readBytes += columns * c(rowsOfTiles);
  l.readTransfers += c(l.parallelTiles);
}

std::optional<LoopTotals> tpu_detail::gemmTotals(const KernelDesc &k,
                                                 const GemmNest<> &t,
                                                 int64_t chunks, int64_t mxu,
                                                 int64_t sub) {
  GemmNest<> loops = k.gemmLoops();
  int64_t b = loops.batch, m = loops.m, n = loops.n, kk = loops.k;
  if (t.batch != 1 || (k.needsFullK && t.k != kk))
    return std::nullopt;
  // Chunks split K tiles of one static size (the lowering's condition) of
  // a tiled GEMM (one output); the matrix unit pads each chunk's K.
  if (!isValidGemmChunks(loops, t, chunks) || (chunks > 1 && !k.singleOutput))
    return std::nullopt;
  int64_t kChunk = t.k / chunks;
  int64_t nm = llvm::divideCeil(m, t.m), nk = llvm::divideCeil(kk, t.k);
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
    nn += llvm::divideCeil(ni, t.n);
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
  // (A normalized in the kernel is read by the norm, which loads no
  // chunks: held whole even when the matmul loads B in chunks.)
  bool wholeA = b == 1 && nm == 1 && nk == 1 && l.steps > 1 &&
                (chunks == 1 || k.normBytes > 0);
  if (!k.inputOnChip) {
    if (wholeA) {
      holdWhole(l, aBytes);
    } else {
      l.readBytes += aBytes * c(nn);
      l.readTransfers += c(l.steps) * c(chunks);
    }
  }
  bool firstBHeld = false;
  for (auto [i, ni] : llvm::enumerate(outputs)) {
    int64_t nni = llvm::divideCeil(ni, t.n);
    Count bElements = c(kk) * c(ni) * (k.rhsBatched ? c(b) : c(1));
    Count bBytes = bytesOf(bElements, k.rhsBytes);
    if (nni == 1 && nk == 1 && (b == 1 || !k.rhsBatched) && holds) {
      firstBHeld |= i == 0;
      holdWhole(l, bBytes);
      l.rhsLoadedElements += bElements;
    } else {
      Count loads = c(nm) * (k.rhsBatched ? c(1) : c(b));
      l.readBytes += bBytes * loads;
      l.rhsLoadedElements += bElements * loads;
      l.readTransfers += c(b) * c(nm) * c(nni) * c(nk) * c(chunks);
    }
    l.paddedMatrixFlops +=
        c(b) * matrixPassFlops({m, t.m}, {kk, kChunk}, {ni, std::min(ni, t.n)},
                               sub, mxu);
  }
  addEpilogueInputs(l, k, b * nm, nn);
  // With one K step the output tile is complete inside the step: its last
  // K chunk is computed in `chunks` row bands of static size, each stored
  // as it completes (npu-tpu-chunk-loads).
  if (!k.outputOnChip && !k.foldedBatch && isGemmOutputBanded(loops, t, chunks))
    l.bands = chunks;
  if (!k.outputOnChip) {
    l.writeBytes = c(b) * c(m) * c(n) * c(k.outBytes);
    l.writeTransfers = c(l.parallelTiles) * c(l.bands);
  }
  // Fill: the first A and B tiles (and the first tile of an epilogue
  // input; a held operand whole); drain: the last output tile. The first K
  // step's A and B tiles are also each later output tile's refill, unless
  // handed off.
  int64_t tn = std::min(outputs.front(), t.n);
  Count firstA = k.inputOnChip ? c(0) : c(t.m) * c(t.k) * c(k.lhsBytes);
  Count firstB = bytesOf(c(t.k) * c(tn), k.rhsBytes);
  Count firstKStep = firstA + firstB;
  Count columns = c(k.columnBytes);
  l.firstReadBytes = firstKStep +
                     (c(k.extraReadBytes) - columns) / c(l.parallelTiles) +
                     columns / c(nn);
  l.lastWriteBytes =
      k.outputOnChip
          ? c(0)
          : c(t.m) * c(std::min(outputs.back(), t.n)) * c(k.outBytes);
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

std::optional<LoopTotals> tpu_detail::gatedTotals(const KernelDesc &k,
                                                  const MlpNest<> &t,
                                                  int64_t mxu, int64_t sub,
                                                  int64_t cores) {
  MlpNest<> loops = k.mlpLoops();
  int64_t m = loops.m, f = loops.f, dm = loops.d;
  // A MoE's routed experts (`repeat` of them) are one loop nest: each
  // expert's M tiles, one after another, dealt to the cores like the M
  // tiles of one MLP (TileMoe.cpp: the expert loop around its M tiles).
  // The model width D in chunks of t.d (a small SRAM): each F tile sums g
  // and u over D chunks, then writes the down projection's output D chunk
  // by D chunk (TileGatedMlp.cpp, buildGatedFLoop).
  int64_t groups = k.repeat;
  int64_t nm = llvm::divideCeil(m, t.m), nf = llvm::divideCeil(f, t.f),
          nd = llvm::divideCeil(dm, t.d);
  int64_t tiles = groups * nm;
  LoopTotals l;
  // M and F tiles are independent: with F split over cores, each core adds
  // its partial down projection into y (the reduction is counted below).
  // A step is one D chunk of an F tile: its gate, up and down tiles.
  l.parallelTiles = tiles * nf;
  l.steps = tiles * nf * nd;
  // x rows stay on chip across the F loop; the three weight tiles stream
  // once per M tile; y accumulates on chip and is written once (MoE routed
  // experts: x rows gathered one DMA each, padded to whole tiles).
  if (k.gatheredRows) {
    l.readBytes += c(tiles) * c(t.m) * c(dm) * c(k.lhsBytes);
    l.rowReadTransfers += c(tiles) * c(t.m);
    l.firstRowTransfers = t.m;
  } else if (!k.inputOnChip) {
    l.readBytes += c(m) * c(dm) * c(k.lhsBytes);
    l.readTransfers += c(nm);
  }
  l.rhsLoadedElements = c(3) * c(f) * c(dm) * c(tiles);
  l.readBytes += bytesOf(l.rhsLoadedElements, k.rhsBytes);
  l.readTransfers += c(3) * c(l.steps);
  // Other reads (a combine's are its blocks', below): a tile per M tile.
  // A MoE's routed experts' other reads are each expert's biases: per M
  // tile, with its weights, a gate and an up slice per F tile and the down
  // bias whole (TileMoe.cpp).
  if (k.gatheredRows) {
    l.readBytes += c(tiles) * c(k.extraReadBytes);
    if (k.extraReadBytes > 0)
      l.readTransfers += c(tiles) * c(2 * nf + 1);
  } else {
    l.readBytes += c(k.extraReadBytes);
    if (k.extraReadBytes > 0 && k.combineSlots == 0)
      l.readTransfers += c(nm);
  }
  addCombineBlocks(l, k, m, t.m, dm, t.d);
  // The outputs: an M tile of y per M tile; a MoE expert's rows each at
  // its assignment's row of o, one copy per row of the tile (the padded
  // ones repeat the last real row), after the tile's last step.
  if (k.gatheredRows) {
    l.writeBytes = c(tiles) * c(t.m) * c(dm) * c(k.outBytes);
    l.tileRowWrites = t.m;
    l.rowWritesInFirstStep = nd == 1 && nf > 1;
  } else if (!k.outputOnChip) {
    l.writeBytes = c(groups) * c(m) * c(dm) * c(k.outBytes);
    l.writeTransfers = c(tiles);
  }
  // The cores take whole experts when there are several, and whole M
  // tiles when those divide evenly over them (Pallas's megacore shards the
  // parallel grid dimension): no partial sums. Else one MLP's F tiles are
  // split over them and their partial sums of y exchanged.
  l.reductionCores =
      groups > 1 || nm % std::max<int64_t>(cores, 1) == 0 ? 1 : nf;
  l.reductionBytes = c(m) * c(dm) * c(4);
  // Each M tile's F loop starts with its first three weight tiles (a
  // refill, unless handed off). With D in chunks, the first step loads the
  // first gate and up chunks only; each F tile's gate and up loop starts on
  // loads of its own (a refill of those two chunks, nf per M tile), and its
  // down loop's first chunk loads during the gate and up loop's last step
  // (npu-tpu-issue-loads-early), no refill. A MoE's routed M tiles (its
  // visits: a run-time count) also wait for their gathered rows, unless
  // the visit loop prefetches: with two buffers, when its body's first
  // pipelined loop is an inner loop of its own (one F tile with D in
  // chunks: the gate and up loop; or an even number of F tiles of D whole,
  // as any handoff), npu-tpu-double-buffer issues the next visit's first
  // weights and rows during this visit's last step (prefetchBytes).
  Count tileBytes = bytesOf(c(t.f) * c(t.d), k.rhsBytes);
  Count firstWeights = c(nd > 1 ? 2 : 3) * tileBytes;
  Count rows = k.gatheredRows ? c(t.m) * c(dm) * c(k.lhsBytes) : c(0);
  if (nd > 1) {
    l.refillTiles = tiles * nf;
    l.refillBytes = (c(nf) * firstWeights + rows) / c(nf);
    l.refillTransfers = 2;
    l.refillsPerRowWait = nf;
  } else if (k.gatheredRows) {
    l.refillBytes = firstWeights + rows;
    l.refillTransfers = 3;
    l.refillTiles = tiles;
  } else if (!handsOff(nf, /*dynamic=*/false)) {
    l.refillBytes = firstWeights;
    l.refillTransfers = 3;
    l.refillTiles = nm;
  }
  if (k.gatheredRows && (nd > 1 ? nf == 1 : nf > 1 && nf % 2 == 0)) {
    l.prefetchBytes = firstWeights;
    l.prefetchTransfers = nd > 1 ? 2 : 3;
  }
  // Fill: the first x tile and the first weight tiles; drain: the last y
  // tile.
  l.firstReadBytes =
      (k.inputOnChip ? c(0) : c(t.m) * c(dm) * c(k.lhsBytes)) + firstWeights +
      (k.gatheredRows ? c(k.extraReadBytes)
                      : (c(k.extraReadBytes) - k.combineReadBytes()) / c(nm));
  l.lastWriteBytes = k.outputOnChip ? c(0) : c(t.m) * c(dm) * c(k.outBytes);
  // Gate and up: [M x D] x [D x F]; down: [M x F] x [F x D].
  l.paddedMatrixFlops =
      c(groups) *
      (c(2) * matrixPassFlops({m, t.m}, {dm, t.d}, {f, t.f}, sub, mxu) +
       matrixPassFlops({m, t.m}, {f, t.f}, {dm, t.d}, sub, mxu));
  l.vectorFlops = c(groups) * k.work.vectorFlops;
  l.transcendentalFlops = c(groups) * k.work.transcendentalFlops;
  return l;
}

/// An attention tiling's (query block, K/V tile) pairs visited; its
/// (query sub-tile, K/V tile) pairs computed, the count a tiling with query
/// tiles of ts would visit, since sub-tiles that see no key of the K/V tile
/// are skipped; and the visited pairs that load their tile: those past the
/// `held` keys (a multiple of tkv).
static std::tuple<int64_t, int64_t, int64_t>
countAttentionPairs(const KernelDesc &k, const AttentionNest<> &t,
                    int64_t held) {
  AttentionNest<> loops = k.attentionLoops();
  int64_t sq = loops.q, skv = loops.kv, tq = t.q, tkv = t.kv, ts = t.qSub;
  int64_t visited =
      countVisitedTiles(sq, skv, tq, tkv, k.causal, k.window, k.chunk);
  int64_t pairs = ts == tq ? visited
                           : countVisitedTiles(sq, skv, ts, tkv, k.causal,
                                               k.window, k.chunk);
  int64_t streamed =
      held == 0 ? visited
      : held == skv
          ? 0
          : countVisitedTilesFrom(sq, skv, tq, tkv, k.causal, held / tkv);
  return {visited, pairs, streamed};
}

std::optional<LoopTotals> tpu_detail::attentionTotals(const KernelDesc &k,
                                                      const AttentionNest<> &t,
                                                      int64_t mxu, int64_t sub,
                                                      int64_t cores) {
  AttentionNest<> loops = k.attentionLoops();
  int64_t bh = loops.heads, sq = loops.q, skv = loops.kv, dqk = loops.headDim,
          dv = k.vDim;
  int64_t tq = t.q, tkv = t.kv, ts = t.qSub;
  // The sub-tiles of a block are the global sub-tiles of ts queries (the
  // last block's last one may be short).
  if (t.heads != 1 || t.headDim != dqk || ts > tq ||
      (tq % ts != 0 && tq != sq) || !isValidHeldKv(loops, t))
    return std::nullopt;
  // The keys of a head held on chip (none, a prefix, or all: resident),
  // loaded once per head; the keys past them stream past each block in K/V
  // tiles. A prefix with a window or chunks is lowered but not priced.
  int64_t held = getHeldKvPrefix(t);
  if (held > 0 && held < skv && (k.window > 0 || k.chunk > 0))
    return std::nullopt;
  int64_t rowsSub = ts * k.group;
  int64_t nq = llvm::divideCeil(sq, tq);
  auto [visited, pairs, streamed] = countAttentionPairs(k, t, held);
  LoopTotals l;
  // Held keys: a core holds them for the heads it works on. With at least
  // as many heads as cores a head's blocks stay on one core; with fewer
  // (MQA on two cores), a head's blocks are split over `share` cores,
  // each loading its own copy. Grid steps are the iterations that load:
  // one per query block when keys are held (its KV tiles of the held keys
  // are a loop over VMEM inside the step like the sub-tiles: no DMA, no
  // step overhead), and one per streamed pair.
  int64_t share = getHeldKvCopies(bh, nq, cores, held);
  l.parallelTiles = held > 0 ? bh * share : bh * nq;
  // Quadratic in the sequence: checked (a step count past int64 is no
  // tiling to price).
  std::optional<int64_t> steps =
      (c(held > 0 ? bh * nq : 0) + c(bh) * c(streamed)).toInt64();
  if (!steps)
    return std::nullopt;
  l.steps = *steps;
  // Q unless on chip, and other inputs (absorbed MLA: the query's RoPE
  // part beside its latent part on chip), per query block.
  if (!k.inputOnChip || k.extraReadBytes > 0) {
    l.readBytes +=
        c(k.extraReadBytes) +
        (k.inputOnChip ? c(0)
                       : c(bh) * c(k.group) * c(sq) * c(dqk) * c(k.lhsBytes));
    l.readTransfers += c(bh) * c(nq);
  }
  // The held keys once per head (and core sharing it); each streamed pair
  // one K tile (and one V tile unless V is part of K); non-causal, the
  // keys past the held ones once per query block, exactly.
  int64_t kvWidth = k.kvWidth();
  int64_t kvTensors = k.latent ? 1 : 2;
  // Causal: tkv rows per streamed pair, but a last K/V tile shorter than
  // tkv as its real rows (the lowering clamps the slice), by each pair that
  // visits it.
  int64_t lastVisits = 0, nkv = llvm::divideCeil(skv, tkv);
  if (k.causal && skv % tkv != 0 && held < skv)
    lastVisits = std::min(
        streamed, countVisitedTilesFrom(sq, skv, tq, tkv, true, nkv - 1));
  Count streamedRows = k.causal ? c(streamed - lastVisits) * c(tkv) +
                                      c(lastVisits) * c(skv - (nkv - 1) * tkv)
                                : c(nq) * c(skv - held);
  l.readBytes += bytesOf(
      c(bh) * (c(share) * c(held) + streamedRows) * c(kvWidth), k.rhsBytes);
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
  Count kvTileBytes = bytesOf(c(tkv) * c(kvWidth), k.rhsBytes);
  l.firstReadBytes =
      (k.inputOnChip ? c(0) : c(rows) * c(dqk) * c(k.lhsBytes)) +
      (held > 0 ? bytesOf(c(held) * c(kvWidth), k.rhsBytes) : kvTileBytes);
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
  // Per output row: the divide of each element, and with sinks exp(sink -
  // m), the subtract and the add.
  Count outRows = c(bh) * c(k.group) * c(sq);
  l.vectorFlops = computed * c(rowsSub) *
                      (c(k.scoreVectorFlops()) * c(tkv) + c(dv) + c(3)) +
                  outRows * (c(dv) + c(k.sinks ? 2 : 0));
  l.transcendentalFlops =
      computed * c(rowsSub) * (c(k.scoreTranscendentals()) * c(tkv) + c(1)) +
      (k.sinks ? outRows : c(0));
  return l;
}

std::optional<LoopTotals> tpu_detail::streamTotals(const KernelDesc &k,
                                                   const RowNest<> &t) {
  RowNest<> loops = k.rowLoops();
  if (t.cols != loops.cols)
    return std::nullopt;
  LoopTotals l;
  l.parallelTiles = l.steps = llvm::divideCeil(loops.rows, t.rows);
  l.readBytes = k.work.bytesRead;
  l.writeBytes = k.work.bytesWritten;
  // A tile read per step, unless all the reads are the combine's blocks
  // (addCombineBlocks counts their transfers).
  l.readTransfers = k.combineSlots > 0 ? c(0) : c(l.steps);
  l.rowReadTransfers = c(k.rowReads);
  addCombineBlocks(l, k, loops.rows, t.rows, loops.cols, loops.cols);
  l.writeTransfers = c(l.steps);
  l.vectorFlops = k.work.vectorFlops;
  l.transcendentalFlops = k.work.transcendentalFlops;
  // A rotary table computed per tile: each tile computes its positions'
  // entries (a multiply, a cos and a sin each), where the work counts the
  // table once. A tile within one sequence (part of a head) computes its
  // rows' positions, so all rows are computed once each; a tile of whole
  // sequences computes the whole table.
  if (k.tablePerTile && k.tableRows > 0) {
    int64_t seq = k.tableRows;
    int64_t positions = t.rows < seq ? loops.rows : l.steps * seq;
    Count extra = c(positions - seq) * c(k.tableEntries);
    l.vectorFlops += extra;
    l.transcendentalFlops += c(2) * extra;
  }
  // Matrix work in a stream kernel (none in practice) runs unpadded.
  l.paddedMatrixFlops = k.work.matrixFlops;
  return l;
}

void tpu_detail::addCombineBlocks(LoopTotals &l, const KernelDesc &k,
                                  int64_t tokens, int64_t tileTokens,
                                  int64_t cols, int64_t tileCols) {
  int64_t slots = k.combineSlots;
  if (slots <= 0)
    return;
  // Each M tile reads its tokens' rows of o `sub` tokens at a time (their
  // sub x K rows, one block), in D chunks of `tileCols`, and sums each
  // token's rows (a multiply and an add per element). The routed experts
  // stored the rows at their assignments' positions (TileMoe.cpp), so the
  // blocks are o's rows in order: the kernel's reads count them already.
  int64_t sub = moeCombineTokens(tileTokens, slots);
  int64_t full = tokens / tileTokens, rest = tokens % tileTokens;
  int64_t perChunk = full * llvm::divideCeil(tileTokens, sub) +
                     (rest > 0 ? llvm::divideCeil(rest, sub) : 0);
  l.combineLoops = full + (rest > 0 ? 1 : 0);
  l.combineBlocks = perChunk * llvm::divideCeil(cols, tileCols);
  l.combineBytes = k.combineReadBytes();
  l.readTransfers += c(l.combineBlocks);
  l.combineVectorFlops = c(2) * c(tokens) * c(slots) * c(cols);
}
