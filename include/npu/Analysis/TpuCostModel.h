//===- TpuCostModel.h - the compile-time-decided cost model -----*- C++ -*-===//
//
// The cost of a kernel on a TPU-like target is the length of the static
// schedule of its tile loop: per grid step, DMA the step's tiles in, compute
// on the matrix, vector and transcendental units, DMA the finished tiles out,
// with `buffers` SRAM buffers per stream so that step i+1's loads and step
// i-1's stores overlap step i's compute. The loop is priced in closed form
// over trip counts (docs/cost-model-tpu.md gives every equation), never by
// walking tiles: a 1M-token attention costs as much to model as a 4K one.
//
// The model takes a KernelDesc (KernelModel.h), not IR, so that the tile
// chooser can search tiles and the unit tests can check hand-computed cases.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_ANALYSIS_TPUCOSTMODEL_H
#define NPU_ANALYSIS_TPUCOSTMODEL_H

#include "npu/Analysis/KernelModel.h"

#include <memory>
#include <optional>

namespace mlir::npu {

/// The numbers of a TPU-like target the model uses, per TensorCore.
struct TpuParams {
  int64_t cores;         ///< TensorCores; parallel tiles are split over them
  int64_t mxuDim;        ///< K and N of a matrix pass are padded to this
  int64_t sublanes;      ///< M of a matrix pass is padded to this
  int64_t sramBytes;     ///< VMEM per core
  int64_t dmaEngines;    ///< concurrent DMAs per core
  double dmaSetupNs;     ///< fixed cost per DMA
  int64_t rowDmas;       ///< row copies outstanding at once per core
  double stepOverheadNs; ///< fixed cost per grid step
  double vectorPerNs;    ///< FLOP/ns per core
  double transcPerNs;    ///< exp/ns per core
  double hbmBytesPerNs;  ///< per core, with every core streaming
  double scalarOpsPerNs; ///< the scalar unit: one operation per clock cycle
  /// Matrix FLOP/ns per core for `matrixType` (bf16's rate if the chip lacks
  /// the type's, as the bill does).
  double matrixPerNs(Type matrixType) const {
    return matrixRates.of(matrixType);
  }
  MatrixRates matrixRates;
  TargetAttr target;

  static FailureOr<TpuParams> get(TargetAttr target);
  /// Appends every field to `key` (the tile search's memo).
  void appendKey(llvm::SmallVectorImpl<uint64_t> &key) const;
};

/// The modelled cost of one loop nest (one phase, one repetition) or of a
/// whole kernel (all phases and repetitions summed).
/// computeNs is the per-step compute (max over the units) x steps.
struct TpuCost : CostParts {
  /// Of the HBM bytes, the f32 partial sums of a reduction split over the cores
  /// (each core but one writes its own, one reads them back): traffic
  /// between cores that one core's lowered program does not have.
  Count crossCoreBytes;
  int64_t sramBytes = 0; ///< working set on one core
  int64_t steps = 0;     ///< grid steps on the busiest core
  bool isOverflow() const {
    return CostParts::isOverflow() || crossCoreBytes.isOverflow();
  }
  TpuCost &operator+=(const TpuCost &o);
};

/// Cost of `desc` with `tile` (one size per loop), `buffers` buffers per
/// stream and a GEMM's K-step loads in `chunks` DMAs (#npu.tiling).
/// nullopt if the tile is malformed for the kind (a size outside [1, loop],
/// a norm prologue without full rows, chunks that do not split a static K
/// tile, ...) or does not fit in a core's SRAM.
std::optional<TpuCost> getTpuPhaseCost(const KernelDesc &desc,
                                       llvm::ArrayRef<int64_t> tile,
                                       int64_t buffers, const TpuParams &p,
                                       int64_t chunks = 1);

/// `model` as a TPU-like core of `p` runs it: a MoE dispatch's order
/// (moeDispatchSorts) sorted on the vector unit and held on chip beside the
/// routed experts' tiles (their phase's heldBytes), or ranked (`where`) and
/// scattered by the scalar unit through HBM, in its serial work
/// (`dispatchOrder` then resolved). getTpuKernelCost resolves it itself; the
/// tile search needs it first.
KernelModel withTpuDispatch(const KernelModel &model, const TpuParams &p);

/// getTpuPhaseCost of a tile whose working set `sram` (getTpuWorkingSet)
/// the caller has checked fits: the tile search tests it once per tile, not
/// per load-chunk count.
std::optional<TpuCost> getFittingTpuPhaseCost(const KernelDesc &desc,
                                              llvm::ArrayRef<int64_t> tile,
                                              int64_t buffers,
                                              const TpuParams &p,
                                              int64_t chunks, int64_t sram);

/// SRAM bytes the tile needs on one core (no fit check); 0 for a malformed
/// tile. A stored B that the chip of `rates` converts (getMatrixPath; all of
/// them without `rates`) adds its converted tile.
int64_t getTpuWorkingSet(const KernelDesc &desc, llvm::ArrayRef<int64_t> tile,
                         int64_t buffers, const MatrixRates *rates = nullptr);

/// The tile of `desc` with the smallest modelled time; among tiles within
/// 0.5% of it, the one with the least HBM traffic, then the least SRAM,
/// then the fewest load chunks.
/// Candidates: powers of two from the hardware granule (sublanes for M,
/// the matrix unit for K and N) up to the loop size, plus the loop size.
/// nullopt if no tile fits. With `buffers`, only tiles with that many
/// buffers (a MoE kernel's shared expert, whose tile shares the kernel's
/// buffers).
struct TpuTileChoice {
  llvm::SmallVector<int64_t, 4> tile;
  int64_t buffers = 2;
  int64_t chunks = 1;
  TpuCost cost;
  /// A stream kernel's rotary table computed per tile (KernelDesc).
  bool tablePerTile = false;
};
std::optional<TpuTileChoice>
chooseTpuTile(const KernelDesc &desc, const TpuParams &p,
              std::optional<int64_t> buffers = std::nullopt);

/// Cost of a whole kernel: the main phase with `mainTile` (from its
/// #npu.tiling), a MoE kernel's shared expert with `sharedTile` (if empty,
/// the main tile, as the lowering does),
/// every other phase with its chosen tile, each phase times its
/// repetitions. nullopt if a tile does not fit.
std::optional<TpuCost>
getTpuKernelCost(const KernelModel &model, llvm::ArrayRef<int64_t> mainTile,
                 int64_t buffers, const TpuParams &p, int64_t chunks = 1,
                 llvm::ArrayRef<int64_t> sharedTile = {});

class CostModel;
/// The TPU-like model behind the CostModel interface (TpuKernelCost.cpp).
std::unique_ptr<CostModel> createTpuCostModel(const TpuParams &p);

} // namespace mlir::npu

#endif // NPU_ANALYSIS_TPUCOSTMODEL_H
