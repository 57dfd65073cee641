//===- GpuLaunchArrangement.cpp - clusters, raster order, KV splits -------===//
//
// How a GPU-like launch is arranged beyond its block tile: thread-block
// clusters and the grouped raster order of GEMM launches, the KV split of
// attention (docs/cost-model-gpu.md, "Clusters, multicast and raster order",
// "Split KV for attention"). Chosen by least modelled time (gemmLikeCost,
// without the L2 simulation) and checked when written by hand.
//
//===----------------------------------------------------------------------===//

#include "GpuCostModelDetail.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::gpu_detail;

namespace {
/// The fewest KV tiles a block of the attention phase visits (the first
/// query tile's, under a causal mask): the most a split can divide.
int64_t minVisitedKvTiles(const KernelDesc &k, ArrayRef<int64_t> t) {
  auto [first, last] = visibleKvTiles(k, t, 0);
  return last - first + 1;
}

} // namespace

std::string mlir::npu::gpu_detail::checkArrangement(const KernelDesc &k,
                                                    ArrayRef<int64_t> t,
                                                    const GpuBlockPlan *plan,
                                                    const GpuLaunch &launch,
                                                    const GpuParams &p) {
  std::string msg;
  llvm::raw_string_ostream os(msg);
  if (launch.isDefault())
    return msg; // one block per tile, in order: fits any grid
  if (getGpuArrangedLaunches(k) == 0) {
    os << "a " << stringifyKernelKind(k.kind)
       << " phase has no launch to arrange";
    return msg;
  }
  if (isAttention(k)) {
    if (launch.clusterBlocks() > 1 || launch.rasterGroup > 1) {
      os << "clusters and raster groups arrange GEMM launches, not "
         << stringifyKernelKind(k.kind);
      return msg;
    }
    int64_t tiles = minVisitedKvTiles(k, t);
    if (launch.kvSplits > tiles)
      os << "kv_splits " << launch.kvSplits << " exceeds the " << tiles
         << " KV tiles of the block that visits the fewest";
    else if (launch.kvSplits > GpuLaunch::kMaxKvSplits)
      os << "kv_splits " << launch.kvSplits << " exceeds "
         << GpuLaunch::kMaxKvSplits
         << ", the most a split-KV combine handles (FlashAttention)";
    return msg;
  }
  if (launch.kvSplits > 1) {
    os << "kv_splits splits attention launches, not "
       << stringifyKernelKind(k.kind);
    return msg;
  }
  if (launch.clusterBlocks() > p.maxClusterBlocks) {
    os << "a cluster of " << launch.clusterM << " x " << launch.clusterN
       << " blocks exceeds the target's gpu.max_cluster_blocks ("
       << p.maxClusterBlocks << ")";
    return msg;
  }
  if (plan && clusterSlots(*plan, p, launch) == 0)
    os << "a cluster of " << launch.clusterBlocks()
       << " blocks does not fit the " << p.sms * plan->blocksPerSM
       << " block slots of the chip";
  return msg;
}

std::string mlir::npu::checkGpuLaunch(const KernelDesc &k, ArrayRef<int64_t> t,
                                      unsigned index, const GpuLaunch &launch,
                                      const GpuParams &p) {
  if (launch.isDefault())
    return ""; // one block per tile, in order: fits any grid
  int64_t arranged = getGpuArrangedLaunches(k);
  if (int64_t(index) >= arranged) {
    std::string msg;
    llvm::raw_string_ostream(msg)
        << "a " << stringifyKernelKind(k.kind) << " phase has no launch "
        << index + 1 << " to arrange (it has " << arranged << ")";
    return msg;
  }
  // The launch's own phase: the phase itself, or one GEMM of a gated MLP.
  SmallVector<GemmLaunch, 2> gemms = getGemmLaunches(k, t);
  const KernelDesc &desc = gemms.empty() ? k : gemms[index].desc;
  ArrayRef<int64_t> tile = gemms.empty() ? t : ArrayRef(gemms[index].tile);
  std::optional<GpuBlockPlan> plan = planGpuBlock(desc, tile, p);
  return checkArrangement(desc, tile, plan ? &*plan : nullptr, launch, p);
}

