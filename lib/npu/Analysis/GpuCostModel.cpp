//===- GpuCostModel.cpp - the run-time-decided cost model -----------------===//
//
// Equations and the simulation method: docs/cost-model-gpu.md.
//
//===----------------------------------------------------------------------===//

#include "npu/Analysis/GpuCostModel.h"
#include "GpuCostModelDetail.h"
#include "npu/GpuModel/Dispatch.h"

#include "llvm/Support/MathExtras.h"

#include <array>
#include <cmath>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::gpumodel;
using namespace mlir::npu::gpu_detail;

GpuCost &GpuCost::operator+=(const GpuCost &o) {
  double req = double(l2Bytes.value()), oreq = double(o.l2Bytes.value());
  l2HitRate = req + oreq > 0
                  ? (l2HitRate * req + o.l2HitRate * oreq) / (req + oreq)
                  : 0;
  add(o);
  l2Bytes += o.l2Bytes;
  waves += o.waves;
  sharedMemBytes = std::max(sharedMemBytes, o.sharedMemBytes);
  grids.append(o.grids.begin(), o.grids.end());
  simulatedLines += o.simulatedLines;
  return *this;
}

namespace {
int64_t pad(int64_t n, int64_t g) { return int64_t(llvm::alignTo(n, g)); }

/// The rows a tensor-core MMA computes at least, in steps of which a block
/// with fewer rows is padded: 16, the fair floor for small-M GEMMs
/// (mma.sync m16; DeepGEMM's smallest BLOCK_M is 16; Hopper kernels for
/// M < 64 swap A and B so that the tokens are the wgmma's N, in steps of
/// 8: docs/fairness.md, item 8). Attention tiles pad to it too.
constexpr int64_t kMmaRowStep = 16;

/// Per-block work and traffic of a phase (averages over the grid).
struct BlockWork {
  double matrixFlops = 0, vectorFlops = 0, transcFlops = 0;
  double l2Bytes = 0; ///< requested from L2 per block
  /// Read from shared memory per block by its MMAs: each operand tile once
  /// per step (a lower bound: a warpgroup that shares a tile with another
  /// reads it again).
  double sharedBytes = 0;
  Count paddedFlops; ///< whole grid
  Count minRead, minWrite;
};

} // namespace

