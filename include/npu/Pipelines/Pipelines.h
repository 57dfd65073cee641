//===- Pipelines.h - named pass pipelines of npu -----------------*- C++
//-*-===//

#ifndef NPU_PIPELINES_PIPELINES_H
#define NPU_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::npu {

/// From npu graph IR to the LLVM dialect through the reference lowering, so
/// that `mlir-runner` can execute a module: npu -> linalg on tensors ->
/// buffers -> loops -> LLVM.
void buildReferenceToLLVMPipeline(OpPassManager &pm);

/// The second half of buildReferenceToLLVMPipeline: bufferized IR (linalg,
/// scf, memref) to the LLVM dialect.
void buildBuffersToLLVMPipeline(OpPassManager &pm);

/// Options of the backend pipelines.
struct BackendPipelineOptions
    : public PassPipelineOptions<BackendPipelineOptions> {
  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("Target name (a file in npu-target/) or path to a "
                     "target file")};
  Option<std::string> fusion{
      *this, "fusion",
      llvm::cl::desc("npu-decide-fusion: 'cost' (groups the cost model "
                     "keeps) or 'none' (every op its own kernel)"),
      llvm::cl::init("cost")};
  Option<std::string> gpuLaunch{
      *this, "gpu-launch",
      llvm::cl::desc("npu-set-target: GPU-like kernels launched from a CUDA "
                     "graph ('graph'), on a stream ('stream') or 'auto' "
                     "(graph for a decode step)"),
      llvm::cl::init("auto")};
  Option<std::string> gpuEpilogue{
      *this, "gpu-epilogue",
      llvm::cl::desc("npu-set-target: GPU-like GEMM epilogues overlapped "
                     "with the next tile ('overlapped') or stalling the "
                     "main loop ('serial')"),
      llvm::cl::init("overlapped")};
};

/// From npu graph IR to fused, tiled, costed and statically scheduled
/// kernels on a TPU-like target: npu-set-target, npu-decide-fusion,
/// npu-form-kernels, npu-decide-tiles, npu-verify-tiles,
/// npu-estimate-cost{target-kind=tpu}, npu-schedule-kernels.
void buildTpuPipeline(OpPassManager &pm, const BackendPipelineOptions &options);
/// The same for a GPU-like target (npu-estimate-cost{target-kind=gpu}; every
/// pass takes its policy and cost model from the target's kind).
void buildGpuPipeline(OpPassManager &pm, const BackendPipelineOptions &options);
/// Registers npu-tpu-pipeline and npu-gpu-pipeline.
void registerTpuPipeline();

/// As buildReferenceToLLVMPipeline, after npu-tile-kernels has applied the
/// `npu.tiling` decision of every npu.kernel: runs tiled kernels with
/// mlir-runner, to compare them with the reference.
void buildTiledToLLVMPipeline(OpPassManager &pm);

/// Options of the TPU-like memory pipeline.
struct TpuLowerPipelineOptions
    : public PassPipelineOptions<TpuLowerPipelineOptions> {
  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("Target name or file; empty: the module's npu.target")};
  Option<int64_t> buffers{
      *this, "buffers",
      llvm::cl::desc("VMEM buffers per streamed tile of a loop without the "
                     "tiling's npu.buffers (2: double buffering); 1: no "
                     "multi-buffering anywhere"),
      llvm::cl::init(2)};
};

/// From kernels with `npu.tiling` to bufferized IR in HBM/VMEM with explicit
/// DMA, double-buffered tile loops and a verified VMEM plan:
/// npu-tile-kernels, one-shot bufferization, npu-tpu-assign-memory-spaces,
/// npu-tpu-insert-dma, npu-tpu-double-buffer, npu-tpu-plan-sram,
/// npu-tpu-verify-sram (docs/memory-tpu.md).
void buildTpuLowerPipeline(OpPassManager &pm,
                           const TpuLowerPipelineOptions &options);

/// buildTpuLowerPipeline, then npu-tpu-to-host and the LLVM lowering, so that
/// mlir-runner executes the memory program.
void buildTpuLowerToLLVMPipeline(OpPassManager &pm,
                                 const TpuLowerPipelineOptions &options);
void registerTpuLowerPipelines();

/// Registers every pipeline above with the pass registry.
void registerNpuPipelines();

} // namespace mlir::npu

#endif // NPU_PIPELINES_PIPELINES_H
