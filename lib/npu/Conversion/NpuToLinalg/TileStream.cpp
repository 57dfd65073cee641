//===- TileStream.cpp - row tiling of stream and copy kernels -------------===//
//
// A stream or copy kernel's loops are [rows, cols] of its result: cols the
// last dimension, rows the product of the others; its tile [tr, cols] is a
// block of tr rows. The body is already lowered to linalg. Its last op is
// tiled over the result's row dimensions with
// scf::tileConsumerAndFuseProducersUsingSCF, which pulls the element-wise
// and row-wise producers that read the kernel's inputs (a residual add, a
// normalization's row reduction) into the tile loop; values computed from
// indices alone (a rotary embedding's cos/sin table) are computed once
// before it, and a producer that cannot be fused (a tensor.insert_slice)
// stays whole before it. Slices move above reshapes, so producers behind
// an expand or collapse are fused too. With several results (a MoE
// router's indices and weights) the last one's op is tiled and the loop
// also yields the tiles of the others, which fused producers compute. A
// producer with several results read through slices of one tile (the
// router's top-k slots) is fused once (FuseOnce).
//
// Also the fusions of a gated MLP's producers (its norm) and element-wise
// consumer (its residual add) into its M loop.
//
//===----------------------------------------------------------------------===//

#include "Tiling.h"

#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace mlir::npu;

namespace {
/// A result of `loop` that nothing uses is yielded unchanged, so that
/// canonicalization drops it and the stores of its tiles; then the same for
/// the loops nested in it.
void yieldUnusedResultsUnchanged(RewriterBase &rewriter, scf::ForOp loop) {
  loop->walk<WalkOrder::PreOrder>([&](scf::ForOp l) {
    auto yield = cast<scf::YieldOp>(l.getBody()->getTerminator());
    for (auto [i, result] : llvm::enumerate(l.getResults()))
      if (result.use_empty())
        rewriter.modifyOpInPlace(yield, [&, i = i] {
          yield->setOperand(i, l.getRegionIterArgs()[i]);
        });
  });
}

/// Whether `op` reads, directly or through the ops computing its operands,
/// an argument of `body`.
bool readsBlockArgument(Operation *op, Block *body) {
  SmallVector<Operation *> worklist = {op};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!worklist.empty()) {
    Operation *o = worklist.pop_back_val();
    if (!seen.insert(o).second)
      continue;
    for (Value v : o->getOperands()) {
      if (auto arg = dyn_cast<BlockArgument>(v); arg && arg.getOwner() == body)
        return true;
      if (Operation *def = v.getDefiningOp())
        worklist.push_back(def);
    }
  }
  return false;
}

/// A linalg producer with several results of one shape and indexing map
/// (a router's top-k slots), read in the tile loop through slices of the
/// same tile, is fused once: the later slices read the results of the op
/// fused for the first (else each fuses a copy of it: k copies of an op of
/// size O(k), which CSE merges only after the fact).
class FuseOnce {
public:
  /// Whether `slice` of `producer` is left to read the results of the op
  /// fused for an earlier slice of the same tile; records the first slice.
  bool isFused(tensor::ExtractSliceOp slice, OpResult producer) {
    auto op = dyn_cast<linalg::LinalgOp>(producer.getOwner());
    if (!op || op->getNumResults() < 2)
      return false;
    auto [it, first] = firsts.try_emplace(
        op, First{producer, slice.getMixedOffsets(), slice.getMixedSizes(),
                  slice.getMixedStrides()});
    if (first) {
      op->setAttr(kTag, IntegerAttr::get(IntegerType::get(op->getContext(), 64),
                                         int64_t(firsts.size())));
      return false;
    }
    const First &f = it->second;
    return op.getIndexingMapMatchingResult(f.result) ==
               op.getIndexingMapMatchingResult(producer) &&
           f.result.getType() == producer.getType() &&
           isEqualConstantIntOrValueArray(f.offsets, slice.getMixedOffsets()) &&
           isEqualConstantIntOrValueArray(f.sizes, slice.getMixedSizes()) &&
           isEqualConstantIntOrValueArray(f.strides, slice.getMixedStrides());
  }

  /// After the fusion: the slices left in `loop` read the fused op's
  /// results; the tags go from every op of `scope` (an original may be
  /// erased by now: only the IR is walked).
  void replaceLeftSlices(RewriterBase &rewriter, Operation *loop,
                         Operation *scope) {
    DenseMap<Attribute, Operation *> fused;
    SmallVector<tensor::ExtractSliceOp> left;
    loop->walk([&](Operation *op) {
      if (Attribute tag = op->getAttr(kTag))
        fused.try_emplace(tag, op);
      if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
        if (Operation *src = slice.getSource().getDefiningOp();
            src && src->hasAttr(kTag) && !loop->isAncestor(src))
          left.push_back(slice);
    });
    for (tensor::ExtractSliceOp slice : left) {
      auto result = cast<OpResult>(slice.getSource());
      if (Operation *clone = fused.lookup(result.getOwner()->getAttr(kTag)))
        rewriter.replaceAllUsesWith(slice.getResult(),
                                    clone->getResult(result.getResultNumber()));
    }
    scope->walk([&](Operation *op) { op->removeAttr(kTag); });
  }

private:
  static constexpr StringLiteral kTag = "npu.fuse_once";
  struct First {
    OpResult result;
    SmallVector<OpFoldResult> offsets, sizes, strides;
  };
  llvm::MapVector<Operation *, First> firsts;
};
} // namespace

