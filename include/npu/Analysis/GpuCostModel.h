//===- GpuCostModel.h - the run-time-decided cost model ---------*- C++ -*-===//
//
// On a GPU-like target the compiler chooses kernels and thread-block tiles;
// the hardware decides the rest. The model therefore models those run-time
// decisions (docs/cost-model-gpu.md):
//
//  * occupancy: blocks per SM from the block's threads, registers and shared
//    memory (CUDA's rules, npu/GpuModel/Occupancy.h);
//  * dynamic block dispatch: blocks handed to SMs in launch order as slots
//    free up, in waves with a tail (npu/GpuModel/Dispatch.h);
//  * the L2 cache: a set-associative LRU simulation (npu/GpuModel/Cache.h)
//    of the order in which concurrently running blocks touch their tiles,
//    bounded by set sampling, coarsened steps and a cap on simulated waves,
//    so that its cost does not grow with the problem;
//  * launch overhead per kernel.
//
// Like the TPU-like model it takes a KernelDesc, not IR.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_ANALYSIS_GPUCOSTMODEL_H
#define NPU_ANALYSIS_GPUCOSTMODEL_H

#include "npu/Analysis/CostModel.h"
#include "npu/Analysis/KernelModel.h"
#include "npu/GpuModel/Occupancy.h"

#include <memory>
#include <optional>
#include <string>

