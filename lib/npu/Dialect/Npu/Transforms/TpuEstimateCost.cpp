//===- TpuEstimateCost.cpp - the npu-tpu-estimate-cost pass ---------------===//

#include "npu/Analysis/KernelCost.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPUTPUESTIMATECOST
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;

namespace {
struct NpuTpuEstimateCostPass
    : public npu::impl::NpuTpuEstimateCostBase<NpuTpuEstimateCostPass> {
  void runOnOperation() override {
    if (failed(annotateKernelCosts(getOperation(), TargetKind::Tpu,
                                   "npu-tpu-estimate-cost")))
      signalPassFailure();
  }
};
} // namespace
