//===- GpuBlockPlan.cpp - a GPU-like kernel's grid and one block's plan ---===//
//
// How a tile becomes thread blocks: the grid of a GEMM-like launch, the
// blocks a launch issues, the KV tiles a causal block sees, and one block's
// threads, registers and shared memory (planGpuBlock, occupancy).
// docs/cost-model-gpu.md.
//
//===----------------------------------------------------------------------===//

#include "GpuCostModelDetail.h"
#include "npu/Analysis/GpuCostModel.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::gpu_detail;
using namespace mlir::npu::gpumodel;

namespace mlir::npu::gpu_detail {
GemmGrid getGemmGrid(const KernelDesc &k, ArrayRef<int64_t> t,
                     const GpuLaunch &l) {
  GemmNest<> loops = k.gemmLoops(), tile = GemmNest<>::from(t);
  int64_t rows = llvm::divideCeil(loops.m, tile.m),
          cols = llvm::divideCeil(loops.n, tile.n);
  return {rows, cols, int64_t(llvm::alignTo(rows, l.clusterM)),
          int64_t(llvm::alignTo(cols, l.clusterN))};
}

/// Blocks a launch runs: a GEMM's padded grid; with split KV, kvSplits
/// blocks per attention block.
int64_t launchedBlocks(const KernelDesc &k, ArrayRef<int64_t> t,
                       const GpuBlockPlan &plan, const GpuLaunch &l) {
  if (isAttention(k))
    return plan.blocks * l.kvSplits;
  if (k.kind != KernelKind::Gemm)
    return plan.blocks;
  GemmGrid g = getGemmGrid(k, t, l);
  return k.gemmLoops().batch * g.launchedRows * g.launchedCols;
}

/// The KV tiles [first, last] that query tile `qi` visits (all of them
/// unless causal; a window or a chunk drops the ones before it).
std::pair<int64_t, int64_t> visibleKvTiles(const KernelDesc &k,
                                           ArrayRef<int64_t> t, int64_t qi) {
  AttentionNest<> loops = k.attentionLoops(), tile = AttentionNest<>::from(t);
  int64_t sq = loops.q, skv = loops.kv, tq = tile.q, tkv = tile.kv;
  int64_t first = 0, last = llvm::divideCeil(skv, tkv) - 1;
  if (k.causal) {
    int64_t off = skv - sq, lastRow = std::min(sq, (qi + 1) * tq) - 1;
    last = (off + lastRow) / tkv;
    first =
        AttentionOp::firstVisibleKey(off + qi * tq, k.window, k.chunk) / tkv;
  }
  return {first, last};
}

/// Blocks the hardware runs at once with `launch`: whole clusters only.
int64_t clusterSlots(const GpuBlockPlan &plan, const GpuParams &p,
                     const GpuLaunch &launch) {
  int64_t cs = launch.clusterBlocks();
  return p.sms * plan.blocksPerSM / cs * cs;
}
} // namespace mlir::npu::gpu_detail

GemmTileIndex mlir::npu::getGemmTileAt(int64_t blk, int64_t nm, int64_t nn,
                                       const GpuLaunch &l) {
  int64_t perBatch = nm * nn, q = blk % perBatch;
  int64_t cs = l.clusterBlocks(), cl = q / cs, local = q % cs;
  int64_t clusterRows = nm / l.clusterM, clusterCols = nn / l.clusterN;
  // Clusters in groups of rasterGroup cluster rows (the last group may
  // be shorter), column by column inside a group.
  int64_t inGroup = l.rasterGroup * clusterCols;
  int64_t first = cl / inGroup * l.rasterGroup;
  int64_t rows = std::min(clusterRows - first, l.rasterGroup);
  int64_t r = cl % inGroup;
  int64_t cr = first + r % rows, cc = r / rows;
  return {blk / perBatch, cr * l.clusterM + local / l.clusterN,
          cc * l.clusterN + local % l.clusterN};
}