namespace mlir::npu::gpu_detail {
/// A gated MLP (or an expert of MoE) as GPUs run it: a GEMM for gate and
/// up together with the SwiGLU epilogue, then the down GEMM; the
/// intermediate goes through L2/HBM. Two launches.
std::array<GemmLaunch, 2> splitGated(const KernelDesc &k, ArrayRef<int64_t> t) {
  auto [m, f, d] = k.mlpLoops();
  KernelDesc up;
  up.kind = KernelKind::Gemm;
  up.loops = GemmNest<>{1, m, 2 * f, d}.list();
  up.matrixType = k.matrixType;
  up.lhsBytes = k.lhsBytes;
  up.rhsBytes = k.rhsBytes;
  up.storedRhs = k.storedRhs;
  up.outBytes = k.outBytes;
  up.work.matrixFlops = c(4) * c(m) * c(f) * c(d);
  up.work.vectorFlops = k.work.vectorFlops;
  up.work.transcendentalFlops = k.work.transcendentalFlops;
  up.extraReadBytes = k.extraReadBytes;
  up.repeat = k.repeat;
  KernelDesc down = up;
  down.loops = GemmNest<>{1, m, d, f}.list();
  down.lhsBytes = k.outBytes;
  down.work = Work();
  down.work.matrixFlops = c(2) * c(m) * c(f) * c(d);
  down.extraReadBytes = 0;
  // Both GEMMs take the MLP tile's M and F as their block's M and N.
  MlpNest<> tile = MlpNest<>::from(t);
  auto clampTile = [&](const KernelDesc &g) {
    GemmNest<> l = g.gemmLoops();
    return SmallVector<int64_t, 4>(GemmNest<>{1, std::min(tile.m, l.m),
                                              std::min(tile.f, l.n),
                                              std::min<int64_t>(64, l.k)}
                                       .list());
  };
  SmallVector<int64_t, 4> upTile = clampTile(up), downTile = clampTile(down);
  return {GemmLaunch{std::move(up), upTile},
          GemmLaunch{std::move(down), downTile}};
}

/// The GEMM launches of a phase (none for attention and streams).
SmallVector<GemmLaunch, 2> getGemmLaunches(const KernelDesc &k,
                                           ArrayRef<int64_t> t) {
  if (k.kind == KernelKind::Gemm)
    return {GemmLaunch{k, SmallVector<int64_t, 4>(t)}};
  if (k.kind == KernelKind::GatedMlp || k.kind == KernelKind::MoeFfn) {
    std::array<GemmLaunch, 2> two = splitGated(k, t);
    return SmallVector<GemmLaunch, 2>(two.begin(), two.end());
  }
  return {};
}

std::optional<GpuCost> gatedCost(const KernelDesc &k, ArrayRef<int64_t> t,
                                 const GpuParams &p, bool simulate,
                                 ArrayRef<GpuLaunch> launches) {
  std::optional<GpuCost> total;
  for (auto [i, g] : llvm::enumerate(splitGated(k, t))) {
    std::optional<GpuCost> c =
        gemmLikeCost(g.desc, g.tile, p, simulate,
                     i < launches.size() ? launches[i] : GpuLaunch());
    if (!c)
      return std::nullopt;
    if (total)
      *total += *c;
    else
      total = std::move(c);
  }
  return total;
}

/// What each block of the launch `launched` (of blocks `plan`, `blocks` of
/// them with work) does and requests from L2, and the minimum HBM traffic;
/// nullopt for a kind that is not one launch or a count past 64 bits. A
/// GEMM block converts each element of its B tiles (bn x K) with
/// `dequantFlops` vector FLOPs (a stored B the tensor cores do not take:
/// on the CUDA cores as the tiles arrive, Marlin-style).
static std::optional<BlockWork>
getBlockWork(const KernelDesc &k, ArrayRef<int64_t> t, const GpuBlockPlan &plan,
             const GpuBlockPlan &launched, const GpuLaunch &launch,
             double blocks, int64_t dequantFlops) {
  BlockWork bw;
  switch (k.kind) {
  case KernelKind::Gemm: {
    GemmNest<> loops = k.gemmLoops(), tile = GemmNest<>::from(t);
    int64_t bm = tile.m, bn = tile.n, bk = tile.k;
    int64_t kp = pad(loops.k, bk);
    // The block's rows, padded to what the MMA computes (M = 1 or 3 rows
    // of a decode step compute 16).
    int64_t bmp = pad(bm, kMmaRowStep);
    bw.paddedFlops = c(2) * c(plan.blocks) * c(bmp) * c(bn) * c(kp);
    bw.matrixFlops = 2.0 * bmp * bn * double(kp);
    // TMA multicast: an A tile is read once for the clusterN blocks of its
    // cluster row, a B tile once for the clusterM blocks of its column: per
    // block, ceil(nn / cn) / nn of the A tile reads (1 / cn when the
    // cluster divides the grid) and ceil(nm / cm) / nm of the B ones.
    GemmGrid g = getGemmGrid(k, t, launch);
    double aShare = double(g.launchedCols / launch.clusterN) / double(g.cols),
           bShare = double(g.launchedRows / launch.clusterM) / double(g.rows);
    bw.sharedBytes = double(kp) * double(bmp * k.lhsBytes + bn * k.rhsBytes);
    bw.l2Bytes = double(kp) * (double(bm * k.lhsBytes) * aShare +
                               double(bn) * k.rhsBytes * bShare) +
                 double(bm * bn * k.outBytes) +
                 double(k.extraReadBytes) / blocks;
    Count a = c(loops.batch) * c(loops.m) * c(loops.k) * c(k.lhsBytes);
    Count b = bytesOf(c(loops.n) * c(loops.k) *
                          (k.rhsBatched ? c(loops.batch) : c(1)),
                      k.rhsBytes);
    bw.minRead = a + b + c(k.extraReadBytes);
    bw.minWrite = c(loops.batch) * c(loops.m) * c(loops.n) * c(k.outBytes);
    break;
  }
  case KernelKind::Attention:
  case KernelKind::MlaAbsorbed: {
    AttentionNest<> loops = k.attentionLoops(), tile = AttentionNest<>::from(t);
    int64_t bh = loops.heads, sq = loops.q, skv = loops.kv, dqk = loops.headDim,
            dv = k.vDim, tq = tile.q, tkv = tile.kv;
    int64_t nq = llvm::divideCeil(sq, tq);
    int64_t kvWidth = k.kvWidth();
    // Per block: its share of the KV tiles (1 / kvSplits of a query
    // tile's, on average).
    int64_t splits = launch.kvSplits;
    double visited = double(countVisitedTiles(sq, skv, tq, tkv, k.causal,
                                              k.window, k.chunk)) /
                     double(nq * splits);
    int64_t rows = tq * plan.headsPerBlock;
    int64_t tqp = pad(rows, kMmaRowStep), tkvp = pad(tkv, kMmaRowStep);
    bw.matrixFlops = 2.0 * visited * tqp * tkvp *
                     double(pad(dqk, kMmaRowStep) + pad(dv, kMmaRowStep));
    bw.vectorFlops =
        visited * rows * double(k.scoreVectorFlops() * tkv + dv + 3) +
        double(rows * dv) + (k.sinks ? 2.0 * rows : 0.0);
    bw.transcFlops =
        visited * rows * double(k.scoreTranscendentals() * tkv + 1) +
        (k.sinks ? double(rows) : 0.0);
    bw.paddedFlops =
        c(int64_t(std::llround(bw.matrixFlops))) * c(launched.blocks);
    // Per KV step the MMAs read the Q tile and the K and V tile from
    // shared memory (the probabilities stay in registers).
    bw.sharedBytes =
        visited * double(tqp * dqk * k.lhsBytes + tkv * kvWidth * k.rhsBytes);
    bw.l2Bytes = double(rows * dqk * k.lhsBytes) +
                 visited * tkv * kvWidth * k.rhsBytes +
                 double(rows * dv * k.outBytes) / double(splits);
    if (splits > 1) {
      // Split KV: every block writes its partial output and running max
      // and sum in f32 (through L2); the last of a tile's blocks reads
      // them back, rescales and adds them (3 FLOP per element), and writes
      // the output: per block, one partial written and read.
      double partial = double(rows * (dv + 2) * 4);
      bw.l2Bytes += 2 * partial;
      bw.vectorFlops += 3.0 * double(rows * (dv + 2));
    }
    int64_t heads = bh * k.group;
    bw.minRead = c(heads) * c(sq) * c(dqk) * c(k.lhsBytes) +
                 bytesOf(c(bh) * c(skv) * c(kvWidth), k.rhsBytes);
    bw.minWrite = c(heads) * c(sq) * c(dv) * c(k.outBytes);
    break;
  }
  case KernelKind::Stream:
  case KernelKind::Copy:
    bw.minRead = k.work.bytesRead;
    bw.minWrite = k.work.bytesWritten;
    bw.l2Bytes =
        double((k.work.bytesRead + k.work.bytesWritten).value()) / blocks;
    bw.paddedFlops = k.work.matrixFlops;
    break;
  case KernelKind::GatedMlp:
  case KernelKind::MoeFfn:
    return std::nullopt;
  }
  if (k.kind == KernelKind::Gemm || k.kind == KernelKind::Stream ||
      k.kind == KernelKind::Copy) {
    bw.vectorFlops = double(k.work.vectorFlops.value()) / blocks;
    if (k.kind == KernelKind::Gemm && dequantFlops > 0) {
      GemmNest<> tile = GemmNest<>::from(t);
      bw.vectorFlops += double(dequantFlops) * double(tile.n) *
                        double(pad(k.gemmLoops().k, tile.k));
    }
    bw.transcFlops = double(k.work.transcendentalFlops.value()) / blocks;
    if (k.kind != KernelKind::Gemm)
      bw.matrixFlops = double(k.work.matrixFlops.value()) / blocks;
  }
  if (bw.minRead.isOverflow() || bw.minWrite.isOverflow() ||
      bw.paddedFlops.isOverflow())
    return std::nullopt;

  return bw;
}

/// The output bytes a GEMM launch stores after its blocks' main loops, 0
/// unless the epilogue is serial (docs/cost-model-gpu.md, "Epilogue"): the
/// SM stores a tile and waits for the store before its tensor cores
/// compute again (a persistent kernel, one block per SM, its tiles one
/// after the other), so a wave's stores run after its main loops, not
/// beside them. They drain at the sustained HBM rate: the write-back L2 is
/// full of dirty lines (the previous kernel's output), so every line stored
/// evicts one to HBM.
static double serialStoreBytes(const KernelDesc &k, const GpuParams &p,
                               const BlockWork &bw) {
  if (!p.serialEpilogue || k.kind != KernelKind::Gemm)
    return 0;
  return double(bw.minWrite.value());
}

/// A block's vector and exponential work: in an attention block they are
/// one softmax, whose exponentials and vector operations the same warps run
/// in turn (their operands depend on each other) while the other
/// warpgroup's GEMMs use the tensor cores (FlashAttention-3's ping-pong):
/// their sum overlaps the matrix work. Elsewhere the units overlap.
static double softmaxNs(const KernelDesc &k, const BlockWork &bw,
                        const GpuParams &p) {
  double v = bw.vectorFlops / p.vectorPerNsPerSM,
         e = bw.transcFlops / p.transcPerNsPerSM;
  return isAttentionKind(k.kind) ? v + e : std::max(v, e);
}

/// The totals of a grid of `groups` groups of `blocks` blocks with work
/// each (`hbmRead`, `hbmWrite`: one group's traffic): compute and memory
/// time at the chip's rates, traffic and padded FLOPs.
static void addGroupTotals(GpuCost &cost, const KernelDesc &k,
                           const BlockWork &bw, const GpuParams &p,
                           double matPerSM, double blocks, int64_t groups,
                           double hbmRead, double hbmWrite) {
  double g = double(groups), all = blocks * g, sms = double(p.sms);
  cost.computeNs =
      std::max({double(bw.paddedFlops.value()) * g / (matPerSM * sms),
                softmaxNs(k, bw, p) * all / sms,
                bw.sharedBytes * all / (p.sharedBytesPerNsPerSM * sms)});
  cost.memoryNs = std::max((hbmRead + hbmWrite) * g / p.hbmBytesPerNs,
                           bw.l2Bytes * all / p.l2BytesPerNs);
  cost.overheadNs =
      std::max(0.0, cost.timeNs - std::max(cost.computeNs, cost.memoryNs));
  cost.hbmReadBytes = c(int64_t(std::llround(hbmRead))) * c(groups);
  cost.hbmWriteBytes = c(int64_t(std::llround(hbmWrite))) * c(groups);
  cost.l2Bytes = c(int64_t(std::llround(bw.l2Bytes * blocks))) * c(groups);
  cost.paddedMatrixFlops = bw.paddedFlops * c(groups);
}

std::optional<GpuCost> gemmLikeCost(const KernelDesc &k, ArrayRef<int64_t> t,
                                    const GpuParams &p, bool simulate,
                                    const GpuLaunch &launch) {
  std::optional<GpuBlockPlan> plan = planGpuBlock(k, t, p);
  if (!plan)
    return std::nullopt;
  if (!checkArrangement(k, t, &*plan, launch, p).empty())
    return std::nullopt;
  // The launched grid: whole clusters (empty blocks included), or each
  // attention block split over its KV range.
  GpuBlockPlan launched = *plan;
  launched.blocks = launchedBlocks(k, t, *plan, launch);
  // Blocks that have work: a padded GEMM grid's extra blocks have none.
  double blocks =
      double(k.kind == KernelKind::Gemm ? plan->blocks : launched.blocks);
  MatrixPath path = getMatrixPath(k, p.matrixRates);
  std::optional<BlockWork> work =
      getBlockWork(k, t, *plan, launched, launch, blocks, path.dequantFlops);
  if (!work)
    return std::nullopt;
  const BlockWork &bw = *work;

  // HBM traffic: the L2 simulation, or (for the compiler's choice) the
  // minimum plus what a wave's blocks cannot share.
  double hbmRead = double(bw.minRead.value()),
         hbmWrite = double(bw.minWrite.value());
  double hit = 0;
  uint64_t simLines = 0;
  bool simulable = k.kind == KernelKind::Gemm || isAttentionKind(k.kind);
  double perLaunched = blocks / double(launched.blocks);
  if (simulate && simulable) {
    std::optional<L2Result> l2 =
        simulateL2(k, t, launched, p, bw.l2Bytes * perLaunched, launch);
    if (!l2)
      return std::nullopt;
    // Every byte of the operands is fetched at least once, whatever the
    // extrapolation says.
    hbmRead = std::max(l2->hbmRead, hbmRead);
    hbmWrite = std::max(l2->hbmWrite, hbmWrite);
    hit = l2->hitRate;
    simLines = l2->simulatedLines;
  } else {
    double requested = bw.l2Bytes * blocks;
    hit = requested > 0 ? std::clamp(1.0 - hbmRead / requested, 0.0, 1.0) : 0;
  }

  // Dispatch: full waves of `slots` co-resident blocks (whole clusters),
  // then the tail, whose blocks share the SMs and the bandwidth among
  // fewer.
  // Empty blocks of a padded grid hold a slot but move no bytes: the
  // memory terms use the traffic per launched block.
  int64_t bps = plan->blocksPerSM;
  int64_t slots = clusterSlots(*plan, p, launch);
  double matPerSM = p.matrixPerNsPerSM(path.type);
  // A serial epilogue stores each block's share of the output after its
  // main loop, at the HBM rate (serialStoreBytes).
  double storePerBlock = serialStoreBytes(k, p, bw) / double(launched.blocks);
  double hbmPerBlock =
      (hbmRead + hbmWrite) / double(launched.blocks) - storePerBlock;
  double l2PerBlock = bw.l2Bytes * perLaunched - storePerBlock;
  auto blockTime = [&](int64_t running) {
    // `running` blocks in flight: each SM holds ceil(running / sms).
    double share =
        double(std::min<int64_t>(bps, llvm::divideCeil(running, p.sms)));
    // Per SM: its units and the shared memory its MMAs read tiles from.
    double comp = std::max({bw.matrixFlops * share / matPerSM,
                            softmaxNs(k, bw, p) * share,
                            bw.sharedBytes * share / p.sharedBytesPerNsPerSM});
    double mem = std::max(hbmPerBlock * double(running) / p.hbmBytesPerNs,
                          l2PerBlock * double(running) / p.l2BytesPerNs);
    // Little's law: a block has at most its pipeline's bytes in flight,
    // each HBM request taking one DRAM latency, whatever the chip's
    // bandwidth: few blocks cannot saturate HBM.
    if (launched.inflightBytes > 0)
      mem = std::max(mem, hbmPerBlock * p.dramLatencyNs /
                              double(launched.inflightBytes));
    return std::max(comp, mem) +
           storePerBlock * double(running) / p.hbmBytesPerNs;
  };
  // Latency: a block's first tiles arrive one DRAM latency after it
  // starts, before any compute. With one block per SM every wave starts on
  // idle SMs and pays it; with more, later blocks start while the SM's
  // other blocks compute, and only the launch's first wave pays it.
  double waveFill = bps == 1 ? p.dramLatencyNs : 0.0;
  // A phase repeated over groups (MoE experts) is one grouped launch: one
  // grid of every group's blocks, in waves across the groups.
  if (k.repeat < 1 || launched.blocks > INT64_MAX / k.repeat)
    return std::nullopt;
  GpuGrid grid;
  grid.plan = launched;
  grid.plan.blocks = launched.blocks * k.repeat;
  grid.launch = launch;
  grid.fullWaves = grid.plan.blocks / slots;
  grid.tailBlocks = grid.plan.blocks % slots;
  grid.waveNs = grid.fullWaves ? blockTime(slots) + waveFill : 0.0;
  grid.tailNs = grid.tailBlocks ? blockTime(grid.tailBlocks) + waveFill : 0.0;
  grid.fillNs = bps == 1 ? 0.0 : p.dramLatencyNs;
  // Split KV: the combining block reads the partials back after the
  // others finish: one more round trip.
  if (launch.kvSplits > 1)
    grid.fillNs += p.dramLatencyNs;
  GpuCost cost;
  cost.timeNs = p.launchNs + grid.bodyNs();
  cost.grids.push_back(grid);
  addGroupTotals(cost, k, bw, p, matPerSM, blocks, k.repeat, hbmRead, hbmWrite);
  cost.l2HitRate = hit;
  cost.waves = double(grid.plan.blocks) / double(slots);
  cost.sharedMemBytes = plan->sharedMemBytes;
  cost.simulatedLines = simLines;
  return cost;
}

} // namespace mlir::npu::gpu_detail

