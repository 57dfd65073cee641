//===- SetTarget.cpp - the npu-set-target pass ----------------------------===//

#include "npu/Dialect/Npu/Transforms/Passes.h"
#include "npu/Target/Target.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPUSETTARGET
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;

namespace {
struct NpuSetTargetPass : public npu::impl::NpuSetTargetBase<NpuSetTargetPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (target.empty()) {
      mlir::emitError(
          module.getLoc(),
          "npu-set-target: no target given (target=<name or path>)");
      return signalPassFailure();
    }
    llvm::Expected<target::TargetFile> file =
        target::loadTarget(&getContext(), target);
    if (!file) {
      mlir::emitError(module.getLoc(), "npu-set-target: ")
          << llvm::toString(file.takeError());
      return signalPassFailure();
    }
    module->setAttr("npu.target", file->attr);
  }
};
} // namespace
