//===- VerifyTiles.cpp - the npu-verify-tiles pass ------------------------===//
//
// The contract after tiling (STYLE.md: state the contract between IR levels
// and check it): every kernel's tile fits on chip. The working set is
// recomputed from the kernel, not read from the attribute.
//
//===----------------------------------------------------------------------===//

#include "npu/Analysis/KernelCost.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPUVERIFYTILES
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;

namespace {
LogicalResult verifyKernel(KernelOp kernel, const CostModel &costModel) {
  TargetAttr target = costModel.getTarget();
  auto tiling = kernel->getAttrOfType<TilingAttr>("npu.tiling");
  if (!tiling)
    return kernel.emitError("npu-verify-tiles: kernel has no 'npu.tiling'");
  FailureOr<KernelModel> model = describeKernel(kernel);
  if (failed(model))
    return kernel.emitError("npu-verify-tiles: ")
           << explainUndescribedKernel(kernel);
  const KernelDesc &main = model->phases[model->mainPhase];
  if (ArrayRef<int64_t>(main.loops) != tiling.getLoops())
    return kernel.emitError("npu-verify-tiles: tiling loops [")
           << tiling.getLoops() << "] are not the kernel's loops ["
           << main.loops << "]";
  for (auto [i, n, t] : llvm::enumerate(tiling.getLoops(), tiling.getTile()))
    if (t > n)
      return kernel.emitError("npu-verify-tiles: tile #")
             << i << " is " << t << ", larger than its loop (" << n << ")";
  int64_t chunks = tiling.getChunks();
  if (chunks > 1) {
    if (kernel.getKind() != KernelKind::Gemm || !target.getTpu())
      return kernel.emitError("npu-verify-tiles: chunks = ")
             << chunks << " needs a gemm kernel on a TPU-like target";
    auto loops = GemmNest<>::from(tiling.getLoops()),
         tile = GemmNest<>::from(tiling.getTile());
    if (!isValidGemmChunks(loops, tile, chunks))
      return kernel.emitError("npu-verify-tiles: chunks = ")
             << chunks
             << " needs a gemm kernel on a TPU-like target whose K tile ("
             << tile.k << ") it divides and that divides K (" << loops.k << ")";
  }
  ArrayRef<int64_t> sharedTile = tiling.getSharedTile();
  if (!sharedTile.empty()) {
    if (model->sharedPhase < 0 || !target.getTpu())
      return kernel.emitError("npu-verify-tiles: shared_tile needs a moe_ffn "
                              "kernel with a shared expert on a TPU-like "
                              "target");
    const KernelDesc &shared = model->phases[model->sharedPhase];
    for (auto [i, n, t] : llvm::enumerate(shared.loops, sharedTile))
      if (t > n)
        return kernel.emitError("npu-verify-tiles: shared_tile #")
               << i << " is " << t << ", larger than its loop (" << n << ")";
  }
  if (tiling.getTablePerTile()) {
    if (main.kind != KernelKind::Stream || main.tableRows <= 0 ||
        !target.getTpu())
      return kernel.emitError("npu-verify-tiles: table_per_tile needs a "
                              "stream kernel whose rotary embeddings share "
                              "one sequence length, on a TPU-like target");
  }
  int64_t need = costModel.getWorkingSet(
      withTablePerTile(*model, tiling.getTablePerTile()), tiling.getTile(),
      tiling.getBuffers(), sharedTile);
  if (need <= 0)
    return kernel.emitError("npu-verify-tiles: tile [")
           << tiling.getTile() << "] is not valid for a "
           << stringifyKernelKind(kernel.getKind()) << " kernel";
  int64_t capacity = costModel.getSramCapacity();
  if (need > capacity)
    return kernel.emitError("npu-verify-tiles: the working set of tile [")
           << tiling.getTile() << "] with " << tiling.getBuffers()
           << " buffers is " << need << " bytes, more than the " << capacity
           << " bytes of SRAM per core of '" << target.getName() << "'";
  if (tiling.getSramBytes() != need)
    return kernel.emitError("npu-verify-tiles: sram_bytes says ")
           << tiling.getSramBytes() << " but the tile needs " << need
           << " bytes";
  return success();
}

struct NpuVerifyTilesPass
    : public npu::impl::NpuVerifyTilesBase<NpuVerifyTilesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<std::unique_ptr<CostModel>> costModel =
        getModuleCostModel(module, "npu-verify-tiles");
    if (failed(costModel))
      return signalPassFailure();
    WalkResult result = module.walk([&](KernelOp kernel) {
      return failed(verifyKernel(kernel, **costModel)) ? WalkResult::interrupt()
                                                       : WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
  }
};
} // namespace
