//===- DataPatterns.cpp - parameters, gathers and shape ops to linalg -----===//

#include "Patterns.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::npu;

namespace {
/// weight -> generic computing ((i * 7 + 3) mod 17 - 8) / 16 from the
/// row-major linear index i (no constant of the weight's size is built).
struct WeightToGeneric : OpRewritePattern<WeightOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WeightOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getResult().getType();
    unsigned rank = type.getRank();
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType());
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
            maps, iters,
            [&](OpBuilder &b, Location l, ValueRange) {
              Type i64 = b.getI64Type();
              auto cst = [&](int64_t v) -> Value {
                return arith::ConstantOp::create(b, l, b.getI64IntegerAttr(v));
              };
              Value lin = cst(0);
              for (unsigned i = 0; i < rank; ++i) {
                Value idx = arith::IndexCastOp::create(
                    b, l, i64, linalg::IndexOp::create(b, l, i));
                lin = arith::AddIOp::create(
                    b, l, arith::MulIOp::create(b, l, lin,
                                                cst(type.getDimSize(i))),
                    idx);
              }
              Value v = arith::AddIOp::create(
                  b, l, arith::MulIOp::create(b, l, lin, cst(7)), cst(3));
              v = arith::SubIOp::create(
                  b, l, arith::RemUIOp::create(b, l, v, cst(17)), cst(8));
              Value f = arith::SIToFPOp::create(b, l, b.getF32Type(), v);
              Value sixteenth = arith::ConstantOp::create(
                  b, l, b.getF32FloatAttr(1.0f / 16.0f));
              f = arith::MulFOp::create(b, l, f, sixteenth);
              linalg::YieldOp::create(
                  b, l, castFloat(b, l, f, type.getElementType()));
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void mlir::npu::populateDataToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<WeightToGeneric>(patterns.getContext());
}
