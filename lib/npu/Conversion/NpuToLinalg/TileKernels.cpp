//===- TileKernels.cpp - the npu-tile-kernels pass ------------------------===//
//
// Applies the `npu.tiling` decision of each npu.kernel while lowering it to
// linalg/scf on tensors. The kind-specific rewrites are in Tile*.cpp; a
// kernel none of them applies to is lowered untiled (docs/tiling.md).
//
//===----------------------------------------------------------------------===//

#include "Tiling.h"
#include "npu/Conversion/Passes.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPUTILEKERNELS
#include "npu/Conversion/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;

namespace {
/// Lowers the npu ops of the kernel's body with the reference patterns.
LogicalResult lowerBody(KernelOp kernel) {
  MLIRContext *ctx = kernel.getContext();
  ConversionTarget target(*ctx);
  target.addIllegalDialect<NpuDialect>();
  target.addLegalOp<KernelOp, YieldOp>();
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  RewritePatternSet patterns(ctx);
  populateNpuToLinalgPatterns(patterns);
  return applyPartialConversion(kernel.getOperation(), target,
                                std::move(patterns));
}

struct NpuTileKernelsPass
    : public npu::impl::NpuTileKernelsBase<NpuTileKernelsPass> {
  using Base::Base;
  void runOnOperation() override {
    if (blockMapping != "none" && blockMapping != "gpu") {
      emitError(getOperation()->getLoc())
          << "npu-tile-kernels: block-mapping must be 'none' or 'gpu', got '"
          << blockMapping << "'";
      return signalPassFailure();
    }
    SmallVector<KernelOp> kernels;
    getOperation()->walk([&](KernelOp k) { kernels.push_back(k); });
    // The memory pipeline (markKernels) lowers kernels: a module of graph
    // ops and no kernel has not been through --npu-tpu-pipeline, and would
    // be staged whole into on-chip memory.
    if (markKernels && kernels.empty()) {
      Operation *work = nullptr;
      getOperation()->walk([&](WorkOpInterface op) {
        if (!work && !isa<WeightOp>(op.getOperation()))
          work = op.getOperation();
        return work ? WalkResult::interrupt() : WalkResult::advance();
      });
      if (work) {
        work->emitError()
            << "npu-tile-kernels: this op is in no npu.kernel (the module "
               "has none): the memory pipeline lowers the kernels "
               "--npu-tpu-pipeline builds (fusion, tiles, schedule); run it "
               "first";
        return signalPassFailure();
      }
    }
    IRRewriter rewriter(&getContext());
    bool gpuBlocks = blockMapping == "gpu";
    int64_t kernelId = 0;
    for (KernelOp kernel : kernels) {
      auto tiling = kernel->getAttrOfType<TilingAttr>("npu.tiling");
      KernelKind kind = kernel.getKind();
      // Rewrites of one graph op of the body, before the rest is lowered.
      bool tiled = false;
      if (tiling && isAttentionKind(kind)) {
        // A GPU-like target's split KV (#npu.launch), if decided.
        int64_t kvSplits = 1;
        if (auto launches = kernel->getAttrOfType<ArrayAttr>("npu.launch"))
          if (auto l = dyn_cast<LaunchAttr>(launches[0]))
            kvSplits = l.getKvSplits();
        if (failed(tileAttentionKernel(rewriter, kernel, tiling, kvSplits,
                                       gpuBlocks)))
          return signalPassFailure();
        tiled = true;
      }
      if (tiling && kind == KernelKind::GatedMlp)
        tiled =
            succeeded(tileGatedMlpKernel(rewriter, kernel, tiling, gpuBlocks));
      if (tiling && !gpuBlocks && kind == KernelKind::MoeFfn)
        tiled = succeeded(tileMoeKernel(rewriter, kernel, tiling));
      if (failed(lowerBody(kernel)))
        return signalPassFailure();
      // The gated MLP's row-wise producers (its norm) into its M tiles.
      if (tiling && kind == KernelKind::GatedMlp) {
        fuseProducersIntoTileLoops(rewriter, kernel);
        fuseConsumersIntoTileLoops(rewriter, kernel);
      }
      // The MLA absorbed kernel's projections, one head at a time.
      if (tiling && !gpuBlocks && kind == KernelKind::MlaAbsorbed)
        tileBatchedMatmulsByBatch(rewriter, kernel);
      // Tiling of the lowered body.
      if (tiling && kind == KernelKind::Gemm)
        tiled = succeeded(tileGemmKernel(rewriter, kernel, tiling, gpuBlocks));
      // (A tile of all the rows is one tile, the kernel whole: its ops are
      // marked like a tiled kernel's, so its temporaries stay on chip.)
      if (tiling && !gpuBlocks &&
          (kind == KernelKind::Stream || kind == KernelKind::Copy))
        tiled = succeeded(tileStreamKernel(rewriter, kernel, tiling)) ||
                (tiling.getLoops().size() == RowNest<>::kSize &&
                 RowNest<>::from(tiling.getTile()).rows >=
                     RowNest<>::from(tiling.getLoops()).rows);
      // A gather (the embedding) reads rows, one copy each, whether or not
      // its rows were tiled.
      if (tiling && !gpuBlocks && kind == KernelKind::Copy)
        gatherRowsByCopies(rewriter, kernel);
      // The ops of a kernel its tiling applied to, marked with the kernel's
      // number: what only they read and write is the kernel's own (on chip
      // on a TPU-like target, npu-tpu-assign-memory-spaces), also outside
      // the tile loops (a single tile, a table computed once).
      // An absorbed MLA kernel hands its per-head intermediates from phase
      // to phase on chip, and an attention kernel holds what its body
      // computes around its KV loops (a transposed query or output), as
      // the cost model prices them: their ops say so (npu.kernel_holds),
      // and the tile copies in their loops belong to them.
      if (tiled && markKernels)
        kernel.getBodyBlock().walk([&](linalg::LinalgOp op) {
          op->setAttr("npu.kernel_id", rewriter.getI64IntegerAttr(kernelId));
          if (kind == KernelKind::MlaAbsorbed || kind == KernelKind::Attention)
            op->setAttr("npu.kernel_holds", rewriter.getUnitAttr());
        });
      ++kernelId;
      // The tiling's buffers, for npu-tpu-double-buffer, on every loop of
      // the kernel (the kernel and its attribute are inlined away below): 1
      // (a held K/V too long to be held twice, say) keeps the loads
      // waited in place.
      if (tiling)
        kernel.getBodyBlock().walk([&](scf::ForOp loop) {
          loop->setAttr("npu.buffers",
                        rewriter.getI64IntegerAttr(tiling.getBuffers()));
        });
    }
    inlineNpuKernels(getOperation());
  }
};
} // namespace
