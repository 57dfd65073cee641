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
    if (failed(annotateKernelCosts(getOperation(), TargetKind::Gpu,
                                   "npu-gpu-estimate-cost")))
      signalPassFailure();
  }
};
} // namespace