LogicalResult mlir::npu::tileStreamKernel(RewriterBase &rewriter,
                                          KernelOp kernel, TilingAttr tiling) {
  if (tiling.getLoops().size() != RowNest<>::kSize)
    return failure();
  RowNest<> loops = RowNest<>::from(tiling.getLoops()),
            tile = RowNest<>::from(tiling.getTile());
  if (tile.rows >= loops.rows)
    return failure();
  // The last result is tiled; the others (a router's indices beside its
  // weights) come out of the same loop when an op it fuses computes them.
  auto yield = cast<YieldOp>(kernel.getBodyBlock().getTerminator());
  // A kernel whose results nothing uses yields none: nothing to tile.
  if (yield.getValues().empty())
    return failure();
  Value result = yield.getValues().back();
  // The last op may see the columns as several dims (a rotary embedding's
  // pairs), collapsed into the result's last: its row dims are the result's.
  unsigned colDims = 1;
  if (auto collapse = result.getDefiningOp<tensor::CollapseShapeOp>()) {
    SmallVector<ReassociationIndices> groups =
        collapse.getReassociationIndices();
    if (llvm::any_of(
            ArrayRef(groups).drop_back(),
            [](const ReassociationIndices &g) { return g.size() != 1; }))
      return failure();
    colDims = groups.back().size();
    result = collapse.getSrc();
  }
  // The result is the kernel's [rows, cols] shape.
  linalg::LinalgOp consumer = getTileableResultOp(result);
  if (!consumer)
    return failure();
  auto outType = cast<RankedTensorType>(consumer->getResult(0).getType());
  if (!outType.hasStaticShape() || outType.getRank() < int64_t(colDims) + 1 ||
      outType.getNumElements() != loops.rows * loops.cols)
    return failure();
  ArrayRef<int64_t> rowShape = outType.getShape().drop_back(colDims);
  int64_t cols = 1;
  for (int64_t n : outType.getShape().take_back(colDims))
    cols *= n;
  if (cols != loops.cols)
    return failure();
  SmallVector<int64_t> shape2(rowShape);
  shape2.push_back(loops.cols);
  std::optional<SmallVector<int64_t>> rowSizes =
      rowTileSizes(shape2, tile.rows);
  if (!rowSizes)
    return failure();
  // Whole dimensions are not tiled (size 0: no loop); nor are the columns.
  SmallVector<int64_t> sizes(outType.getRank(), 0);
  for (auto [i, n] : llvm::enumerate(rowShape))
    if ((*rowSizes)[i] != n)
      sizes[i] = (*rowSizes)[i];

  scf::SCFTilingOptions tilingOptions;
  tilingOptions.setTileSizes(
      getAsIndexOpFoldResult(kernel.getContext(), sizes));
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tilingOptions);
  // Producers that read the kernel's inputs are fused; values computed from
  // indices alone (a rotary embedding's cos/sin table) are computed once,
  // before the loop, not once per tile, unless the plan puts the table in
  // the tiles (table_per_tile: each computes its positions' share).
  bool tablePerTile = tiling.getTablePerTile();
  Block *body = &kernel.getBodyBlock();
  // A fused op that computes another result yields its tile of it too
  // (once: a second slice of it fuses a copy that CSE cannot merge).
  llvm::SmallPtrSet<Value, 4> others(yield.getValues().begin(),
                                     std::prev(yield.getValues().end()));
  llvm::SmallPtrSet<Operation *, 4> yielded;
  FuseOnce fuseOnce;
  options.setFusionControlFn(
      [&](tensor::ExtractSliceOp slice, OpResult producer, bool destination)
          -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        Operation *op = producer.getOwner();
        // An accumulator's initial value is made per tile.
        bool readsInput = readsBlockArgument(op, body);
        bool fused = readsInput || tablePerTile;
        if (!destination && !fused)
          return std::nullopt;
        if (fused && fuseOnce.isFused(slice, producer))
          return std::nullopt;
        bool yields = llvm::any_of(op->getResults(),
                                   [&](Value r) { return others.contains(r); });
        return scf::SCFTileAndFuseOptions::ControlFnResult{
            yields && yielded.insert(op).second};
      });
  // Slices move above reshapes (a router's experts seen as groups), so the
  // ops before them are fused too.
  RewritePatternSet cleanup(kernel.getContext());
  tensor::populateBubbleUpExtractSliceOpPatterns(cleanup);
  options.cleanupPatterns = FrozenRewritePatternSet(std::move(cleanup));
  FailureOr<scf::SCFTileAndFuseResult> res =
      tileAndFuseResultOp(rewriter, kernel, consumer, options);
  if (failed(res))
    return failure();
  fuseOnce.replaceLeftSlices(rewriter, res->loops.front().getOperation(),
                             kernel);
  // The other results from the loop; one no fused op computes stays whole,
  // computed before the loop.
  for (OpOperand &operand : yield->getOpOperands())
    if (Value tiled = res->replacements.lookup(operand.get()))
      rewriter.modifyOpInPlace(yield, [&] { operand.set(tiled); });
  // The tiles of a yielded op's results the kernel does not return (the
  // router's unscaled weights) are not stored.
  if (auto loop = dyn_cast<scf::ForOp>(res->loops.front().getOperation()))
    yieldUnusedResultsUnchanged(rewriter, loop);
  (void)runRegionDCE(rewriter, kernel->getRegions());
  // An op read through several slices was fused once per slice.
  DominanceInfo dominance;
  eliminateCommonSubExpressions(rewriter, dominance, kernel);
  foldEmptyTensors(kernel);
  return success();
}

