//===- KernelCost.cpp - cost models behind one interface ------------------===//

#include "npu/Analysis/KernelCost.h"
#include "npu/Analysis/GpuCostModel.h"
#include "npu/Analysis/TpuCostModel.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Threading.h"

using namespace mlir;
using namespace mlir::npu;

FailureOr<TargetAttr> mlir::npu::getModuleTarget(Operation *op,
                                                 StringRef pass) {
  Operation *module = isa<ModuleOp>(op) ? op : op->getParentOfType<ModuleOp>();
  if (module)
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

int64_t mlir::npu::getSramCapacity(TargetAttr target) {
  if (TpuTargetAttr tpu = target.getTpu())
    return tpu.getVmemBytesPerCore();
  return target.getGpu().getSharedMemoryBytesPerBlock();
}

std::optional<TileDecision> mlir::npu::chooseTile(const KernelModel &model,
                                                  TargetAttr target) {
  if (target.getGpu()) {
    FailureOr<GpuParams> g = GpuParams::get(target);
    if (failed(g))
      return std::nullopt;
    const KernelDesc &main = model.phases[model.mainPhase];
    std::optional<SmallVector<int64_t, 4>> tile = chooseGpuTile(main, *g);
    if (!tile)
      return std::nullopt;
    TileDecision d{*tile, 1, getWorkingSet(model, *tile, 1, target), {}};
    SmallVector<Attribute> launches;
    for (const GpuLaunch &l : chooseGpuLaunches(main, *tile, *g))
      launches.push_back(LaunchAttr::get(target.getContext(), l.clusterM,
                                         l.clusterN, l.rasterGroup,
                                         l.kvSplits));
    if (!launches.empty())
      d.launches = ArrayAttr::get(target.getContext(), launches);
    return d;
  }
  FailureOr<TpuParams> p = TpuParams::get(target);
  if (failed(p))
    return std::nullopt;
  std::optional<TpuTileChoice> choice =
      chooseTpuTile(model.phases[model.mainPhase], *p);
  if (!choice)
    return std::nullopt;
  TileDecision d{choice->tile,
                 choice->buffers,
                 choice->cost.sramBytes,
                 {},
                 choice->chunks};
  // The shared expert's own tile, with the main phase's buffers.
  if (model.sharedPhase >= 0) {
    const KernelDesc &shared = model.phases[model.sharedPhase];
    std::optional<TpuTileChoice> s = chooseTpuTile(shared, *p, d.buffers);
    if (!s)
      return std::nullopt;
    d.sharedTile = s->tile;
    d.sramBytes = std::max(d.sramBytes, s->cost.sramBytes);
  }
  return d;
}

int64_t mlir::npu::getWorkingSet(const KernelModel &model,
                                 ArrayRef<int64_t> tile, int64_t buffers,
                                 TargetAttr target,
                                 ArrayRef<int64_t> sharedTile) {
  const KernelDesc &main = model.phases[model.mainPhase];
  if (target.getGpu()) {
    // Shared memory of one thread block (the largest of a kernel's
    // launches).
    FailureOr<GpuParams> g = GpuParams::get(target);
    if (failed(g))
      return 0;
    std::optional<GpuCost> cost = getGpuPhaseCost(main, tile, *g, false);
    return cost ? std::max<int64_t>(1, cost->sharedMemBytes) : 0;
  }
  int64_t need = getTpuWorkingSet(main, tile, buffers);
  if (need > 0 && model.sharedPhase >= 0 && !sharedTile.empty()) {
    int64_t shared =
        getTpuWorkingSet(model.phases[model.sharedPhase], sharedTile, buffers);
    need = shared > 0 ? std::max(need, shared) : 0;
  }
  return need;
}

/// -1 marks a count that does not fit an attribute's int64_t.
static int64_t toInt(Count c) { return c.toInt64().value_or(-1); }

static ArrayAttr getGridsAttr(MLIRContext *ctx, ArrayRef<GpuGrid> grids) {
  SmallVector<Attribute> attrs;
  for (const GpuGrid &g : grids)
    attrs.push_back(GridAttr::get(
        ctx, g.plan.blocks, g.plan.threads, g.plan.blocksPerSM, g.fullWaves,
        llvm::APFloat(g.waveNs), g.tailBlocks, llvm::APFloat(g.tailNs),
        g.repeat, llvm::APFloat(g.fillNs)));
  return ArrayAttr::get(ctx, attrs);
}

static SmallVector<GpuLaunch, 2> getGpuLaunches(ArrayAttr launches) {
  SmallVector<GpuLaunch, 2> out;
  if (launches)
    for (auto l : launches.getAsRange<LaunchAttr>())
      out.push_back({l.getClusterM(), l.getClusterN(), l.getRasterGroup(),
                     l.getKvSplits()});
  return out;
}

/// `#npu.cost` of a kernel from its cost on either kind of target:
/// `onchip` is L2 bytes requested (GPU) or the working set (TPU), the
/// utilization that of the matrix units at `peakPerNs` FLOP/ns; nullopt if
/// a count does not fit int64.
template <typename Cost>
static std::optional<CostAttr>
toCostAttr(MLIRContext *ctx, const KernelModel &model, const Cost &cost,
           double peakPerNs, int64_t onchip,
           std::optional<llvm::APFloat> l2HitRate,
           std::optional<llvm::APFloat> waves,
           std::optional<int64_t> crossCore = std::nullopt) {
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
  return CostAttr::get(
      ctx, llvm::APFloat(cost.timeNs), llvm::APFloat(cost.computeNs),
      llvm::APFloat(cost.memoryNs), llvm::APFloat(cost.overheadNs), read, write,
      onchip, flops, padded, cost.getBound(),
      llvm::APFloat(std::min(1.0, util)), l2HitRate, waves, crossCore);
}

std::optional<CostAttr> mlir::npu::getKernelCost(const KernelModel &model,
                                                 TilingAttr tiling,
                                                 TargetAttr target,
                                                 ArrayAttr launches,
                                                 ArrayAttr *grids) {
  MLIRContext *ctx = target.getContext();
  Type matrixType = model.phases[model.mainPhase].matrixType;
  if (target.getGpu()) {
    FailureOr<GpuParams> p = GpuParams::get(target);
    if (failed(p))
      return std::nullopt;
    std::optional<GpuCost> cost =
        getGpuKernelCost(model, tiling.getTile(), *p, getGpuLaunches(launches));
    if (!cost || cost->isOverflow())
      return std::nullopt;
    if (grids)
      *grids = getGridsAttr(ctx, cost->grids);
    return toCostAttr(ctx, model, *cost,
                      p->matrixPerNsPerSM(matrixType) * double(p->sms),
                      toInt(cost->l2Bytes), llvm::APFloat(cost->l2HitRate),
                      llvm::APFloat(cost->waves));
  }
  FailureOr<TpuParams> p = TpuParams::get(target);
  if (failed(p))
    return std::nullopt;
  std::optional<TpuCost> cost =
      getTpuKernelCost(model, tiling.getTile(), tiling.getBuffers(), *p,
                       tiling.getChunks(), tiling.getSharedTile());
  if (!cost || cost->isOverflow())
    return std::nullopt;
  return toCostAttr(ctx, model, *cost,
                    p->matrixPerNs(matrixType) * double(p->cores),
                    cost->sramBytes, std::nullopt, std::nullopt,
                    cost->crossCoreBytes.value() > 0
                        ? std::optional<int64_t>(toInt(cost->crossCoreBytes))
                        : std::nullopt);
}

std::optional<double> mlir::npu::estimateKernelNs(const KernelModel &model,
                                                  TargetAttr target) {
  if (target.getGpu()) {
    // The compiler's own estimate: best tile, no cache simulation.
    FailureOr<GpuParams> g = GpuParams::get(target);
    if (failed(g))
      return std::nullopt;
    double total = 0;
    for (const KernelDesc &phase : model.phases) {
      std::optional<SmallVector<int64_t, 4>> tile = chooseGpuTile(phase, *g);
      if (!tile)
        return std::nullopt;
      std::optional<GpuCost> c = getGpuPhaseCost(
          phase, *tile, *g, false, chooseGpuLaunches(phase, *tile, *g));
      if (!c)
        return std::nullopt;
      total += c->timeNs * double(phase.repeat);
    }
    return total;
  }
  FailureOr<TpuParams> p = TpuParams::get(target);
  if (failed(p))
    return std::nullopt;
  std::optional<TileDecision> choice = chooseTile(model, target);
  if (!choice)
    return std::nullopt;
  std::optional<TpuCost> cost =
      getTpuKernelCost(model, choice->tile, choice->buffers, *p, choice->chunks,
                       choice->sharedTile);
  if (!cost)
    return std::nullopt;
  return cost->timeNs;
}

/// A hand-written or decided `npu.launch` must arrange each launch of the
/// main phase that it can arrange, on a target that can run it.
static LogicalResult checkLaunches(KernelOp kernel, ArrayAttr launches,
                                   const KernelModel &model, TilingAttr tiling,
                                   TargetAttr target, StringRef pass) {
  FailureOr<GpuParams> p = GpuParams::get(target);
  if (failed(p))
    return kernel.emitError()
           << pass << ": 'npu.launch' arranges GPU launches, but target '"
           << target.getName() << "' is not GPU-like";
  const KernelDesc &main = model.phases[model.mainPhase];
  size_t expected = getGpuArrangedLaunches(main);
  if (launches.size() != expected)
    return kernel.emitError()
           << pass << ": 'npu.launch' has " << launches.size()
           << " elements, one per arranged launch, but this "
           << stringifyKernelKind(kernel.getKind()) << " kernel has "
           << expected;
  for (auto [i, l] : llvm::enumerate(getGpuLaunches(launches))) {
    std::string why = checkGpuLaunch(main, tiling.getTile(), i, l, *p);
    if (!why.empty())
      return kernel.emitError()
             << pass << ": 'npu.launch' element " << i << ": " << why;
  }
  return success();
}

LogicalResult mlir::npu::annotateKernelCosts(ModuleOp module, TargetKind kind,
                                             StringRef pass) {
  FailureOr<TargetAttr> target = getModuleTarget(module, pass);
  if (failed(target))
    return failure();
  if (target->getKind() != kind)
    return mlir::emitError(module.getLoc())
           << pass << ": target '" << target->getName() << "' is not "
           << (kind == TargetKind::Tpu ? "TPU" : "GPU") << "-like";
  // Describe every kernel first (reads the IR; errors in IR order), then
  // price them in parallel: the models are pure functions of the kernel's
  // description, its tiling and the target, and the GPU-like one's L2
  // simulation dominates compile time (docs/benchmarks.md). Attributes are
  // uniqued by the context, which is thread-safe; the IR is written back in
  // order afterwards.
  struct Job {
    KernelOp kernel;
    TilingAttr tiling;
    ArrayAttr launches;
    KernelModel model;
    std::optional<CostAttr> cost;
    ArrayAttr grids;
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
    if (launches &&
        failed(checkLaunches(kernel, launches, *model, tiling, *target, pass)))
      return WalkResult::interrupt();
    jobs.push_back(
        {kernel, tiling, launches, std::move(*model), std::nullopt, {}});
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  parallelForEach(module.getContext(), jobs, [&](Job &job) {
    job.cost =
        getKernelCost(job.model, job.tiling, *target, job.launches, &job.grids);
  });
  for (Job &job : jobs) {
    if (!job.cost)
      return job.kernel.emitError()
             << pass << ": tile [" << job.tiling.getTile()
             << "] does not fit, or a count of this kernel overflows 64 bits";
    job.kernel->setAttr("npu.cost", *job.cost);
    if (job.grids && !job.grids.empty())
      job.kernel->setAttr("npu.grid", job.grids);
  }
  return success();
}
