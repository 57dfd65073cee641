//===- GpuL2Simulation.cpp - the L2 simulation of a GPU-like launch -------===//
//
// Replays the access stream of the first waves of a launch (in the
// hardware's block order, clusters issuing shared tiles once) through an
// LRU model of the L2 and extrapolates to the grid (docs/cost-model-gpu.md,
// "The L2 cache, simulated on the hardware's order").
//
//===----------------------------------------------------------------------===//

#include "GpuCostModelDetail.h"
#include "npu/GpuModel/Cache.h"

#include "npu/Analysis/ContextMemo.h"
#include "npu/Dialect/Npu/IR/NpuDialect.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <functional>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::gpu_detail;
using namespace mlir::npu::gpumodel;

namespace {
/// Emits the access stream of the blocks of one wave, in lockstep: step t
/// of every block of the wave, then step t + 1. `emit(block, step)` issues
/// the block's accesses of that step and returns false when it has none.
using StepFn = std::function<bool(int64_t block, int64_t step)>;

constexpr int64_t kMaxWaves = 3;
constexpr double kLineBudget = double(1 << 18);
constexpr double kCallBudget = double(1 << 21);
/// Attention's K/V sweep is issued in at most this many lockstep steps per
/// block (consecutive K/V tiles merged into one contiguous read), so that
/// the simulation's work does not grow with the context (issue 29): at
/// 4K tokens a block has 64-128 K/V tiles, at 1M up to 16K.
constexpr int64_t kMaxKvSteps = 128;

} // namespace

