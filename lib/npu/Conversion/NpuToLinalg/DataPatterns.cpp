//===- DataPatterns.cpp - parameters, gathers and shape ops to linalg -----===//

#include "Patterns.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::npu;

namespace {
/// A stored weight's element from t = 7 i + 3 (i64): integers
/// (t mod 15) - 7, in range of int4; narrow floats the bit pattern t mod 16
/// (fp4: all finite), t mod 120 (fp8: positive and finite) or 120 +
/// (t mod 8) (e8m0: 2^-7 .. 1).
Value storedWeight(OpBuilder &b, Location l, Value t, Type elem) {
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, l, b.getI64IntegerAttr(v));
  };
  unsigned width = elem.getIntOrFloatBitWidth();
  Value v;
  if (isa<IntegerType>(elem))
    v = arith::SubIOp::create(b, l, arith::RemUIOp::create(b, l, t, cst(15)),
                              cst(7));
  else if (width == 4)
    v = arith::RemUIOp::create(b, l, t, cst(16));
  else if (isa<Float8E8M0FNUType>(elem))
    v = arith::AddIOp::create(b, l, arith::RemUIOp::create(b, l, t, cst(8)),
                              cst(120));
  else
    v = arith::RemUIOp::create(b, l, t, cst(120));
  v = arith::TruncIOp::create(b, l, b.getIntegerType(width), v);
  return isa<IntegerType>(elem) ? v : arith::BitcastOp::create(b, l, elem, v);
}

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
                    b, l,
                    arith::MulIOp::create(b, l, lin, cst(type.getDimSize(i))),
                    idx);
              }
              Value v = arith::AddIOp::create(
                  b, l, arith::MulIOp::create(b, l, lin, cst(7)), cst(3));
              Type elem = type.getElementType();
              if (isa<IntegerType>(elem) || isStoredFormat(elem)) {
                linalg::YieldOp::create(b, l, storedWeight(b, l, v, elem));
                return;
              }
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
/// embedding -> generic over the result; the body clamps the id to
/// [0, V - 1] and reads table[id, d] with tensor.extract.
struct EmbeddingToGeneric : OpRewritePattern<EmbeddingOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(EmbeddingOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto type = op.getResult().getType();
    auto idsType = op.getIds().getType();
    unsigned rank = type.getRank();
    auto idType = cast<IntegerType>(idsType.getElementType());
    // Largest valid id, limited to what the id type can hold.
    int64_t maxId = std::min<int64_t>(op.getTable().getType().getDimSize(0) - 1,
                                      llvm::maxIntN(idType.getWidth()));
    SmallVector<AffineExpr> idExprs;
    for (unsigned d = 0; d + 1 < rank; ++d)
      idExprs.push_back(getAffineDimExpr(d, ctx));
    SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, idExprs, ctx),
                                   rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType());
    Value table = op.getTable();
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{type}, ValueRange{op.getIds()},
            ValueRange{init}, maps, iters,
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value zero =
                  arith::ConstantOp::create(b, l, b.getIntegerAttr(idType, 0));
              Value last = arith::ConstantOp::create(
                  b, l, b.getIntegerAttr(idType, maxId));
              Value id = arith::MaxSIOp::create(b, l, args[0], zero);
              id = arith::MinSIOp::create(b, l, id, last);
              Value row =
                  arith::IndexCastOp::create(b, l, b.getIndexType(), id);
              Value col = linalg::IndexOp::create(b, l, rank - 1);
              Value v =
                  tensor::ExtractOp::create(b, l, table, ValueRange{row, col});
              linalg::YieldOp::create(b, l, v);
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// reshape -> collapse_shape to 1-D, then expand_shape to the result; to
/// or from rank 0, one collapse_shape / expand_shape with no reassociation.
struct ReshapeToCollapseExpand : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inType = op.getInput().getType();
    auto outType = op.getResult().getType();
    if (inType == outType) {
      rewriter.replaceOp(op, op.getInput());
      return success();
    }
    auto allDims = [](int64_t rank) {
      SmallVector<ReassociationIndices> r;
      if (rank == 0)
        return r;
      r.emplace_back();
      for (int64_t i = 0; i < rank; ++i)
        r.back().push_back(i);
      return r;
    };
    // Rank 0 on either side: every dimension of the other side is 1.
    if (outType.getRank() == 0) {
      rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
          op, outType, op.getInput(), allDims(0));
      return success();
    }
    if (inType.getRank() == 0) {
      rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
          op, outType, op.getInput(), allDims(0));
      return success();
    }
    Count n = getNumElements(inType);
    auto flatType = RankedTensorType::get({static_cast<int64_t>(n.value())},
                                          inType.getElementType());
    Value result = op.getInput();
    if (inType.getRank() > 1)
      result = tensor::CollapseShapeOp::create(rewriter, loc, flatType, result,
                                               allDims(inType.getRank()));
    if (outType.getRank() > 1)
      result = tensor::ExpandShapeOp::create(rewriter, loc, outType, result,
                                             allDims(outType.getRank()));
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// transpose -> linalg.transpose (identity permutations fold away).
struct TransposeToLinalg : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    ArrayRef<int64_t> perm = op.getPerm();
    if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size()))) {
      rewriter.replaceOp(op, op.getInput());
      return success();
    }
    auto type = op.getResult().getType();
    Value init = tensor::EmptyOp::create(rewriter, op.getLoc(), type.getShape(),
                                         type.getElementType());
    auto t = linalg::TransposeOp::create(rewriter, op.getLoc(), op.getInput(),
                                         init, perm);
    rewriter.replaceOp(op, t.getResult());
    return success();
  }
};

/// broadcast -> linalg.generic reading index 0 along the size-1 dimensions.
struct BroadcastToGeneric : OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    auto in = op.getInput().getType();
    auto type = op.getResult().getType();
    unsigned rank = type.getRank();
    SmallVector<AffineExpr> exprs;
    for (unsigned d = 0; d < rank; ++d)
      exprs.push_back(in.getDimSize(d) == 1 && type.getDimSize(d) != 1
                          ? rewriter.getAffineConstantExpr(0)
                          : rewriter.getAffineDimExpr(d));
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, exprs, rewriter.getContext()),
        rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    Value init = tensor::EmptyOp::create(rewriter, op.getLoc(), type.getShape(),
                                         type.getElementType());
    auto g = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{type}, ValueRange{op.getInput()},
        ValueRange{init}, maps, iters,
        [](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l, args[0]);
        });
    rewriter.replaceOp(op, g.getResult(0));
    return success();
  }
};

/// concat -> tensor.concat.
struct ConcatToTensor : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getInputs().size() == 1) {
      rewriter.replaceOp(op, op.getInputs().front());
      return success();
    }
    rewriter.replaceOpWithNewOp<tensor::ConcatOp>(
        op, op.getResult().getType(), static_cast<uint64_t>(op.getDim()),
        op.getInputs());
    return success();
  }
};

/// slice -> tensor.extract_slice.
struct SliceToExtractSlice : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, op.getResult().getType(), op.getInput(), ValueRange{}, ValueRange{},
        ValueRange{}, op.getOffsets(), op.getSizes(), op.getStrides());
    return success();
  }
};
} // namespace

void mlir::npu::populateDataToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<WeightToGeneric, EmbeddingToGeneric, ReshapeToCollapseExpand,
               BroadcastToGeneric, TransposeToLinalg, ConcatToTensor,
               SliceToExtractSlice>(patterns.getContext());
}
