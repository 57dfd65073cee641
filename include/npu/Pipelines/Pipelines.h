//===- Pipelines.h - named pass pipelines of npu -----------------*- C++
//-*-===//

#ifndef NPU_PIPELINES_PIPELINES_H
#define NPU_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"

namespace mlir::npu {

/// From npu graph IR to the LLVM dialect through the reference lowering, so
/// that `mlir-runner` can execute a module: npu -> linalg on tensors ->
/// buffers -> loops -> LLVM.
void buildReferenceToLLVMPipeline(OpPassManager &pm);

/// As buildReferenceToLLVMPipeline, after npu-tile-kernels has applied the
/// `npu.tiling` decision of every npu.kernel: runs tiled kernels with
/// mlir-runner, to compare them with the reference.
void buildTiledToLLVMPipeline(OpPassManager &pm);

/// Registers every pipeline above with the pass registry.
void registerNpuPipelines();

} // namespace mlir::npu

#endif // NPU_PIPELINES_PIPELINES_H