namespace {
/// Where the operands live: each in its own region (2^44 bytes apart, so
/// regions never alias). Real L2s hash addresses over slices and sets; the
/// simulator indexes sets by line modulo the set count, so each matrix row
/// is shifted by a hashed number of lines within a pad of one set span
/// (rows stay disjoint): power-of-two row strides then do not pile onto a
/// few sets, as they do not on the hardware.
struct Layout {
  uint64_t sets, line;
  uint64_t aBase = 0, bBase = uint64_t(1) << 44, cBase = uint64_t(2) << 44;
  uint64_t rowAddr(uint64_t base, uint64_t row, uint64_t rowBytes) const {
    uint64_t h = (row + 0x9e3779b97f4a7c15ull) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
    return base + row * (rowBytes + sets * line) + (h % sets) * line;
  }
};

/// The accesses of a launch's blocks: `step(block, s)` issues step s's
/// (false when the block has none), `finish(block)` its output; steps are
/// merged so that a wave issues a bounded number of calls.
struct AccessStream {
  StepFn step;
  std::function<void(int64_t)> finish;
  int64_t maxSteps = 0;
};

/// A GEMM's blocks (`simBlocks` of them simulated): per merged K step, the
/// rows of its A and B tiles; at the end, its output tile.
AccessStream gemmStream(const KernelDesc &k, ArrayRef<int64_t> t,
                        const GpuLaunch &launch, int64_t simBlocks,
                        Cache &cache, const Layout &mem) {
  AccessStream out;
  uint64_t aBase = mem.aBase, bBase = mem.bBase, cBase = mem.cBase;
  auto rowAddr = [mem](uint64_t base, uint64_t row, uint64_t rowBytes) {
    return mem.rowAddr(base, row, rowBytes);
  };
  GemmNest<> loops = k.gemmLoops(), tile = GemmNest<>::from(t);
  int64_t m = loops.m, n = loops.n, kk = loops.k;
  int64_t bm = tile.m, bn = tile.n, bk = tile.k;
  // B's rows as laid out: a stored B's values (its scales, a tensor of
  // their own, are in the minimum reads).
  double rv = k.getRhsValueBytes();
  // The launch order runs over the grid padded to whole clusters.
  GemmGrid grid = getGemmGrid(k, t, launch);
  int64_t nm = grid.rows, nn = grid.cols, nmL = grid.launchedRows,
          nnL = grid.launchedCols;
  int64_t ksteps = llvm::divideCeil(kk, bk);
  double calls = double(simBlocks) * double(ksteps) * double(bm + bn);
  int64_t merge = std::max<int64_t>(1, int64_t(std::ceil(calls / kCallBudget)));
  out.maxSteps = llvm::divideCeil(ksteps, merge);
  // B is [N, K] (an nn.Linear weight, rows of K contiguous), A is [M, K].
  // With TMA multicast, one block of each cluster row reads the row's A
  // tile for all of them, one of each cluster column the B tile.
  out.step = [=, &cache](int64_t blk, int64_t s) {
    auto [b, mi, ni] = getGemmTileAt(blk, nmL, nnL, launch);
    if (s >= out.maxSteps || mi >= nm || ni >= nn)
      return false;
    int64_t k0 = s * merge * bk, kw = std::min(kk - k0, merge * bk);
    if (ni % launch.clusterN == 0)
      for (int64_t r = mi * bm; r < std::min(m, (mi + 1) * bm); ++r)
        cache.read(rowAddr(aBase, b * m + r, kk * k.lhsBytes) +
                       uint64_t(k0 * k.lhsBytes),
                   uint64_t(kw * k.lhsBytes));
    int64_t bb = k.rhsBatched ? b : 0;
    if (mi % launch.clusterM == 0)
      for (int64_t r = ni * bn; r < std::min(n, (ni + 1) * bn); ++r)
        cache.read(rowAddr(bBase, bb * n + r, uint64_t(kk * rv)) +
                       uint64_t(k0 * rv),
                   uint64_t(std::ceil(kw * rv)));
    return true;
  };
  out.finish = [=, &cache](int64_t blk) {
    auto [b, mi, ni] = getGemmTileAt(blk, nmL, nnL, launch);
    if (mi >= nm || ni >= nn)
      return;
    int64_t w = std::min(n - ni * bn, bn);
    for (int64_t r = mi * bm; r < std::min(m, (mi + 1) * bm); ++r)
      cache.write(rowAddr(cBase, b * m + r, n * k.outBytes) +
                      uint64_t(ni * bn * k.outBytes),
                  uint64_t(w * k.outBytes));
  };
  return out;
}

/// An attention launch's blocks (`simBlocks` simulated): the block's query
/// rows, then per merged step its K/V tiles; at the end, its output.
AccessStream attentionStream(const KernelDesc &k, ArrayRef<int64_t> t,
                             const GpuBlockPlan &plan, const GpuLaunch &launch,
                             int64_t simBlocks, Cache &cache,
                             const Layout &mem) {
  AccessStream out;
  uint64_t aBase = mem.aBase, bBase = mem.bBase, cBase = mem.cBase;
  // Attention: block = (query head, query tile), query tile fastest, so
  // consecutive blocks share the K/V of their head.
  AttentionNest<> loops = k.attentionLoops(), tile = AttentionNest<>::from(t);
  int64_t sq = loops.q, skv = loops.kv, dqk = loops.headDim;
  int64_t tq = tile.q, tkv = tile.kv, nq = llvm::divideCeil(sq, tq);
  int64_t kvWidth = k.kvWidth();
  int64_t nkv = llvm::divideCeil(skv, tkv);
  double calls = double(simBlocks) * double(nkv) * 2;
  int64_t merge =
      std::max<int64_t>({1, int64_t(std::ceil(calls / kCallBudget)),
                         int64_t(llvm::divideCeil(nkv, kMaxKvSteps))});
  out.maxSteps = llvm::divideCeil(nkv, merge) + 1;
  int64_t hb = plan.headsPerBlock, chunks = k.group / hb;
  // Split KV: the kvSplits blocks of a query tile are consecutive, each
  // with an equal part of its KV tiles; the last writes the output (the
  // small f32 partials are not simulated).
  int64_t splits = launch.kvSplits;
  auto splitRange = [=](int64_t blk) {
    auto [first, last] = visibleKvTiles(k, t, blk / splits % nq);
    int64_t per = llvm::divideCeil(last - first + 1, splits);
    int64_t f = first + blk % splits * per;
    return std::make_pair(f, std::min(last, f + per - 1));
  };
  out.step = [=, &cache](int64_t launched, int64_t s) {
    int64_t blk = launched / splits;
    int64_t qi = blk % nq, chunk = (blk / nq) % chunks,
            kvh = blk / (nq * chunks);
    auto [first, last] = splitRange(launched);
    if (s == 0) {
      // The query rows of the block's heads (head-major, positions inner).
      int64_t h0 = kvh * k.group + chunk * hb;
      for (int64_t h = h0; h < h0 + hb; ++h)
        cache.read(aBase + uint64_t((h * sq + qi * tq) * dqk) * k.lhsBytes,
                   uint64_t(std::min(tq, sq - qi * tq) * dqk * k.lhsBytes));
      return true;
    }
    int64_t j0 = first + (s - 1) * merge;
    if (j0 > last)
      return false;
    int64_t rows = std::min((last + 1 - j0) * tkv, merge * tkv);
    rows = std::min(rows, skv - j0 * tkv);
    uint64_t base =
        uint64_t(double((kvh * skv + j0 * tkv) * kvWidth) * k.rhsBytes);
    cache.read(bBase + base, uint64_t(std::ceil(rows * kvWidth * k.rhsBytes)));
    return true;
  };
  out.finish = [=, &cache](int64_t launched) {
    if (launched % splits != splits - 1)
      return;
    int64_t blk = launched / splits;
    int64_t qi = blk % nq, chunk = (blk / nq) % chunks,
            kvh = blk / (nq * chunks);
    int64_t h0 = kvh * k.group + chunk * hb;
    for (int64_t h = h0; h < h0 + hb; ++h)
      cache.write(cBase + uint64_t((h * sq + qi * tq) * k.vDim) * k.outBytes,
                  uint64_t(std::min(tq, sq - qi * tq) * k.vDim * k.outBytes));
  };
  return out;
}
} // namespace