namespace {
SmallVector<int64_t> candidates(int64_t n, int64_t from, int64_t upTo) {
  SmallVector<int64_t> out;
  for (int64_t v = from; v < n && v <= upTo; v *= 2)
    out.push_back(v);
  if (n <= upTo)
    out.push_back(n);
  if (out.empty())
    out.push_back(upTo);
  return out;
}
} // namespace

std::optional<GpuCost>
mlir::npu::getGpuPhaseCost(const KernelDesc &k, ArrayRef<int64_t> t,
                           const GpuParams &p, bool simulateL2,
                           ArrayRef<GpuLaunch> launches) {
  if (t.size() != k.loops.size())
    return std::nullopt;
  if (k.kind == KernelKind::GatedMlp || k.kind == KernelKind::MoeFfn)
    return gatedCost(k, t, p, simulateL2, launches);
  return gemmLikeCost(k, t, p, simulateL2,
                      launches.empty() ? GpuLaunch() : launches.front());
}

std::optional<SmallVector<int64_t, 4>>
mlir::npu::chooseGpuTile(const KernelDesc &k, const GpuParams &p) {
  using List = SmallVector<int64_t>;
  SmallVector<List, 6> lists;
  switch (k.kind) {
  case KernelKind::Gemm: {
    GemmNest<> l = k.gemmLoops();
    lists = GemmNest<List>{{1},
                           candidates(l.m, 16, 256),
                           candidates(l.n, 16, 256),
                           candidates(l.k, 32, 64)}
                .list();
    break;
  }
  case KernelKind::GatedMlp:
  case KernelKind::MoeFfn: {
    MlpNest<> l = k.mlpLoops();
    lists = MlpNest<List>{
        candidates(l.m, 16, 256),
        candidates(l.f, 16, 256),
        {l.d}}.list();
    break;
  }
  case KernelKind::Attention:
  case KernelKind::MlaAbsorbed: {
    // A block computes its whole query tile and streams its K/V: the
    // sub-tile is the query tile and the held K/V the K/V tile (set at
    // each leaf below).
    AttentionNest<> l = k.attentionLoops();
    lists = AttentionNest<List>{
        {1},
        candidates(l.q, 16, 128),
        candidates(l.kv, 32, 128),
        {l.headDim},
        {0},
        {0}}.list();
    break;
  }
  case KernelKind::Stream:
  case KernelKind::Copy: {
    RowNest<> l = k.rowLoops();
    SmallVector<int64_t> rows = candidates(l.rows, 1, 64);
    llvm::erase_if(rows, [&](int64_t t) { return !k.isRowTile(t); });
    lists = RowNest<List>{rows, {l.cols}}.list();
    break;
  }
  }
  // Clamp candidates to the loop (tiles never exceed it).
  for (auto [list, n] : llvm::zip(lists, k.loops))
    for (int64_t &v : list)
      v = std::min(v, n);
  std::optional<SmallVector<int64_t, 4>> best;
  double bestNs = 0;
  forEachTile(lists, [&](MutableArrayRef<int64_t> tile) {
    if (isAttention(k)) {
      AttentionNest<> a = AttentionNest<>::from(tile);
      a.qSub = a.q;
      a.kvHeld = a.kv;
      llvm::copy(a.list(), tile.begin());
    }
    std::optional<GpuCost> cost = getGpuPhaseCost(
        k, tile, p, false, chooseLaunches(k, tile, p, /*raster=*/false));
    if (cost && (!best || cost->timeNs < bestNs * (1 - 1e-9))) {
      best = SmallVector<int64_t, 4>(tile);
      bestNs = cost->timeNs;
    }
    return true; // the GPU-like tiles are few: no pruning
  });
  return best;
}

