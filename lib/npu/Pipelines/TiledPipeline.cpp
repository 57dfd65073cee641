//===- TiledPipeline.cpp - npu -> LLVM applying the kernels' tiling -------===//

#include "npu/Conversion/Passes.h"
#include "npu/Pipelines/Pipelines.h"

#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::npu::buildTiledToLLVMPipeline(OpPassManager &pm) {
  // Kernels to tiled linalg/scf on tensors; what is left (graph ops outside
  // kernels) goes through the reference lowering below.
  pm.addPass(npu::createNpuTileKernels());
  pm.addPass(createCanonicalizerPass());
  buildReferenceToLLVMPipeline(pm);
}
