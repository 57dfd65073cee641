//===- GpuCostModelDetail.h - shared by the GPU-like model's files -*- C++
//-*-===//
//
// Private to the Analysis library: what GpuCostModel.cpp (block plans, the
// L2 simulation, the cost of a phase) and GpuLaunchArrangement.cpp (clusters,
// raster order and KV splits of a launch) both use.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_ANALYSIS_GPUCOSTMODELDETAIL_H
#define NPU_LIB_ANALYSIS_GPUCOSTMODELDETAIL_H

#include "npu/Analysis/GpuCostModel.h"

#include <string>

namespace mlir::npu::gpu_detail {

inline Count c(int64_t v) { return Count::fromSigned(v); }

inline bool isAttention(const KernelDesc &k) { return isAttentionKind(k.kind); }

/// A GEMM's output tiles per batch, and the grid launched for them: CUDA
/// launches whole clusters, so the tile rows and columns are rounded up to
/// multiples of the cluster sides (the extra blocks have no tile and exit
/// at once, as CUTLASS pads its grid).
struct GemmGrid {
  int64_t rows, cols, launchedRows, launchedCols;
};
GemmGrid getGemmGrid(const KernelDesc &k, llvm::ArrayRef<int64_t> t,
                     const GpuLaunch &l);

/// Blocks a launch runs: a GEMM's padded grid; with split KV, kvSplits
/// blocks per attention block.
int64_t launchedBlocks(const KernelDesc &k, llvm::ArrayRef<int64_t> t,
                       const GpuBlockPlan &plan, const GpuLaunch &l);

/// The KV tiles [first, last] that query tile `qi` visits (all of them
/// unless causal; a window drops the ones before it).
std::pair<int64_t, int64_t>
visibleKvTiles(const KernelDesc &k, llvm::ArrayRef<int64_t> t, int64_t qi);

/// Blocks the hardware runs at once with `launch`: whole clusters only.
int64_t clusterSlots(const GpuBlockPlan &plan, const GpuParams &p,
                     const GpuLaunch &launch);

/// The L2 simulation of a phase: HBM bytes read and written and the hit
/// rate over the requested bytes. Simulates at most a few waves and
/// extrapolates the last one to the rest; merges consecutive steps and
/// samples sets so that about 2M lines are simulated whatever the problem
/// size. (GpuL2Simulation.cpp)
struct L2Result {
  double hbmRead = 0, hbmWrite = 0, hitRate = 0;
  uint64_t simulatedLines = 0;
};
std::optional<L2Result> simulateL2(const KernelDesc &k,
                                   llvm::ArrayRef<int64_t> t,
                                   const GpuBlockPlan &plan, const GpuParams &p,
                                   double l2BytesPerBlock,
                                   const GpuLaunch &launch);

/// A GEMM launch of a phase: its description and block tile.
struct GemmLaunch {
  KernelDesc desc;
  llvm::SmallVector<int64_t, 4> tile;
};

/// The GEMM launches of a phase (none for attention and streams).
llvm::SmallVector<GemmLaunch, 2> getGemmLaunches(const KernelDesc &k,
                                                 llvm::ArrayRef<int64_t> t);

/// The cost of one GEMM, attention or stream launch arranged by `launch`.
std::optional<GpuCost> gemmLikeCost(const KernelDesc &k,
                                    llvm::ArrayRef<int64_t> t,
                                    const GpuParams &p, bool simulate,
                                    const GpuLaunch &launch);

/// Why `launch` cannot arrange the launch of the gemm, attention or stream
/// phase `k` whose blocks are `plan` (null when its tile has none: the
/// slots are not checked); empty if it can. (GpuLaunchArrangement.cpp)
std::string checkArrangement(const KernelDesc &k, llvm::ArrayRef<int64_t> t,
                             const GpuBlockPlan *plan, const GpuLaunch &launch,
                             const GpuParams &p);

/// Each GEMM launch's cluster, and its raster group if `raster`; an
/// attention launch's KV split. (GpuLaunchArrangement.cpp)
llvm::SmallVector<GpuLaunch, 2> chooseLaunches(const KernelDesc &k,
                                               llvm::ArrayRef<int64_t> t,
                                               const GpuParams &p, bool raster);

} // namespace mlir::npu::gpu_detail

#endif // NPU_LIB_ANALYSIS_GPUCOSTMODELDETAIL_H
