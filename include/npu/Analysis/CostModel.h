//===- CostModel.h - one interface over both kinds of cost model -*- C++
//-*-===//
//
// A CostModel is built from a `#npu.target` and answers, for a kernel
// described by KernelModel.h, the questions the passes ask: which tile
// (npu-decide-tiles), how much SRAM a tile needs (npu-verify-tiles), how
// long the best tile takes (npu-decide-fusion) and what the decided plan
// costs (npu-estimate-cost). The TPU-like model (TpuCostModel.h: the static
// schedule of the tile loop, decided by the compiler) and the GPU-like one
// (GpuCostModel.h: occupancy, dispatch and L2, decided by the hardware)
// implement it; the passes never branch on the target kind.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_ANALYSIS_COSTMODEL_H
#define NPU_ANALYSIS_COSTMODEL_H

#include "npu/Analysis/KernelModel.h"

#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>

namespace mlir::npu {

/// A tile decision: the main phase's tile, buffers, working set and (TPU
/// GEMM) load chunks; on a GPU-like target, the arrangement of its GEMM
/// launches (an array of #npu.launch, null when it has none).
struct TileDecision {
  llvm::SmallVector<int64_t, 4> tile;
  int64_t buffers = 2;
  int64_t sramBytes = 0;
  ArrayAttr launches;
  int64_t chunks = 1;
  /// moe_ffn with a shared expert (TPU-like): its own tile.
  llvm::SmallVector<int64_t, 4> sharedTile;
  /// A stream kernel's rotary table computed per tile (TPU-like).
  bool tablePerTile = false;
};

/// What a kernel's plan costs: `#npu.cost`, and on a GPU-like target its
/// launches as an array of `#npu.grid` (null otherwise).
struct KernelPrice {
  CostAttr cost;
  ArrayAttr grids;
};

/// How a GPU-like target's kernels run: module attributes npu-set-target
/// writes (getGpuRunMode, KernelCost.h).
struct GpuRunMode {
  /// Kernels replayed from a CUDA graph (the target's
  /// graph_launch_overhead_ns each), else launched on a stream.
  bool graphLaunches = false;
  /// A GEMM tile's output store stalls the tensor cores before the next
  /// tile's main loop (docs/cost-model-gpu.md, "Epilogue").
  bool serialEpilogue = false;
};

class CostModel {
public:
  virtual ~CostModel();

  /// The model of `target`'s kind; an error at `loc` naming `pass` when the
  /// target lacks a number the model needs. `gpuMode`: how a GPU-like
  /// target's kernels run (getGpuRunMode).
  static FailureOr<std::unique_ptr<CostModel>> get(TargetAttr target,
                                                   Location loc,
                                                   llvm::StringRef pass,
                                                   GpuRunMode gpuMode = {});

  TargetAttr getTarget() const { return target; }

  /// The best plan of the kernel's main phase; nullopt if no tile fits.
  virtual std::optional<TileDecision>
  chooseTile(const KernelModel &model) const = 0;

  /// Working set of `tile` for the main phase (0 if malformed); with a MoE
  /// kernel's `sharedTile`, the larger of the main phase's and the shared
  /// expert's (the phases run one after the other).
  virtual int64_t
  getWorkingSet(const KernelModel &model, llvm::ArrayRef<int64_t> tile,
                int64_t buffers,
                llvm::ArrayRef<int64_t> sharedTile = {}) const = 0;

  /// On-chip memory a working set must fit in: SRAM per core (TPU-like) or
  /// shared memory per block (GPU-like).
  virtual int64_t getSramCapacity() const = 0;

  /// The limits a tile of the kernel must meet on this target, for the
  /// diagnostic when none does: "fits ..." (the caller adds the kernel).
  virtual void printTileLimits(llvm::raw_ostream &os) const = 0;

  /// Why the kernel's hand-written or decided `npu.launch` (an array of
  /// #npu.launch) cannot arrange its launches with `tiling` on this target;
  /// empty if it can.
  virtual std::string checkLaunches(const KernelModel &model, TilingAttr tiling,
                                    ArrayAttr launches) const = 0;

  /// The cost of the kernel with its plan: `tiling` and (GPU-like) the
  /// arrangement of its launches (`launches`, null: CUDA's default);
  /// nullopt if the tile is malformed or does not fit, or a count
  /// overflows 64 bits.
  virtual std::optional<KernelPrice> price(const KernelModel &model,
                                           TilingAttr tiling,
                                           ArrayAttr launches) const = 0;

  /// Modelled time of the kernel with its best tile, as the compiler
  /// estimates it while it decides (GPU-like: no cache simulation);
  /// nullopt if no tile fits.
  virtual std::optional<double> estimateNs(const KernelModel &model) const = 0;

protected:
  explicit CostModel(TargetAttr target) : target(target) {}

  /// `#npu.cost` from the parts both models compute: `onchip` is the
  /// working set (TPU-like) or the L2 bytes requested (GPU-like), the
  /// utilization that of the matrix units at `peakPerNs` FLOP/ns; nullopt
  /// if a count does not fit int64.
  std::optional<CostAttr>
  makeCostAttr(const KernelModel &model, const CostParts &cost,
               double peakPerNs, int64_t onchip,
               std::optional<double> l2HitRate = std::nullopt,
               std::optional<double> waves = std::nullopt,
               std::optional<int64_t> crossCoreBytes = std::nullopt) const;

  TargetAttr target;
};

} // namespace mlir::npu

#endif // NPU_ANALYSIS_COSTMODEL_H
