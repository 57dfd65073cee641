//===- TpuLowerPipeline.cpp - tiled kernels to a TPU memory program -------===//

#include "npu/Conversion/Passes.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"
#include "npu/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace {
void buildLowerPipeline(OpPassManager &pm,
                        const npu::TpuLowerPipelineOptions &options,
                        bool weightsInHbm) {
  // The target, unless the module has one: npu-tpu-verify-sram reads it.
  if (!options.target.empty())
    pm.addPass(npu::createNpuSetTarget({options.target}));
  // Parameters are HBM data the runtime binds, not values computed whole
  // (which the memory passes would stage whole into VMEM). The host
  // lowering keeps the reference lowering's generated values, so that
  // mlir-runner has data to run on.
  if (weightsInHbm)
    pm.addPass(npu::createNpuWeightsToGlobals());
  // Apply each kernel's tiling; graph ops outside kernels get the
  // reference lowering.
  // Each tiled kernel's ops marked: what only they use stays on chip.
  npu::NpuTileKernelsOptions tileOpts;
  tileOpts.markKernels = true;
  pm.addPass(npu::createNpuTileKernels(tileOpts));
  pm.addPass(npu::createNpuLowerToLinalg());
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  // Tensors to buffers (one-shot, identity layouts at function boundaries,
  // in time linear in layers and kernels). CSE and canonicalize then fold
  // the self-copies of in-place tile inserts.
  pm.addPass(npu::createNpuBufferize());
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  // HBM for what crosses kernels, VMEM for tiles (staged by copies), then
  // the copies become asynchronous DMAs, then loads move one tile ahead.
  pm.addPass(npu::createNpuTpuAssignMemorySpaces());
  pm.addPass(npu::createNpuTpuInsertDma());
  pm.addPass(npu::createNpuTpuChunkLoads());
  pm.addPass(npu::createNpuTpuDoubleBuffer({options.buffers}));
  // Gathered rows: one DMA engine each, up to the core's engines in flight.
  pm.addPass(npu::createNpuTpuPipelineRowDmas());
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  // A pipelined loop's first loads start before independent row chains.
  pm.addPass(npu::createNpuTpuIssueLoadsEarly());
  // Decide VMEM offsets, then check them independently of the planner.
  pm.addPass(npu::createNpuTpuPlanSram());
  pm.addPass(npu::createNpuTpuVerifySram());
}
} // namespace

void mlir::npu::buildTpuLowerPipeline(OpPassManager &pm,
                                      const TpuLowerPipelineOptions &options) {
  buildLowerPipeline(pm, options, /*weightsInHbm=*/true);
}

void mlir::npu::buildTpuLowerToLLVMPipeline(
    OpPassManager &pm, const TpuLowerPipelineOptions &options) {
  buildLowerPipeline(pm, options, /*weightsInHbm=*/false);
  pm.addPass(npu::createNpuTpuToHost());
  pm.addPass(createCanonicalizerPass());
  buildBuffersToLLVMPipeline(pm);
}

void mlir::npu::registerTpuLowerPipelines() {
  PassPipelineRegistration<TpuLowerPipelineOptions>(
      "npu-tpu-lower-pipeline",
      "From kernels with npu.tiling to bufferized IR in HBM/VMEM with "
      "explicit DMA, double buffering and a verified VMEM plan",
      buildTpuLowerPipeline);
  PassPipelineRegistration<TpuLowerPipelineOptions>(
      "npu-tpu-lower-to-llvm",
      "npu-tpu-lower-pipeline, then DMAs as host copies and memory spaces "
      "erased (npu-tpu-to-host), then the LLVM lowering, for mlir-runner",
      buildTpuLowerToLLVMPipeline);
}
