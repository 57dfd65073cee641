//===- KernelCost.h - pricing every kernel of a module ----------*- C++ -*-===//
//
// What the backend passes share around the CostModel interface
// (CostModel.h): the module's target, and npu-estimate-cost's body.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_ANALYSIS_KERNELCOST_H
#define NPU_ANALYSIS_KERNELCOST_H

#include "npu/Analysis/CostModel.h"

#include "mlir/IR/BuiltinOps.h"

#include <optional>

namespace mlir::npu {

/// The module's `npu.target` attribute (looked up from any op inside it);
/// emits an error at `op` naming `pass` if there is none.
FailureOr<TargetAttr> getModuleTarget(Operation *op, StringRef pass);
/// The module's TPU-like target: as getModuleTarget, and an error naming
/// `pass` if the target has no `tpu` part.
FailureOr<TargetAttr> getModuleTpuTarget(Operation *op, StringRef pass);
/// Whether a GPU-like target runs the module's kernels from a CUDA graph:
/// the module's `npu.gpu_launch` ("graph" or "stream", written by
/// npu-set-target's gpu-launch option) if it has one, else whether its
/// `npu.model` is a decode step (as serving stacks capture decode steps in
/// graphs: vLLM's default FULL_AND_PIECEWISE mode, docs/cost-model-gpu.md).
bool usesGraphLaunches(Operation *op);

/// How the module's GPU-like kernels run: usesGraphLaunches, and a serial
/// GEMM epilogue where the module has `npu.gpu_epilogue` (npu-set-target's
/// gpu-epilogue=serial).
GpuRunMode getGpuRunMode(Operation *op);

/// The cost model of the module's target (getModuleTarget, then
/// CostModel::get with getGpuRunMode).
FailureOr<std::unique_ptr<CostModel>> getModuleCostModel(Operation *op,
                                                         StringRef pass);

/// Writes `npu.cost` (and on a GPU-like target `npu.grid`) on every tiled
/// npu.kernel of `module` with the cost model of the module's target; with
/// `kind`, the target must be of that kind. `pass` names the caller in
/// diagnostics. The body of npu-estimate-cost.
LogicalResult annotateKernelCosts(ModuleOp module,
                                  std::optional<TargetKind> kind,
                                  StringRef pass);

} // namespace mlir::npu

#endif // NPU_ANALYSIS_KERNELCOST_H