int64_t mlir::npu::getGpuArrangedLaunches(const KernelDesc &desc) {
  switch (desc.kind) {
  case KernelKind::Gemm:
  case KernelKind::Attention:
  case KernelKind::MlaAbsorbed:
    return 1;
  case KernelKind::GatedMlp:
  case KernelKind::MoeFfn:
    return 2;
  case KernelKind::Stream:
  case KernelKind::Copy:
    return 0;
  }
  llvm_unreachable("unknown kernel kind");
}

int64_t mlir::npu::getGpuPhaseLaunches(const KernelDesc &desc) {
  return desc.kind == KernelKind::GatedMlp || desc.kind == KernelKind::MoeFfn
             ? 2
             : 1;
}

/// A kernel whose routed rows are dispatched first (moe_ffn: its
/// dispatch's order) runs the dispatch as a kernel of its own on a
/// GPU-like target.
static bool hasGpuDispatch(const KernelModel &model) {
  return model.dispatchOrder.has_value();
}

int64_t mlir::npu::getGpuKernelLaunches(const KernelModel &model) {
  return model.phases.empty() ? 0
                              : getGpuPhaseLaunches(model.phases.front()) +
                                    (hasGpuDispatch(model) ? 1 : 0);
}

std::optional<GpuCost>
mlir::npu::getGpuKernelCost(const KernelModel &model,
                            ArrayRef<int64_t> mainTile, const GpuParams &p,
                            ArrayRef<GpuLaunch> mainLaunches) {
  GpuCost total;
  bool first = true;
  for (auto [i, phase] : llvm::enumerate(model.phases)) {
    std::optional<GpuCost> cost;
    if (i == model.mainPhase) {
      cost = getGpuPhaseCost(phase, mainTile, p, true, mainLaunches);
    } else if (auto tile = chooseGpuTile(phase, p)) {
      cost = getGpuPhaseCost(phase, *tile, p, true,
                             chooseGpuLaunches(phase, *tile, p));
    }
    if (!cost)
      return std::nullopt;
    // Phases of one kernel share its launch (a phase's repetitions, MoE
    // experts, are already one grouped grid).
    if (!first) {
      cost->timeNs -= p.launchNs * double(getGpuPhaseLaunches(phase));
      cost->overheadNs = std::max(
          0.0, cost->timeNs - std::max(cost->computeNs, cost->memoryNs));
    }
    total += *cost;
    first = false;
  }
  // The MoE dispatch before the experts (vLLM's moe_align_block_size: one
  // kernel counts each expert's assignments with shared-memory atomics and
  // writes the sorted, padded token lists): one more launch, a DRAM round
  // trip, and its arrays at the chip's bandwidth: the indices read as the
  // TPU-like dispatch reads them, and the order written for the grouped
  // GEMMs (the TPU-like kernel keeps it on chip). Its counting is parallel: no
  // serial scalar work. One block of 1024 threads, as vLLM launches it for up
  // to 1024 experts.
  if (hasGpuDispatch(model)) {
    int64_t written = model.serialWriteBytes + model.dispatchOrder->orderBytes;
    double memoryNs = double(model.serialReadBytes + written) / p.hbmBytesPerNs;
    GpuGrid dispatch;
    dispatch.plan.threads = 1024;
    dispatch.plan.blocks = dispatch.plan.blocksPerSM = 1;
    dispatch.tailBlocks = 1;
    dispatch.tailNs = p.dramLatencyNs + memoryNs;
    total.grids.push_back(dispatch);
    total.timeNs += p.launchNs + dispatch.bodyNs();
    total.memoryNs += memoryNs;
    total.hbmReadBytes += c(model.serialReadBytes);
    total.hbmWriteBytes += c(written);
  }
  total.overheadNs =
      std::max(0.0, total.timeNs - std::max(total.computeNs, total.memoryNs));
  return total;
}