namespace {
/// The cluster of least modelled time (no cache simulation) for a GEMM
/// launch: sides powers of two, at most the target's blocks (the grid is
/// padded to whole clusters). Smaller clusters first, so a larger one must be
/// strictly faster; among shapes of one size at the same time, the least L2
/// traffic.
GpuLaunch chooseCluster(const GemmLaunch &g, const GpuParams &p) {
  GpuLaunch best;
  std::optional<GpuCost> bestCost =
      gemmLikeCost(g.desc, g.tile, p, false, best);
  if (!bestCost)
    return best;
  for (int64_t size = 2; size <= p.maxClusterBlocks; size *= 2)
    for (int64_t cm = 1; cm <= size; cm *= 2) {
      GpuLaunch l{cm, size / cm, 1};
      std::optional<GpuCost> c = gemmLikeCost(g.desc, g.tile, p, false, l);
      if (!c)
        continue;
      bool faster = c->timeNs < bestCost->timeNs * (1 - 1e-9);
      bool lighter = best.clusterBlocks() == size &&
                     c->timeNs <= bestCost->timeNs * (1 + 1e-9) &&
                     c->l2Bytes.value() < bestCost->l2Bytes.value();
      if (faster || lighter) {
        best = l;
        bestCost = c;
      }
    }
  return best;
}

/// The raster group (a power of two up to the cluster rows) whose first
/// wave touches the fewest A and B bytes: what the wave's blocks must
/// stream from HBM when the operands do not stay in L2. Ties go to the
/// smaller group (1: row-major).
int64_t chooseRasterGroup(const GemmLaunch &g, GpuLaunch l,
                          const GpuParams &p) {
  std::optional<GpuBlockPlan> plan = planGpuBlock(g.desc, g.tile, p);
  if (!plan)
    return 1;
  GemmNest<> tile = GemmNest<>::from(g.tile);
  int64_t bm = tile.m, bn = tile.n;
  auto [nm, nn, nmL, nnL] = getGemmGrid(g.desc, g.tile, l);
  int64_t wave = std::min(nmL * nnL, clusterSlots(*plan, p, l));
  int64_t best = 1;
  double bestBytes = 0;
  for (int64_t group = 1; group <= nmL / l.clusterM; group *= 2) {
    l.rasterGroup = group;
    llvm::SmallDenseSet<int64_t, 64> rows, cols;
    for (int64_t blk = 0; blk < wave; ++blk) {
      GemmTileIndex b = getGemmTileAt(blk, nmL, nnL, l);
      if (b.row >= nm || b.col >= nn)
        continue;
      rows.insert(b.row);
      cols.insert(b.col);
    }
    double bytes = double(rows.size()) * double(bm * g.desc.lhsBytes) +
                   double(cols.size()) * double(bn) * g.desc.rhsBytes;
    if (group == 1 || bytes < bestBytes * (1 - 1e-9)) {
      best = group;
      bestBytes = bytes;
    }
  }
  return best;
}

/// The KV split of least modelled time (no cache simulation) for an
/// attention launch: powers of two up to the KV tiles of the block that
/// visits the fewest and at most GpuLaunch::kMaxKvSplits, smaller first, so
/// a larger split must be strictly faster (it adds partials and a combine).
GpuLaunch chooseKvSplits(const KernelDesc &k, ArrayRef<int64_t> t,
                         const GpuParams &p) {
  GpuLaunch best;
  std::optional<GpuCost> bestCost = gemmLikeCost(k, t, p, false, best);
  if (!bestCost)
    return best;
  int64_t tiles = std::min(minVisitedKvTiles(k, t), GpuLaunch::kMaxKvSplits);
  for (int64_t splits = 2; splits <= tiles; splits *= 2) {
    GpuLaunch l;
    l.kvSplits = splits;
    std::optional<GpuCost> c = gemmLikeCost(k, t, p, false, l);
    if (c && c->timeNs < bestCost->timeNs * (1 - 1e-9)) {
      best = l;
      bestCost = c;
    }
  }
  return best;
}

} // namespace

SmallVector<GpuLaunch, 2>
mlir::npu::gpu_detail::chooseLaunches(const KernelDesc &k, ArrayRef<int64_t> t,
                                      const GpuParams &p, bool raster) {
  SmallVector<GpuLaunch, 2> out;
  if (isAttention(k)) {
    out.push_back(chooseKvSplits(k, t, p));
    return out;
  }
  for (const GemmLaunch &g : getGemmLaunches(k, t)) {
    GpuLaunch l = chooseCluster(g, p);
    if (raster)
      l.rasterGroup = chooseRasterGroup(g, l, p);
    out.push_back(l);
  }
  return out;
}

SmallVector<GpuLaunch, 2> mlir::npu::chooseGpuLaunches(const KernelDesc &k,
                                                       ArrayRef<int64_t> t,
                                                       const GpuParams &p) {
  return chooseLaunches(k, t, p, /*raster=*/true);
}
