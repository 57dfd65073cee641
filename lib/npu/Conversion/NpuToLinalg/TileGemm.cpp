//===- TileGemm.cpp - tiling of gemm kernels with upstream TilingInterface ===//
//
// The body (a matmul, optionally a normalization producing its lhs and an
// element-wise epilogue) is already lowered to linalg. Its last op is tiled
// over (batch,) M and N with scf::tileConsumerAndFuseProducersUsingSCF,
// which pulls the epilogue, the matmul (full K), its zero fill and the
// normalization into the tile loops; then the matmul's K is tiled with
// scf::tileUsingSCF, the accumulator tile carried by the K loop. A tiling
// with load chunks marks the matmul `npu.load_chunks` (and, with one K
// step, `npu.store_bands`) for npu-tpu-chunk-loads.
//
//===----------------------------------------------------------------------===//

#include "Tiling.h"

#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace mlir::npu;

namespace {
/// The generic of the reference matmul lowering: two inputs, one init, and
/// one reduction loop, the last, read by both inputs.
bool isMatmulGeneric(Operation *op) {
  auto g = dyn_cast<linalg::GenericOp>(op);
  if (!g || g.getNumDpsInputs() != 2 || g.getNumDpsInits() != 1 ||
      g.getNumReductionLoops() != 1 ||
      g.getIteratorTypesArray().back() != utils::IteratorType::reduction)
    return false;
  unsigned k = g.getNumLoops() - 1;
  return llvm::all_of(g.getDpsInputOperands(), [&](OpOperand *in) {
    return g.getMatchingIndexingMap(in).isFunctionOfDim(k);
  });
}

/// Tile sizes of the consumer's output loops from the gemm loops
/// [batch, M, N, K]. A rank-3 result with batch loop 1 has a shared weight:
/// its M tile counts rows of batch x M, so whole batches per tile when the
/// tile is at least M (rounded down), else part of one batch.
std::optional<SmallVector<int64_t>> outputTileSizes(ArrayRef<int64_t> shape,
                                                    const GemmNest<> &loops,
                                                    const GemmNest<> &tile) {
  if (shape.size() == 2)
    return SmallVector<int64_t>{tile.m, tile.n};
  if (shape.size() != 3)
    return std::nullopt;
  int64_t batch = shape.front(), m = shape[1];
  if (loops.batch == batch && loops.m == m)
    return SmallVector<int64_t>{tile.batch, tile.m, tile.n};
  if (tile.m >= m)
    return SmallVector<int64_t>{tile.m / m, m, tile.n};
  return SmallVector<int64_t>{1, tile.m, tile.n};
}

/// Tiles the K loop of the (already M/N-tiled) matmul generic `op`.
LogicalResult tileReduction(RewriterBase &rewriter, linalg::GenericOp op,
                            int64_t tileK) {
  unsigned numLoops = op.getNumLoops();
  SmallVector<int64_t> sizes(numLoops, 0);
  sizes.back() = tileK;
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(op.getContext(), sizes));
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> res = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(res))
    return failure();
  rewriter.replaceOp(op, res->replacements);
  return success();
}
} // namespace

