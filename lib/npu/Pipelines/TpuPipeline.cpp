//===- TpuPipeline.cpp - npu graph IR to a scheduled TPU-like program -----===//

#include "npu/Dialect/Npu/Transforms/Passes.h"
#include "npu/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

/// Both backends run the same passes; the target's kind selects each pass's
/// policy and cost model (npu/Analysis/CostModel.h).
static void buildBackendPipeline(OpPassManager &pm,
                                 const npu::BackendPipelineOptions &options,
                                 StringRef targetKind) {
  // The target first: every later pass reads it from the module.
  pm.addPass(npu::createNpuSetTarget(
      {options.target, options.gpuLaunch, options.gpuEpilogue}));
  // Decide fusion with the target's cost model (a GPU group also pays
  // launches and L2; fusion=none: no groups), then apply it: kernels are the
  // unit of everything below.
  pm.addPass(npu::createNpuDecideFusion({options.fusion}));
  pm.addPass(npu::createNpuFormKernels());
  // Tiles (TPU: from SRAM and the matrix unit; GPU: thread blocks that fit
  // an SM), then the contract that every tile fits, checked independently
  // of the pass that chose them.
  pm.addPass(npu::createNpuDecideTiles());
  pm.addPass(npu::createNpuVerifyTiles());
  // Price each kernel with the target's cost model (a target of the
  // pipeline's kind), then lay kernels (and calls) on the timeline; function
  // totals come from the timeline.
  pm.addPass(npu::createNpuEstimateCost({targetKind.str()}));
  pm.addPass(npu::createNpuScheduleKernels());
}

void mlir::npu::buildTpuPipeline(OpPassManager &pm,
                                 const BackendPipelineOptions &options) {
  // The pipelined tile loop of each kernel in closed form.
  buildBackendPipeline(pm, options, "tpu");
}

void mlir::npu::buildGpuPipeline(OpPassManager &pm,
                                 const BackendPipelineOptions &options) {
  // Occupancy, waves, the simulated L2 and launch overheads per kernel.
  buildBackendPipeline(pm, options, "gpu");
}

void mlir::npu::registerTpuPipeline() {
  PassPipelineRegistration<BackendPipelineOptions>(
      "npu-tpu-pipeline",
      "From npu graph IR to kernels that are fused, tiled, costed and "
      "scheduled for a TPU-like target (compile-time decisions)",
      buildTpuPipeline);
  PassPipelineRegistration<BackendPipelineOptions>(
      "npu-gpu-pipeline",
      "From npu graph IR to kernels that are fused, block-tiled and costed "
      "for a GPU-like target (run-time decisions modelled: dispatch, L2)",
      buildGpuPipeline);
}
