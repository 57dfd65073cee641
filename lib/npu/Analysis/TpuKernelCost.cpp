//===- TpuKernelCost.cpp - the TPU-like model behind CostModel ------------===//
//
// The compiler decides: the tile search (TpuTileSearch.cpp) picks tile,
// buffers and load chunks, and the price is the static schedule of the tile
// loops (TpuCostModel.cpp). docs/cost-model-tpu.md.
//
//===----------------------------------------------------------------------===//

#include "npu/Analysis/CostModel.h"
#include "npu/Analysis/TpuCostModel.h"

using namespace mlir;
using namespace mlir::npu;

namespace {
class TpuModel final : public CostModel {
public:
  TpuModel(TargetAttr target, const TpuParams &p) : CostModel(target), p(p) {}

  std::optional<TileDecision>
  chooseTile(const KernelModel &given) const override {
    KernelModel model = withTpuDispatch(given, p);
    const KernelDesc &main = model.phases[model.mainPhase];
    std::optional<TpuTileChoice> choice = chooseTpuTile(main, p);
    if (!choice)
      return std::nullopt;
    // The shared expert's own tile, with the main phase's buffers; if it
    // has none with them (a small SRAM), the best pair with other buffers.
    std::optional<TpuTileChoice> shared;
    if (model.sharedPhase >= 0) {
      const KernelDesc &s = model.phases[model.sharedPhase];
      shared = chooseTpuTile(s, p, choice->buffers);
      for (int64_t buffers : {int64_t(2), int64_t(1)}) {
        if (shared)
          break;
        std::optional<TpuTileChoice> m = chooseTpuTile(main, p, buffers);
        std::optional<TpuTileChoice> other =
            m ? chooseTpuTile(s, p, buffers) : std::nullopt;
        if (other) {
          choice = m;
          shared = other;
        }
      }
      if (!shared)
        return std::nullopt;
    }
    TileDecision d;
    d.tile = choice->tile;
    d.buffers = choice->buffers;
    d.sramBytes = choice->cost.sramBytes;
    d.chunks = choice->chunks;
    d.tablePerTile = choice->tablePerTile;
    if (shared) {
      d.sharedTile = shared->tile;
      d.sramBytes = std::max(d.sramBytes, shared->cost.sramBytes);
    }
    return d;
  }

  int64_t getWorkingSet(const KernelModel &given, ArrayRef<int64_t> tile,
                        int64_t buffers,
                        ArrayRef<int64_t> sharedTile) const override {
    KernelModel model = withTpuDispatch(given, p);
    int64_t need = getTpuWorkingSet(model.phases[model.mainPhase], tile,
                                    buffers, &p.matrixRates);
    if (need > 0 && model.sharedPhase >= 0 && !sharedTile.empty()) {
      int64_t shared = getTpuWorkingSet(model.phases[model.sharedPhase],
                                        sharedTile, buffers, &p.matrixRates);
      need = shared > 0 ? std::max(need, shared) : 0;
    }
    return need;
  }

  int64_t getSramCapacity() const override { return p.sramBytes; }

  void printTileLimits(llvm::raw_ostream &os) const override {
    os << "fits in the " << p.sramBytes << " bytes of SRAM per core of '"
       << target.getName() << "'";
  }

  std::string checkLaunches(const KernelModel &, TilingAttr,
                            ArrayAttr) const override {
    return ("'npu.launch' arranges GPU launches, but target '" +
            target.getName() + "' is not GPU-like")
        .str();
  }

  std::optional<KernelPrice> price(const KernelModel &model, TilingAttr tiling,
                                   ArrayAttr) const override {
    std::optional<TpuCost> cost = getTpuKernelCost(
        withTablePerTile(model, tiling.getTablePerTile()), tiling.getTile(),
        tiling.getBuffers(), p, tiling.getChunks(), tiling.getSharedTile());
    if (!cost || cost->isOverflow())
      return std::nullopt;
    std::optional<int64_t> crossCore;
    if (cost->crossCoreBytes.value() > 0)
      crossCore = int64_t(cost->crossCoreBytes.value());
    Type matrixType =
        getMatrixPath(model.phases[model.mainPhase], p.matrixRates).type;
    std::optional<CostAttr> attr =
        makeCostAttr(model, *cost, p.matrixPerNs(matrixType) * double(p.cores),
                     cost->sramBytes, std::nullopt, std::nullopt, crossCore);
    if (!attr)
      return std::nullopt;
    return KernelPrice{*attr, ArrayAttr()};
  }

  std::optional<double> estimateNs(const KernelModel &model) const override {
    std::optional<TileDecision> choice = chooseTile(model);
    if (!choice)
      return std::nullopt;
    std::optional<TpuCost> cost = getTpuKernelCost(
        withTablePerTile(model, choice->tablePerTile), choice->tile,
        choice->buffers, p, choice->chunks, choice->sharedTile);
    if (!cost)
      return std::nullopt;
    return cost->timeNs;
  }

private:
  TpuParams p;
};
} // namespace

std::unique_ptr<CostModel> mlir::npu::createTpuCostModel(const TpuParams &p) {
  return std::make_unique<TpuModel>(p.target, p);
}
