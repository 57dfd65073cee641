//===- ReferencePipeline.cpp - npu -> LLVM through the reference lowering -===//

#include "npu/Conversion/Passes.h"
#include "npu/Pipelines/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::npu::buildReferenceToLLVMPipeline(OpPassManager &pm) {
  // Semantics first: every npu op becomes linalg/tensor/arith/math/scf.
  pm.addPass(npu::createNpuLowerToLinalg());
  pm.addPass(createCanonicalizerPass());
  // Tensors to buffers, across function boundaries so that tests can call
  // helpers; identity layouts keep the runner's memref descriptors simple.
  bufferization::OneShotBufferizePassOptions bufOpts;
  bufOpts.bufferizeFunctionBoundaries = true;
  bufOpts.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufOpts));
  buildBuffersToLLVMPipeline(pm);
}

void mlir::npu::buildBuffersToLLVMPipeline(OpPassManager &pm) {
  // Buffers to scalar loops, then everything to LLVM. erf/tanh have no LLVM
  // intrinsic: they go to libm, which mlir-runner's process already links.
  // Thread-block grids (scf.forall, npu-tile-kernels block-mapping=gpu) run
  // as nested loops on the host.
  pm.addPass(createForallToForLoopPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // libm has no rsqrtf (math-to-libm would call it): 1 / sqrt instead.
  pm.addPass(math::createMathExpandOpsPass(
      math::MathExpandOpsPassOptions{{std::string("rsqrt")}}));
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::npu::registerNpuPipelines() {
  PassPipelineRegistration<>(
      "npu-reference-to-llvm",
      "Lower npu IR to the LLVM dialect through the reference lowering "
      "(npu-lower-to-linalg, one-shot bufferization, loops), for mlir-runner",
      buildReferenceToLLVMPipeline);
  PassPipelineRegistration<>(
      "npu-tiled-to-llvm",
      "Lower npu IR to the LLVM dialect applying the npu.tiling decision of "
      "each npu.kernel (npu-tile-kernels), then as npu-reference-to-llvm",
      buildTiledToLLVMPipeline);
}
