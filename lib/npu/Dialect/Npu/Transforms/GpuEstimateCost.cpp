//===- GpuEstimateCost.cpp - the npu-gpu-estimate-cost pass ---------------===//

#include "npu/Analysis/KernelCost.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPUGPUESTIMATECOST
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;

namespace {
struct NpuGpuEstimateCostPass
    : public npu::impl::NpuGpuEstimateCostBase<NpuGpuEstimateCostPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<TargetAttr> target =
        getModuleTarget(module, "npu-gpu-estimate-cost");
    if (failed(target))
      return signalPassFailure();
    if (!target->getGpu()) {
      module.emitError("npu-gpu-estimate-cost: target '")
          << target->getName() << "' is not GPU-like";
      return signalPassFailure();
    }
    WalkResult result = module.walk([&](KernelOp kernel) {
      auto tiling = kernel->getAttrOfType<TilingAttr>("npu.tiling");
      FailureOr<KernelModel> model = describeKernel(kernel);
      if (!tiling || failed(model)) {
        kernel.emitError("npu-gpu-estimate-cost: kernel has no valid "
                         "'npu.tiling' (run npu-decide-tiles first)");
        return WalkResult::interrupt();
      }
      std::optional<CostAttr> cost = getKernelCost(*model, tiling, *target);
      if (!cost) {
        kernel.emitError("npu-gpu-estimate-cost: tile [")
            << tiling.getTile() << "] does not fit, or a count of this "
            << "kernel overflows 64 bits";
        return WalkResult::interrupt();
      }
      kernel->setAttr("npu.cost", *cost);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
  }
};
} // namespace