void mlir::npu::fuseProducersIntoTileLoops(RewriterBase &rewriter,
                                           KernelOp kernel) {
  Block &body = kernel.getBodyBlock();
  // A slice taken in a tile loop of a value that a tileable op of the body
  // computes whole before the loops.
  auto fusible = [&](tensor::ExtractSliceOp slice) {
    Operation *producer = slice.getSource().getDefiningOp();
    return producer && producer->getBlock() == &body &&
           isa<TilingInterface>(producer) &&
           slice->getParentOfType<scf::ForOp>() &&
           kernel->isProperAncestor(slice);
  };
  SmallVector<tensor::ExtractSliceOp> worklist;
  body.walk([&](tensor::ExtractSliceOp s) {
    if (fusible(s))
      worklist.push_back(s);
  });
  while (!worklist.empty()) {
    tensor::ExtractSliceOp slice = worklist.pop_back_val();
    if (!fusible(slice))
      continue;
    SmallVector<LoopLikeOpInterface> loops;
    for (auto loop = slice->getParentOfType<scf::ForOp>();
         loop && kernel->isProperAncestor(loop);
         loop = loop->getParentOfType<scf::ForOp>())
      loops.push_back(loop);
    std::reverse(loops.begin(), loops.end());
    rewriter.setInsertionPoint(slice);
    std::optional<scf::SCFFuseProducerOfSliceResult> fused =
        scf::tileAndFuseProducerOfSlice(rewriter, slice, loops);
    if (!fused)
      continue;
    // The fused op reads slices of its own operands: their producers next.
    for (Operation *op : fused->generatedSlices)
      if (auto s = dyn_cast<tensor::ExtractSliceOp>(op))
        worklist.push_back(s);
  }
  (void)runRegionDCE(rewriter, kernel->getRegions());
  foldEmptyTensors(kernel);
}

void mlir::npu::fuseConsumersIntoTileLoops(RewriterBase &rewriter,
                                           KernelOp kernel) {
  // An all-parallel op of the body whose operand is the result of a tile
  // loop of the body (the loop's tiles cover that result whole).
  // Only a loop with one user: fusing replaces the loop.
  SmallVector<std::pair<Operation *, scf::ForOp>> candidates;
  for (auto loop : kernel.getBodyBlock().getOps<scf::ForOp>()) {
    if (!llvm::hasSingleElement(loop->getUsers()))
      continue;
    Operation *user = *loop->getUsers().begin();
    if (auto op = dyn_cast<linalg::LinalgOp>(user);
        op && op->getBlock() == loop->getBlock() &&
        op.getNumLoops() == op.getNumParallelLoops() &&
        isa<TilingInterface>(user))
      candidates.push_back({user, loop});
  }
  SmallVector<scf::ForOp> fusedLoops;
  for (auto [consumer, loop] : candidates) {
    SmallVector<LoopLikeOpInterface> loops = {loop};
    FailureOr<scf::SCFFuseConsumerOfSliceResult> fused =
        scf::tileAndFuseConsumer(rewriter, consumer, loops);
    if (succeeded(fused))
      fusedLoops.push_back(fused->tiledAndFusedConsumerOperands.front()
                               ->getOwner()
                               ->getParentOfType<scf::ForOp>());
  }
  (void)runRegionDCE(rewriter, kernel->getRegions());
  // The fused consumer's element-wise producers in the loop (the rounding
  // of the output tile) merge into it.
  fuseElementwiseInTileLoops(kernel);
  // A fused loop also yields the consumer's result; the result the consumer
  // read is now unused: yielded unchanged, canonicalization drops it (and
  // the stores of its tiles).
  for (scf::ForOp loop : fusedLoops)
    yieldUnusedResultsUnchanged(rewriter, loop);
  (void)runRegionDCE(rewriter, kernel->getRegions());
}
