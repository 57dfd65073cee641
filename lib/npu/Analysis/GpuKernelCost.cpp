//===- GpuKernelCost.cpp - the GPU-like model behind CostModel ------------===//
//
// The compiler decides the block tile and each launch's arrangement
// (GpuCostModel.cpp, GpuLaunchArrangement.cpp) without simulating the cache;
// the price models what the hardware decides at run time: occupancy,
// dispatch in waves, the L2 cache (simulated) and launches.
// docs/cost-model-gpu.md.
//
//===----------------------------------------------------------------------===//

#include "npu/Analysis/CostModel.h"
#include "npu/Analysis/GpuCostModel.h"

using namespace mlir;
using namespace mlir::npu;

SmallVector<GpuLaunch, 2> mlir::npu::getGpuLaunches(ArrayAttr launches) {
  SmallVector<GpuLaunch, 2> out;
  if (launches)
    for (auto l : launches.getAsRange<LaunchAttr>())
      out.push_back({l.getClusterM(), l.getClusterN(), l.getRasterGroup(),
                     l.getKvSplits()});
  return out;
}

namespace {

ArrayAttr getGridsAttr(MLIRContext *ctx, ArrayRef<GpuGrid> grids) {
  SmallVector<Attribute> attrs;
  for (const GpuGrid &g : grids)
    attrs.push_back(
        GridAttr::get(ctx, g.plan.blocks, g.plan.threads, g.plan.blocksPerSM,
                      g.fullWaves, llvm::APFloat(g.waveNs), g.tailBlocks,
                      llvm::APFloat(g.tailNs), llvm::APFloat(g.fillNs)));
  return ArrayAttr::get(ctx, attrs);
}

class GpuModel final : public CostModel {
public:
  GpuModel(TargetAttr target, const GpuParams &p) : CostModel(target), p(p) {}

  std::optional<TileDecision>
  chooseTile(const KernelModel &model) const override {
    const KernelDesc &main = model.phases[model.mainPhase];
    std::optional<SmallVector<int64_t, 4>> tile = chooseGpuTile(main, p);
    if (!tile)
      return std::nullopt;
    TileDecision d;
    d.tile = *tile;
    d.buffers = 1;
    d.sramBytes = getWorkingSet(model, *tile, 1, {});
    SmallVector<Attribute> launches;
    for (const GpuLaunch &l : chooseGpuLaunches(main, *tile, p))
      launches.push_back(LaunchAttr::get(target.getContext(), l.clusterM,
                                         l.clusterN, l.rasterGroup,
                                         l.kvSplits));
    if (!launches.empty())
      d.launches = ArrayAttr::get(target.getContext(), launches);
    return d;
  }

  /// Shared memory of one thread block (the largest of the kernel's
  /// launches).
  int64_t getWorkingSet(const KernelModel &model, ArrayRef<int64_t> tile,
                        int64_t, ArrayRef<int64_t>) const override {
    std::optional<GpuCost> cost =
        getGpuPhaseCost(model.phases[model.mainPhase], tile, p, false);
    return cost ? std::max<int64_t>(1, cost->sharedMemBytes) : 0;
  }

  int64_t getSramCapacity() const override {
    return target.getGpu().getSharedMemoryBytesPerBlock();
  }

  void printTileLimits(llvm::raw_ostream &os) const override {
    GpuTargetAttr gpu = target.getGpu();
    os << "fits one SM of '" << target.getName()
       << "': a thread block of at most " << gpu.getMaxThreadsPerBlock()
       << " threads, " << gpu.getSharedMemoryBytesPerBlock()
       << " bytes of shared memory and " << gpu.getMaxRegistersPerThread()
       << " registers per thread";
  }

  std::string checkLaunches(const KernelModel &model, TilingAttr tiling,
                            ArrayAttr launches) const override {
    const KernelDesc &main = model.phases[model.mainPhase];
    size_t expected = getGpuArrangedLaunches(main);
    if (launches.size() != expected)
      return ("'npu.launch' has " + Twine(launches.size()) +
              " elements, one per arranged launch, but this " +
              stringifyKernelKind(model.kind) + " kernel has " +
              Twine(expected))
          .str();
    for (auto [i, l] : llvm::enumerate(getGpuLaunches(launches))) {
      std::string why = checkGpuLaunch(main, tiling.getTile(), i, l, p);
      if (!why.empty())
        return ("'npu.launch' element " + Twine(i) + ": " + why).str();
    }
    return "";
  }

  std::optional<KernelPrice> price(const KernelModel &model, TilingAttr tiling,
                                   ArrayAttr launches) const override {
    std::optional<GpuCost> cost =
        getGpuKernelCost(model, tiling.getTile(), p, getGpuLaunches(launches));
    if (!cost || cost->isOverflow())
      return std::nullopt;
    Type matrixType =
        getMatrixPath(model.phases[model.mainPhase], p.matrixRates).type;
    std::optional<int64_t> l2Bytes = cost->l2Bytes.toInt64();
    if (!l2Bytes)
      return std::nullopt;
    std::optional<CostAttr> attr = makeCostAttr(
        model, *cost, p.matrixPerNsPerSM(matrixType) * double(p.sms), *l2Bytes,
        cost->l2HitRate, cost->waves);
    if (!attr)
      return std::nullopt;
    return KernelPrice{*attr, getGridsAttr(target.getContext(), cost->grids)};
  }

  std::optional<double> estimateNs(const KernelModel &model) const override {
    // The compiler's own estimate: best tile, no cache simulation.
    double total = 0;
    for (const KernelDesc &phase : model.phases) {
      std::optional<SmallVector<int64_t, 4>> tile = chooseGpuTile(phase, p);
      if (!tile)
        return std::nullopt;
      std::optional<GpuCost> c = getGpuPhaseCost(
          phase, *tile, p, false, chooseGpuLaunches(phase, *tile, p));
      if (!c)
        return std::nullopt;
      total += c->timeNs;
    }
    return total;
  }

private:
  GpuParams p;
};
} // namespace

std::unique_ptr<CostModel> mlir::npu::createGpuCostModel(const GpuParams &p) {
  return std::make_unique<GpuModel>(p.target, p);
}
