//===- KVCachePatterns.cpp - KV cache ops to tensor slices ----------------===//

#include "Patterns.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::npu;

namespace {
/// kv_cache_append -> tensor.insert_slice at [0, 0, clamp(pos), 0], with pos
/// clamped to [0, Smax - Snew] so that it never writes out of bounds.
struct KVCacheAppendToInsertSlice : OpRewritePattern<KVCacheAppendOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(KVCacheAppendOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto cache = op.getCache().getType();
    auto update = op.getUpdate().getType();
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value last = arith::ConstantIndexOp::create(
        rewriter, loc, cache.getDimSize(2) - update.getDimSize(2));
    Value pos = arith::MinSIOp::create(
        rewriter, loc, arith::MaxSIOp::create(rewriter, loc, op.getPos(), zero),
        last);
    SmallVector<OpFoldResult> offsets = {rewriter.getIndexAttr(0),
                                         rewriter.getIndexAttr(0), pos,
                                         rewriter.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes;
    for (int64_t s : update.getShape())
      sizes.push_back(rewriter.getIndexAttr(s));
    SmallVector<OpFoldResult> strides(4, rewriter.getIndexAttr(1));
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
        op, op.getUpdate(), op.getCache(), offsets, sizes, strides);
    return success();
  }
};

/// kv_cache_read -> tensor.extract_slice of the tokens [0, length).
struct KVCacheReadToExtractSlice : OpRewritePattern<KVCacheReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(KVCacheReadOp op,
                                PatternRewriter &rewriter) const override {
    auto result = cast<RankedTensorType>(op.getResult().getType());
    SmallVector<OpFoldResult> offsets(4, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes;
    for (int64_t s : result.getShape())
      sizes.push_back(rewriter.getIndexAttr(s));
    SmallVector<OpFoldResult> strides(4, rewriter.getIndexAttr(1));
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, result, op.getCache(), offsets, sizes, strides);
    return success();
  }
};
} // namespace

void mlir::npu::populateKVCacheToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<KVCacheAppendToInsertSlice, KVCacheReadToExtractSlice>(
      patterns.getContext());
}
