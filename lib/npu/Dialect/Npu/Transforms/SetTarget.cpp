//===- SetTarget.cpp - the npu-set-target pass ----------------------------===//

#include "npu/Dialect/Npu/IR/NpuOps.h"
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
    if (gpuLaunch != "auto" && gpuLaunch != "graph" && gpuLaunch != "stream") {
      mlir::emitError(module.getLoc(),
                      "npu-set-target: gpu-launch must be 'auto', 'graph' or "
                      "'stream', got '")
          << gpuLaunch << "'";
      return signalPassFailure();
    }
    if (gpuEpilogue != "overlapped" && gpuEpilogue != "serial") {
      mlir::emitError(module.getLoc(),
                      "npu-set-target: gpu-epilogue must be 'overlapped' or "
                      "'serial', got '")
          << gpuEpilogue << "'";
      return signalPassFailure();
    }
    llvm::Expected<target::TargetFile> file =
        target::loadTarget(&getContext(), target);
    if (!file) {
      mlir::emitError(module.getLoc(), "npu-set-target: ")
          << llvm::toString(file.takeError());
      return signalPassFailure();
    }
    // Kernels fused, tiled and priced for one chip are not a program for
    // another: a second backend pipeline would keep the first chip's tiles
    // and price them on the second.
    auto previous = module->getAttrOfType<TargetAttr>("npu.target");
    if (previous && previous != file->attr) {
      WalkResult compiled =
          module.walk([](KernelOp) { return WalkResult::interrupt(); });
      if (compiled.wasInterrupted()) {
        mlir::emitError(module.getLoc(), "npu-set-target: the module is "
                                         "already compiled for '")
            << previous.getName() << "' (it has npu.kernel ops); compile '"
            << file->attr.getName()
            << "' from the graph IR (one backend pipeline per run)";
        return signalPassFailure();
      }
    }
    module->setAttr("npu.target", file->attr);
    if (gpuLaunch != "auto")
      module->setAttr("npu.gpu_launch",
                      StringAttr::get(&getContext(), gpuLaunch));
    if (gpuEpilogue == "serial")
      module->setAttr("npu.gpu_epilogue",
                      StringAttr::get(&getContext(), gpuEpilogue));
  }
};
} // namespace
