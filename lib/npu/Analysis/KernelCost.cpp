//===- KernelCost.cpp - the CostModel interface and pricing a module ------===//

#include "npu/Analysis/KernelCost.h"
#include "npu/Analysis/GpuCostModel.h"
#include "npu/Analysis/TpuCostModel.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Threading.h"

using namespace mlir;
using namespace mlir::npu;

CostModel::~CostModel() = default;

FailureOr<std::unique_ptr<CostModel>> CostModel::get(TargetAttr target,
                                                     Location loc,
                                                     StringRef pass,
                                                     GpuRunMode gpuMode) {
  if (target.getTpu()) {
    if (FailureOr<TpuParams> p = TpuParams::get(target); succeeded(p))
      return createTpuCostModel(*p);
  } else if (target.getGpu()) {
    if (FailureOr<GpuParams> p = GpuParams::get(target, gpuMode); succeeded(p))
      return createGpuCostModel(*p);
  }
  return mlir::emitError(loc) << pass << ": target '" << target.getName()
                              << "' has no cost model (neither a 'tpu' nor "
                                 "a 'gpu' part)";
}

/// The module `op` is or is in (null if none).
static Operation *getEnclosingModule(Operation *op) {
  return isa<ModuleOp>(op) ? op : op->getParentOfType<ModuleOp>();
}

/// -1 marks a count that does not fit an attribute's int64_t.
static int64_t toInt(Count c) { return c.toInt64().value_or(-1); }

std::optional<CostAttr> CostModel::makeCostAttr(
    const KernelModel &model, const CostParts &cost, double peakPerNs,
    int64_t onchip, std::optional<double> l2HitRate,
    std::optional<double> waves, std::optional<int64_t> crossCoreBytes) const {
  int64_t read = toInt(cost.hbmReadBytes), write = toInt(cost.hbmWriteBytes),
          flops = toInt(model.work.totalFlops()),
          padded = toInt(cost.paddedMatrixFlops);
  if (read < 0 || write < 0 || onchip < 0 || flops < 0 || padded < 0)
    return std::nullopt;
  // Utilization of the matrix units: useful matrix FLOPs over what they
  // could do in the kernel's time.
  double util = cost.timeNs > 0 ? double(model.work.matrixFlops.value()) /
                                      (cost.timeNs * peakPerNs)
                                : 0.0;
  auto real = [](std::optional<double> v) -> std::optional<llvm::APFloat> {
    if (v)
      return llvm::APFloat(*v);
    return std::nullopt;
  };
  return CostAttr::get(
      target.getContext(), llvm::APFloat(cost.timeNs),
      llvm::APFloat(cost.computeNs), llvm::APFloat(cost.memoryNs),
      llvm::APFloat(cost.overheadNs), read, write, onchip, flops, padded,
      cost.getBound(), llvm::APFloat(std::min(1.0, util)), real(l2HitRate),
      real(waves), crossCoreBytes);
}

FailureOr<TargetAttr> mlir::npu::getModuleTarget(Operation *op,
                                                 StringRef pass) {
  if (Operation *module = getEnclosingModule(op))
    if (auto target = module->getAttrOfType<TargetAttr>("npu.target"))
      return target;
  return op->emitError() << pass
                         << ": the module has no 'npu.target' attribute "
                            "(run npu-set-target=\"target=<name>\" first)";
}

FailureOr<TargetAttr> mlir::npu::getModuleTpuTarget(Operation *op,
                                                    StringRef pass) {
  FailureOr<TargetAttr> target = getModuleTarget(op, pass);
  if (succeeded(target) && !target->getTpu())
    return op->emitError() << pass << ": target '" << target->getName()
                           << "' is not TPU-like (no 'tpu' part)";
  return target;
}

bool mlir::npu::usesGraphLaunches(Operation *op) {
  Operation *module = getEnclosingModule(op);
  if (!module)
    return false;
  if (auto mode = module->getAttrOfType<StringAttr>("npu.gpu_launch"))
    return mode.getValue() == "graph";
  auto model = module->getAttrOfType<DictionaryAttr>("npu.model");
  auto phase = model ? model.getAs<StringAttr>("phase") : StringAttr();
  return phase && phase.getValue() == "decode";
}

GpuRunMode mlir::npu::getGpuRunMode(Operation *op) {
  Operation *module = getEnclosingModule(op);
  return {usesGraphLaunches(op), module && module->hasAttr("npu.gpu_epilogue")};
}

FailureOr<std::unique_ptr<CostModel>>
mlir::npu::getModuleCostModel(Operation *op, StringRef pass) {
  FailureOr<TargetAttr> target = getModuleTarget(op, pass);
  if (failed(target))
    return failure();
  return CostModel::get(*target, op->getLoc(), pass, getGpuRunMode(op));
}

LogicalResult mlir::npu::annotateKernelCosts(ModuleOp module,
                                             std::optional<TargetKind> kind,
                                             StringRef pass) {
  FailureOr<TargetAttr> target = getModuleTarget(module, pass);
  if (failed(target))
    return failure();
  if (kind && target->getKind() != *kind)
    return mlir::emitError(module.getLoc())
           << pass << ": target '" << target->getName() << "' is not "
           << (*kind == TargetKind::Tpu ? "TPU" : "GPU") << "-like";
  FailureOr<std::unique_ptr<CostModel>> costModel =
      CostModel::get(*target, module.getLoc(), pass, getGpuRunMode(module));
  if (failed(costModel))
    return failure();
  // Describe every kernel first (reads the IR; errors in IR order), then
  // price them in parallel: the models are pure functions of the kernel's
  // description, its plan and the target, and the GPU-like one's L2
  // simulation dominates compile time (docs/benchmarks.md). Attributes are
  // uniqued by the context, which is thread-safe; the IR is written back in
  // order afterwards.
  struct Job {
    KernelOp kernel;
    TilingAttr tiling;
    ArrayAttr launches;
    KernelModel model;
    std::optional<KernelPrice> price;
  };
  std::vector<Job> jobs;
  WalkResult result = module.walk([&](KernelOp kernel) {
    auto tiling = kernel->getAttrOfType<TilingAttr>("npu.tiling");
    FailureOr<KernelModel> model = describeKernel(kernel);
    if (!tiling || failed(model)) {
      kernel.emitError() << pass
                         << ": kernel has no valid 'npu.tiling' (run "
                            "npu-decide-tiles first)";
      return WalkResult::interrupt();
    }
    auto launches = kernel->getAttrOfType<ArrayAttr>("npu.launch");
    if (launches) {
      std::string why = (*costModel)->checkLaunches(*model, tiling, launches);
      if (!why.empty()) {
        kernel.emitError() << pass << ": " << why;
        return WalkResult::interrupt();
      }
    }
    jobs.push_back({kernel, tiling, launches, std::move(*model), {}});
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  parallelForEach(module.getContext(), jobs, [&](Job &job) {
    job.price = (*costModel)->price(job.model, job.tiling, job.launches);
  });
  for (Job &job : jobs) {
    if (!job.price)
      return job.kernel.emitError()
             << pass << ": tile [" << job.tiling.getTile()
             << "] does not fit, or a count of this kernel overflows 64 bits";
    job.kernel->setAttr("npu.cost", job.price->cost);
    if (job.price->grids && !job.price->grids.empty())
      job.kernel->setAttr("npu.grid", job.price->grids);
  }
  return success();
}
