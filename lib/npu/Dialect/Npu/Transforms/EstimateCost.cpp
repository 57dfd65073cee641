//===- EstimateCost.cpp - the npu-estimate-cost pass ----------------------===//

#include "npu/Analysis/KernelCost.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPUESTIMATECOST
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;

namespace {
struct NpuEstimateCostPass
    : public npu::impl::NpuEstimateCostBase<NpuEstimateCostPass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<TargetKind> kind;
    if (targetKind == "tpu")
      kind = TargetKind::Tpu;
    else if (targetKind == "gpu")
      kind = TargetKind::Gpu;
    else if (!targetKind.empty()) {
      mlir::emitError(getOperation().getLoc())
          << "npu-estimate-cost: target-kind must be 'tpu', 'gpu' or empty, "
             "got '"
          << targetKind << "'";
      return signalPassFailure();
    }
    if (failed(annotateKernelCosts(getOperation(), kind, "npu-estimate-cost")))
      signalPassFailure();
  }
};
} // namespace
