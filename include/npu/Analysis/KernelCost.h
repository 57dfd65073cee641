//===- KernelCost.h - cost models behind one interface ----------*- C++ -*-===//
//
// What the backend passes call: choose a kernel's tile and price it on the
// module's target, whichever kind it is. The TPU-like model
// (TpuCostModel.h) prices the static schedule of the tile loop.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_ANALYSIS_KERNELCOST_H
#define NPU_ANALYSIS_KERNELCOST_H

#include "npu/Analysis/KernelModel.h"

#include "mlir/IR/BuiltinOps.h"

#include <optional>

namespace mlir::npu {

/// The module's `npu.target` attribute (looked up from any op inside it);
/// emits an error at `op` naming `pass` if there is none.
FailureOr<TargetAttr> getModuleTarget(Operation *op, StringRef pass);
/// The module's TPU-like target: as getModuleTarget, and an error naming
/// `pass` if the target has no `tpu` part.
FailureOr<TargetAttr> getModuleTpuTarget(Operation *op, StringRef pass);

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
};

/// The best tile of the kernel's main phase on `target`; nullopt if none
/// fits (or the target kind has no model).
std::optional<TileDecision> chooseTile(const KernelModel &model,
                                       TargetAttr target);

/// Working set of `tile` for the main phase on `target` (0 if malformed);
/// with a MoE kernel's `sharedTile`, the larger of the main phase's and the
/// shared expert's (the phases run one after the other).
int64_t getWorkingSet(const KernelModel &model, llvm::ArrayRef<int64_t> tile,
                      int64_t buffers, TargetAttr target,
                      llvm::ArrayRef<int64_t> sharedTile = {});

/// SRAM per core (TPU) or per block (GPU) that a working set must fit in.
int64_t getSramCapacity(TargetAttr target);

/// The cost of the kernel with the main phase's tile `tiling` (and on a
/// GPU-like target its GEMM launches arranged by `launches`, an array of
/// #npu.launch, or CUDA's default if null); nullopt if the tile is
/// malformed or does not fit. On a GPU-like target, `grids` (if given)
/// receives its launches as an array of #npu.grid.
std::optional<CostAttr> getKernelCost(const KernelModel &model,
                                      TilingAttr tiling, TargetAttr target,
                                      ArrayAttr launches = {},
                                      ArrayAttr *grids = nullptr);

/// Writes `npu.cost` (and on a GPU-like target `npu.grid`) on every tiled
/// npu.kernel of `module` for the module's target, which must be of kind
/// `kind`; `pass` names the caller in diagnostics. The body of
/// npu-tpu-estimate-cost and npu-gpu-estimate-cost.
LogicalResult annotateKernelCosts(ModuleOp module, TargetKind kind,
                                  StringRef pass);

/// Modelled time of the kernel with its best tile (nullopt: no tile fits).
std::optional<double> estimateKernelNs(const KernelModel &model,
                                       TargetAttr target);

} // namespace mlir::npu

#endif // NPU_ANALYSIS_KERNELCOST_H