std::optional<GpuBlockPlan> mlir::npu::planGpuBlock(const KernelDesc &k,
                                                    ArrayRef<int64_t> t,
                                                    const GpuParams &p) {
  if (t.size() != k.loops.size())
    return std::nullopt;
  for (auto [n, ti] : llvm::zip(k.loops, t))
    if (ti < 1 || ti > n)
      return std::nullopt;
  // A thread block computes its query tile at once (no sub-tiles) and
  // streams its K/V tiles (no K/V resident across blocks).
  if (isAttention(k)) {
    AttentionNest<> tile = AttentionNest<>::from(t);
    if (tile.qSub != tile.q || tile.kvHeld != tile.kv)
      return std::nullopt;
  }
  GpuBlockPlan plan;
  switch (k.kind) {
  case KernelKind::Gemm: {
    GemmNest<> loops = k.gemmLoops(), tile = GemmNest<>::from(t);
    int64_t bm = tile.m, bn = tile.n, bk = tile.k;
    int64_t ksteps = llvm::divideCeil(loops.k, bk);
    int64_t stages = std::min<int64_t>(3, ksteps);
    plan.sharedMemBytes = stages * (bm * bk * k.lhsBytes +
                                    int64_t(std::ceil(bk * bn * k.rhsBytes)));
    plan.inflightBytes = plan.sharedMemBytes;
    plan.threads = bm * bn >= 128 * 128 ? 256 : 128;
    plan.registersPerThread = llvm::divideCeil(bm * bn, plan.threads) + 32;
    plan.blocks = loops.batch * llvm::divideCeil(loops.m, bm) *
                  llvm::divideCeil(loops.n, bn);
    break;
  }
  case KernelKind::Attention:
  case KernelKind::MlaAbsorbed: {
    // A block holds tq query positions of `heads` query heads of one KV
    // head (rows = tq x heads), as GQA kernels and FlashMLA do, so that one
    // K/V tile load serves them all: the most heads (a divisor of the group)
    // whose f32 output rows fit the register file.
    AttentionNest<> loops = k.attentionLoops(), tile = AttentionNest<>::from(t);
    int64_t tq = tile.q, tkv = tile.kv, dqk = tile.headDim, dv = k.vDim;
    int64_t kvWidth = dqk + (k.latent ? 0 : dv);
    for (int64_t heads = k.group; heads >= 1; --heads) {
      if (k.group % heads)
        continue;
      int64_t rows = tq * heads;
      plan.headsPerBlock = heads;
      plan.threads = std::max<int64_t>(128, std::min<int64_t>(512, 4 * rows));
      plan.registersPerThread =
          llvm::divideCeil(rows * dv + rows * tkv, plan.threads) + 40;
      plan.sharedMemBytes = int64_t(std::ceil(2 * tkv * kvWidth * k.rhsBytes)) +
                            rows * dqk * k.lhsBytes;
      if (rows <= 128 &&
          plan.registersPerThread <= int64_t(p.sm.maxRegistersPerThread) &&
          plan.registersPerThread * plan.threads <=
              int64_t(p.sm.registersPerSM))
        break;
    }
    plan.blocks = loops.heads * (k.group / plan.headsPerBlock) *
                  llvm::divideCeil(loops.q, tq);
    plan.inflightBytes = int64_t(std::ceil(2 * tkv * kvWidth * k.rhsBytes));
    break;
  }
  case KernelKind::Stream:
  case KernelKind::Copy:
    plan.threads = 256;
    plan.registersPerThread = 32;
    plan.sharedMemBytes = 0;
    plan.blocks = llvm::divideCeil(k.rowLoops().rows, RowNest<>::from(t).rows);
    break;
  case KernelKind::GatedMlp:
  case KernelKind::MoeFfn:
    return std::nullopt; // run as two GEMMs (getGpuPhaseCost)
  }
  if (plan.registersPerThread > 255)
    return std::nullopt;
  llvm::Expected<Occupancy> occ = computeOccupancy(
      p.sm, {uint64_t(plan.threads), uint64_t(plan.registersPerThread),
             uint64_t(plan.sharedMemBytes)});
  if (!occ) {
    llvm::consumeError(occ.takeError());
    return std::nullopt;
  }
  if (!occ->fits())
    return std::nullopt;
  plan.blocksPerSM = int64_t(occ->blocksPerSM);
  return plan;
}
