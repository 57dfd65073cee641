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
    FailureOr<TargetAttr> target = getModuleTarget(module, "npu-decide-tiles");
    if (failed(target))
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
      std::optional<TileDecision> tile = chooseTile(*model, *target);
      if (!tile) {
        const KernelDesc &main = model->phases[model->mainPhase];
        InFlightDiagnostic diag =
            kernel.emitError("npu-decide-tiles: no tile of this ")
            << stringifyKernelKind(kernel.getKind());
        // A GPU-like tile must fit one SM's limits, not only its SRAM.
        if (GpuTargetAttr gpu = target->getGpu())
          diag << " kernel fits one SM of '" << target->getName()
               << "': a thread block of at most " << gpu.getMaxThreadsPerBlock()
               << " threads, " << gpu.getSharedMemoryBytesPerBlock()
               << " bytes of shared memory and "
               << gpu.getMaxRegistersPerThread()
               << " registers per thread (loops [" << main.loops << "])";
        else
          diag << " kernel fits in the " << getSramCapacity(*target)
               << " bytes of SRAM per core of '" << target->getName()
               << "' (loops [" << main.loops << "])";
        return WalkResult::interrupt();
      }
      const KernelDesc &main = model->phases[model->mainPhase];
      kernel->setAttr("npu.tiling",
                      TilingAttr::get(&getContext(), main.loops, tile->tile,
                                      tile->buffers, tile->sramBytes,
                                      tile->chunks, tile->sharedTile));
      if (tile->launches && !kernel->hasAttr("npu.launch"))
        kernel->setAttr("npu.launch", tile->launches);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
  }
};
} // namespace