LogicalResult mlir::npu::tileGemmKernel(RewriterBase &rewriter, KernelOp kernel,
                                        TilingAttr tiling, bool gpuBlocks) {
  if (tiling.getLoops().size() != GemmNest<>::kSize)
    return failure();
  GemmNest<> loops = GemmNest<>::from(tiling.getLoops()),
             tile = GemmNest<>::from(tiling.getTile());
  Block &body = kernel.getBodyBlock();
  auto yield = cast<YieldOp>(body.getTerminator());
  // Each result (several: the projections of one input, a GEMM with N the
  // sum of theirs) gets its own loop nest with the same tiles; what they
  // share (a norm of the input) is fused into each.
  SmallVector<std::pair<linalg::LinalgOp, SmallVector<int64_t>>> nests;
  for (Value v : yield.getValues()) {
    linalg::LinalgOp consumer = getTileableResultOp(v);
    if (!consumer ||
        llvm::any_of(nests, [&](const auto &n) { return n.first == consumer; }))
      return failure();
    auto type = cast<RankedTensorType>(consumer->getResult(0).getType());
    std::optional<SmallVector<int64_t>> sizes =
        outputTileSizes(type.getShape(), loops, tile);
    if (!sizes || (gpuBlocks && sizes->size() > 3))
      return failure();
    nests.push_back({consumer, *sizes});
  }
  if (nests.empty())
    return failure();
  auto outType =
      cast<RankedTensorType>(nests.front().first->getResult(0).getType());
  for (auto &[consumer, sizes] : nests) {
    scf::SCFTilingOptions tilingOptions;
    tilingOptions.setTileSizes(
        getAsIndexOpFoldResult(kernel.getContext(), sizes));
    if (gpuBlocks) {
      tilingOptions.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
      tilingOptions.setMapping(
          getGpuBlockMapping(kernel.getContext(), sizes.size()));
    }
    scf::SCFTileAndFuseOptions options;
    options.setTilingOptions(tilingOptions);
    FailureOr<scf::SCFTileAndFuseResult> res =
        tileAndFuseResultOp(rewriter, kernel, consumer, options);
    if (failed(res))
      return failure();
    // The K loop of the matmul, now inside the M/N tile loops.
    if (tile.k < loops.k) {
      SmallVector<Operation *> matmuls(
          llvm::make_filter_range(res->tiledAndFusedOps, isMatmulGeneric));
      for (Operation *op : matmuls)
        if (failed(
                tileReduction(rewriter, cast<linalg::GenericOp>(op), tile.k)))
          return failure();
    }
  }
  // The untiled ops are dead now.
  (void)runRegionDCE(rewriter, kernel->getRegions());
  // The rounding of the accumulator tile merged into the epilogue.
  fuseElementwiseInTileLoops(kernel);
  // The K step's loads in chunks, and with one K step the output in row
  // bands (unless a batch is folded into M), for npu-tpu-chunk-loads.
  int64_t chunks = tiling.getChunks();
  bool foldedBatch =
      outType.getRank() == 3 && loops.batch == 1 && outType.getDimSize(0) > 1;
  bool banded = !foldedBatch && isGemmOutputBanded(loops, tile, chunks);
  if (chunks > 1)
    kernel.getBodyBlock().walk([&](Operation *op) {
      if (!isMatmulGeneric(op))
        return;
      op->setAttr("npu.load_chunks", rewriter.getI64IntegerAttr(chunks));
      if (banded)
        op->setAttr("npu.store_bands", rewriter.getI64IntegerAttr(chunks));
    });
  foldEmptyTensors(kernel);
  return success();
}

void mlir::npu::tileBatchedMatmulsByBatch(RewriterBase &rewriter,
                                          KernelOp kernel) {
  // Top-level batched matmuls (a batch loop first, kept by the output) and
  // the rounding of their result, if that is their one user.
  SmallVector<linalg::LinalgOp> roots;
  for (Operation &op : kernel.getBodyBlock()) {
    if (!isMatmulGeneric(&op) || cast<linalg::GenericOp>(op).getNumLoops() != 4)
      continue;
    Operation *root = &op;
    if (op.hasOneUse()) {
      auto user = dyn_cast<linalg::GenericOp>(*op.getUsers().begin());
      if (user && user.getNumDpsInputs() == 1 &&
          user.getNumParallelLoops() == user.getNumLoops() &&
          user->getBlock() == op.getBlock())
        root = user;
    }
    if (linalg::LinalgOp tileable = getTileableResultOp(root->getResult(0)))
      roots.push_back(tileable);
  }
  for (linalg::LinalgOp root : roots) {
    unsigned rank =
        cast<RankedTensorType>(root->getResult(0).getType()).getRank();
    SmallVector<int64_t> sizes(rank, 0);
    sizes[0] = 1;
    scf::SCFTilingOptions tilingOptions;
    tilingOptions.setTileSizes(
        getAsIndexOpFoldResult(kernel.getContext(), sizes));
    scf::SCFTileAndFuseOptions options;
    options.setTilingOptions(tilingOptions);
    (void)tileAndFuseResultOp(rewriter, kernel, root, options);
  }
  (void)runRegionDCE(rewriter, kernel->getRegions());
  // Each head's f32 accumulator a tile of its own, not a slice of one for
  // every head (the model prices one head's).
  foldEmptyTensors(kernel);
}
