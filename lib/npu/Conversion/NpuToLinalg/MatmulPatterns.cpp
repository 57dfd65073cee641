//===- MatmulPatterns.cpp - npu.matmul to linalg --------------------------===//

#include "Patterns.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::npu;

namespace {
/// matmul -> fill(acc, 0) + generic(mul-add in acc type) + cast to result.
struct MatmulToGeneric : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resType = op.getResult().getType();
    Type acc = op.getAccumulatorType();
    int64_t rank = resType.getRank();
    int64_t nb = rank - 2;
    MLIRContext *ctx = op.getContext();
    // Loop dims: batch..., m, n, k.
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> batch;
    for (int64_t i = 0; i < nb; ++i)
      batch.push_back(d(i));
    AffineExpr m = d(nb), n = d(nb + 1), k = d(nb + 2);
    SmallVector<AffineExpr> lhsE(batch), rhsE, outE(batch);
    lhsE.append(op.getTransposeLhs() ? SmallVector<AffineExpr>{k, m}
                                     : SmallVector<AffineExpr>{m, k});
    if (op.getRhs().getType().getRank() == rank)
      rhsE.append(batch);
    rhsE.append(op.getTransposeRhs() ? SmallVector<AffineExpr>{n, k}
                                     : SmallVector<AffineExpr>{k, n});
    outE.append({m, n});
    unsigned numLoops = rank + 1;
    SmallVector<AffineMap> maps = {AffineMap::get(numLoops, 0, lhsE, ctx),
                                   AffineMap::get(numLoops, 0, rhsE, ctx),
                                   AffineMap::get(numLoops, 0, outE, ctx)};
    SmallVector<utils::IteratorType> iters(numLoops - 1,
                                           utils::IteratorType::parallel);
    iters.push_back(utils::IteratorType::reduction);
    Value init = createFilled(rewriter, loc, resType.getShape(), acc, 0.0);
    Value sum =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{init.getType()},
            ValueRange{op.getLhs(), op.getRhs()}, ValueRange{init}, maps, iters,
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value a = castFloat(b, l, args[0], acc);
              Value c = castFloat(b, l, args[1], acc);
              Value p = arith::MulFOp::create(b, l, a, c);
              linalg::YieldOp::create(
                  b, l, arith::AddFOp::create(b, l, args[2], p).getResult());
            })
            .getResult(0);
    rewriter.replaceOp(
        op, castTensor(rewriter, loc, sum, resType.getElementType()));
    return success();
  }
};
} // namespace

void mlir::npu::populateMatmulToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<MatmulToGeneric>(patterns.getContext());
}
