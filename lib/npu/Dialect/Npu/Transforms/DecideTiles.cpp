//===- DecideTiles.cpp - the npu-decide-tiles pass ------------------------===//

#include "npu/Analysis/KernelCost.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPUDECIDETILES
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;

namespace {
struct NpuDecideTilesPass
    : public npu::impl::NpuDecideTilesBase<NpuDecideTilesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<std::unique_ptr<CostModel>> costModel =
        getModuleCostModel(module, "npu-decide-tiles");
    if (failed(costModel))
      return signalPassFailure();
    WalkResult result = module.walk([&](KernelOp kernel) {
      if (kernel->hasAttr("npu.tiling"))
        return WalkResult::advance(); // a hand-written decision wins
      // A count that overflows 64 bits is reported as such, at the kernel.
      if (failed(getCheckedWork(kernel)))
        return WalkResult::interrupt();
      FailureOr<KernelModel> model = describeKernel(kernel);
      if (failed(model)) {
        kernel.emitError("npu-decide-tiles: ")
            << explainUndescribedKernel(kernel);
        return WalkResult::interrupt();
      }
      std::optional<TileDecision> tile = (*costModel)->chooseTile(*model);
      if (!tile) {
        // The limits a tile must meet on this kind of target (a GPU-like
        // one's SM limits, not only its shared memory).
        std::string limits;
        llvm::raw_string_ostream os(limits);
        (*costModel)->printTileLimits(os);
        kernel.emitError("npu-decide-tiles: no tile of this ")
            << stringifyKernelKind(kernel.getKind()) << " kernel " << limits
            << " (loops [" << model->phases[model->mainPhase].loops << "])";
        return WalkResult::interrupt();
      }
      const KernelDesc &main = model->phases[model->mainPhase];
      kernel->setAttr("npu.tiling",
                      TilingAttr::get(&getContext(), main.loops, tile->tile,
                                      tile->buffers, tile->sramBytes,
                                      tile->chunks, tile->sharedTile,
                                      tile->tablePerTile));
      if (tile->launches && !kernel->hasAttr("npu.launch"))
        kernel->setAttr("npu.launch", tile->launches);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
  }
};
} // namespace