namespace {
/// simulateL2 without the memo.
std::optional<L2Result> simulate(const KernelDesc &k, ArrayRef<int64_t> t,
                                 const GpuBlockPlan &plan, const GpuParams &p,
                                 double l2BytesPerBlock,
                                 const GpuLaunch &launch) {
  int64_t slots = clusterSlots(plan, p, launch);
  int64_t waves = llvm::divideCeil(plan.blocks, slots);
  int64_t simWaves = std::min(waves, kMaxWaves);
  double lines = double(std::min(plan.blocks, simWaves * slots)) *
                 l2BytesPerBlock / double(p.l2LineBytes);
  CacheConfig cfg;
  cfg.sizeBytes = p.l2Bytes;
  cfg.lineBytes = p.l2LineBytes;
  cfg.ways = p.l2Ways;
  // GPU L2s keep per-sector byte masks: a store allocates the line without
  // reading it from HBM (a kernel's output is written whole).
  cfg.fetchOnWriteMiss = false;
  uint64_t sets = cfg.numSets();
  uint64_t sample = 1;
  while (lines / double(sample) > kLineBudget && sample * 2 <= sets / 16)
    sample *= 2;
  llvm::Expected<Cache> cacheOr = Cache::create(cfg, sample, /*seed=*/1);
  if (!cacheOr) {
    llvm::consumeError(cacheOr.takeError());
    return std::nullopt;
  }
  Cache &cache = *cacheOr;

  Layout mem{sets, cfg.lineBytes};
  int64_t simBlocks = std::min(plan.blocks, simWaves * slots);
  AccessStream stream =
      k.kind == KernelKind::Gemm
          ? gemmStream(k, t, launch, simBlocks, cache, mem)
          : attentionStream(k, t, plan, launch, simBlocks, cache, mem);
  const StepFn &step = stream.step;
  int64_t maxSteps = stream.maxSteps;

  for (int64_t w = 0; w < simWaves; ++w) {
    int64_t b0 = w * slots, b1 = std::min(plan.blocks, b0 + slots);
    for (int64_t s = 0; s <= maxSteps; ++s) {
      bool any = false;
      for (int64_t blk = b0; blk < b1; ++blk)
        any |= step(blk, s);
      if (!any)
        break;
    }
    for (int64_t blk = b0; blk < b1; ++blk)
      stream.finish(blk);
  }
  // Dirty lines still in L2 are written back eventually.
  cache.flush();
  CacheTraffic tr = cache.traffic();
  L2Result r;
  // The simulated waves stand for the later ones: per block, the same
  // traffic on average (later blocks of a GEMM stream other panels, later
  // blocks of attention other heads, as the simulated ones did).
  double scale = double(plan.blocks) / double(simBlocks);
  r.hbmRead = tr.bytesFromBelow * scale;
  r.hbmWrite = tr.bytesToBelow * scale;
  double requested = l2BytesPerBlock * double(plan.blocks);
  // Hit rate over the requested bytes (reads and writes).
  r.hitRate =
      requested > 0 ? std::clamp(1.0 - (r.hbmRead) / requested, 0.0, 1.0) : 0;
  r.simulatedLines = cache.simulatedLineAccesses();
  return r;
}

/// The simulations of a context (NpuDialect::getContextCache): models with
/// per-layer functions price the same kernel once per layer, and a
/// simulation is deterministic (its sampled sets are seeded).
struct L2Memo : ContextMemo<std::optional<L2Result>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(L2Memo)
};
} // namespace

std::optional<L2Result> mlir::npu::gpu_detail::simulateL2(
    const KernelDesc &k, ArrayRef<int64_t> t, const GpuBlockPlan &plan,
    const GpuParams &p, double l2BytesPerBlock, const GpuLaunch &launch) {
  static_assert(sizeof(GpuBlockPlan) == 7 * sizeof(int64_t) &&
                    sizeof(GpuLaunch) == 4 * sizeof(int64_t),
                "GpuBlockPlan or GpuLaunch changed: update the key");
  // The simulation reads the L2's geometry and the SM count (the blocks of
  // a wave) of the target, nothing else of it: a variant that changes only
  // rates (a clock, a bandwidth) reuses it (npu-sweep).
  SmallVector<uint64_t, 96> words = {uint64_t(p.sms), uint64_t(p.l2Bytes),
                                     uint64_t(p.l2LineBytes),
                                     uint64_t(p.l2Ways)};
  appendKey(k, words);
  words.push_back(t.size());
  words.append(t.begin(), t.end());
  words.append({uint64_t(plan.threads), uint64_t(plan.registersPerThread),
                uint64_t(plan.sharedMemBytes), uint64_t(plan.blocks),
                uint64_t(plan.blocksPerSM), uint64_t(plan.headsPerBlock),
                uint64_t(plan.inflightBytes),
                llvm::bit_cast<uint64_t>(l2BytesPerBlock),
                uint64_t(launch.clusterM), uint64_t(launch.clusterN),
                uint64_t(launch.rasterGroup), uint64_t(launch.kvSplits)});
  return cast<NpuDialect>(p.target.getDialect())
      .getContextCache<L2Memo>()
      .getOrCompute(words, [&] {
        return simulate(k, t, plan, p, l2BytesPerBlock, launch);
      });
}
