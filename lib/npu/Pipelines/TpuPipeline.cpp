//===- TpuPipeline.cpp - npu graph IR to a scheduled TPU-like program -----===//

#include "npu/Dialect/Npu/Transforms/Passes.h"
#include "npu/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::npu::buildTpuPipeline(OpPassManager &pm,
                                 const TpuPipelineOptions &options) {
  // The target first: every later pass reads it from the module.
  pm.addPass(npu::createNpuSetTarget({options.target}));
  // Decide fusion with the target's cost model, then apply it: kernels
  // are the unit of everything below.
  pm.addPass(npu::createNpuDecideFusion());
  pm.addPass(npu::createNpuFormKernels());
  // Tiles from the target's SRAM and matrix unit, then the contract that
  // every tile fits, checked independently of the pass that chose them.
  pm.addPass(npu::createNpuDecideTiles());
  pm.addPass(npu::createNpuVerifyTiles());
  // Price each kernel's pipelined tile loop, then lay kernels (and calls)
  // on the static timeline; function totals come from the timeline.
  pm.addPass(npu::createNpuTpuEstimateCost());
  pm.addPass(npu::createNpuScheduleKernels());
}

void mlir::npu::buildGpuPipeline(OpPassManager &pm,
                                 const TpuPipelineOptions &options) {
  pm.addPass(npu::createNpuSetTarget({options.target}));
  // The same fusion and tiling machinery; the target's kind selects the
  // policy (the GPU model prices a group with launches and L2, and a tile
  // is a thread block that must fit an SM).
  pm.addPass(npu::createNpuDecideFusion());
  pm.addPass(npu::createNpuFormKernels());
  pm.addPass(npu::createNpuDecideTiles());
  pm.addPass(npu::createNpuVerifyTiles());
  // Occupancy, waves, the simulated L2 and launch overheads per kernel,
  // then kernels back to back on the stream.
  pm.addPass(npu::createNpuGpuEstimateCost());
  pm.addPass(npu::createNpuScheduleKernels());
}

void mlir::npu::registerTpuPipeline() {
  PassPipelineRegistration<TpuPipelineOptions>(
      "npu-tpu-pipeline",
      "From npu graph IR to kernels that are fused, tiled, costed and "
      "scheduled for a TPU-like target (compile-time decisions)",
      buildTpuPipeline);
  PassPipelineRegistration<TpuPipelineOptions>(
      "npu-gpu-pipeline",
      "From npu graph IR to kernels that are fused, block-tiled and costed "
      "for a GPU-like target (run-time decisions modelled: dispatch, L2)",
      buildGpuPipeline);
}