namespace mlir::npu {

struct GpuParams {
  int64_t sms;
  gpumodel::SMResources sm;
  int64_t l2Bytes, l2LineBytes, l2Ways;
  int64_t maxClusterBlocks;
  double l2BytesPerNs, hbmBytesPerNs, launchNs, dramLatencyNs;
  double vectorPerNsPerSM, transcPerNsPerSM;
  /// Shared memory an SM's MMAs read their operand tiles from, per ns: the
  /// target's gpu.shared_memory_bytes_per_clock at the matrix clock.
  double sharedBytesPerNsPerSM;
  TargetAttr target;
  double matrixPerNsPerSM(Type matrixType) const {
    return matrixRates.of(matrixType);
  }
  MatrixRates matrixRates;
  /// GEMM tiles' output stores stall the main loop (GpuRunMode).
  bool serialEpilogue = false;
  /// `mode.graphLaunches`: kernels are replayed from a CUDA graph (launchNs
  /// is the target's graph_launch_overhead_ns), else launched on a stream
  /// (launch_overhead_ns).
  static FailureOr<GpuParams> get(TargetAttr target, GpuRunMode mode = {});
  /// Appends every field to `key` (the L2 simulation's memo).
  void appendKey(llvm::SmallVectorImpl<uint64_t> &key) const;
};

/// What one thread block of a phase asks for and does.
struct GpuBlockPlan {
  int64_t threads = 0, registersPerThread = 0, sharedMemBytes = 0;
  int64_t blocks = 0;      ///< the grid
  int64_t blocksPerSM = 0; ///< occupancy
  int64_t headsPerBlock =
      1; ///< attention: query heads of one KV head per block
  /// Bytes the block's copy pipeline keeps in flight (its shared-memory
  /// stages of A and B, or of K and V); 0 for blocks without one.
  int64_t inflightBytes = 0;
};

/// How one launch is arranged (#npu.launch). A GEMM: a cluster of
/// clusterM x clusterN output tiles sharing A and B tile loads by TMA
/// multicast, and the launch order (groups of rasterGroup cluster rows,
/// column by column inside a group). Attention: the KV range of each block
/// split over kvSplits blocks whose partial outputs the last one combines
/// (split-KV, "flash-decoding"). The default is one block per tile,
/// row-major, no cluster.
struct GpuLaunch {
  /// The most KV splits of one attention launch: FlashAttention's split-KV
  /// combine kernel handles at most 128 (flash_api.cpp: "num_splits > 128
  /// not supported"), and its num_splits_heuristic searches up to 128.
  static constexpr int64_t kMaxKvSplits = 128;
  int64_t clusterM = 1, clusterN = 1, rasterGroup = 1, kvSplits = 1;
  int64_t clusterBlocks() const { return clusterM * clusterN; }
  bool isDefault() const {
    return clusterM == 1 && clusterN == 1 && rasterGroup == 1 && kvSplits == 1;
  }
};

/// Output tile (batch, row, column) of a GEMM grid's block.
struct GemmTileIndex {
  int64_t batch, row, col;
};

/// The output tile of the `block`-th block, in launch order, of a GEMM grid
/// of `rows` x `cols` tiles per batch arranged by `launch`: batches
/// outermost, then clusters in raster order (groups of `rasterGroup`
/// cluster rows, column by column inside a group: Triton's GROUP_M), the
/// blocks of a cluster row-major. The default launch is row-major. `rows`
/// and `cols` are the launched grid's, padded to multiples of the cluster
/// sides.
GemmTileIndex getGemmTileAt(int64_t block, int64_t rows, int64_t cols,
                            const GpuLaunch &launch);

/// One launch's grid as the hardware runs it: `fullWaves` waves of
/// sm_count x blocksPerSM co-resident blocks, each `waveNs` long, then a
/// tail of `tailBlocks` blocks taking `tailNs`; `repeat` times (MoE experts
/// in one grouped launch). Recorded as #npu.grid for the trace.
struct GpuGrid {
  GpuBlockPlan plan;
  int64_t fullWaves = 0, tailBlocks = 0;
  double waveNs = 0, tailNs = 0;
  /// DRAM latency exposed once per launch (0 when each wave pays it), plus
  /// one more with split KV (the combine reads the partials back).
  double fillNs = 0;
  GpuLaunch launch;
  /// Time of the grid's blocks, launch excluded:
  /// fill + full x wave + tail; GridAttr::getBodyNs on the record.
  double bodyNs() const { return fillNs + double(fullWaves) * waveNs + tailNs; }
};

/// The HBM bytes come from the L2 simulation.
struct GpuCost : CostParts {
  Count l2Bytes;        ///< bytes the blocks request from L2
  double l2HitRate = 0; ///< over the bytes requested
  double waves = 0;
  int64_t sharedMemBytes = 0;
  /// The launches' grids in order (two for gated_mlp and moe_ffn).
  llvm::SmallVector<GpuGrid, 2> grids;
  /// Lines the L2 simulation touched (its cost), for the benchmarks.
  uint64_t simulatedLines = 0;
  bool isOverflow() const {
    return CostParts::isOverflow() || l2Bytes.isOverflow();
  }
  /// The DRAM latency its launches expose once each (sum of fillNs).
  double fillNs() const {
    double fill = 0;
    for (const GpuGrid &g : grids)
      fill += g.fillNs;
    return fill;
  }
  GpuCost &operator+=(const GpuCost &o);
};

/// Threads, registers, shared memory, grid and occupancy of `tile`; nullopt
/// if the block does not fit an SM.
std::optional<GpuBlockPlan> planGpuBlock(const KernelDesc &desc,
                                         llvm::ArrayRef<int64_t> tile,
                                         const GpuParams &p);

/// Cost of one phase with thread-block tile `tile` and, for its GEMM
/// launches, `launches` (empty: CUDA's default for each). With `simulateL2`
/// false, L2 is assumed to serve every reuse within a wave (the compiler's
/// own estimate, used to choose tiles); with it true, the L2 simulation
/// decides.
std::optional<GpuCost> getGpuPhaseCost(const KernelDesc &desc,
                                       llvm::ArrayRef<int64_t> tile,
                                       const GpuParams &p, bool simulateL2,
                                       llvm::ArrayRef<GpuLaunch> launches = {});

/// Why `launch` cannot arrange GEMM launch `index` of the phase with
/// `tile` on this target (cluster larger than the target's, or than the
/// chip's block slots); empty if it can.
std::string checkGpuLaunch(const KernelDesc &desc, llvm::ArrayRef<int64_t> tile,
                           unsigned index, const GpuLaunch &launch,
                           const GpuParams &p);

/// The block tile the compiler picks: smallest modelled time without the
/// cache simulation (a compiler cannot run the cache), each tile with its
/// best clusters.
std::optional<llvm::SmallVector<int64_t, 4>>
chooseGpuTile(const KernelDesc &desc, const GpuParams &p);

/// The launch arrangement of each GEMM launch of the phase with `tile`
/// (empty for other kinds): the cluster of least modelled time, then the
/// raster group whose first wave touches the fewest A and B bytes
/// (docs/cost-model-gpu.md).
llvm::SmallVector<GpuLaunch, 2> chooseGpuLaunches(const KernelDesc &desc,
                                                  llvm::ArrayRef<int64_t> tile,
                                                  const GpuParams &p);

/// Launches of one phase that #npu.launch arranges: GEMM launches (1 for
/// gemm, 2 for gated_mlp and moe_ffn) and attention ones (1); 0 for
/// streams and copies.
int64_t getGpuArrangedLaunches(const KernelDesc &desc);

/// Kernel launches of one phase: 2 for gated_mlp and moe_ffn (run as two
/// GEMMs), 1 otherwise.
int64_t getGpuPhaseLaunches(const KernelDesc &desc);
/// Launches of a whole kernel: its first phase's (later phases and MoE
/// repetitions share them), plus one for a MoE dispatch, each paying the
/// target's launch overhead.
int64_t getGpuKernelLaunches(const KernelModel &model);

/// A whole kernel: main phase with `mainTile` and `mainLaunches`, other
/// phases with their chosen tile and launches, each with the L2
/// simulation; getGpuKernelLaunches launches.
std::optional<GpuCost>
getGpuKernelCost(const KernelModel &model, llvm::ArrayRef<int64_t> mainTile,
                 const GpuParams &p,
                 llvm::ArrayRef<GpuLaunch> mainLaunches = {});

/// The arrangement of each launch from an array of #npu.launch (null:
/// none, CUDA's default for every launch).
llvm::SmallVector<GpuLaunch, 2> getGpuLaunches(ArrayAttr launches);
/// The GPU-like model behind the CostModel interface (GpuKernelCost.cpp).
std::unique_ptr<CostModel> createGpuCostModel(const GpuParams &p);

} // namespace mlir::npu

#endif // NPU_ANALYSIS_GPUCOSTMODEL_H
