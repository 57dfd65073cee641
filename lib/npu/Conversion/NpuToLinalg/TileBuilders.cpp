//===- TileBuilders.cpp - small builders on tiles of dynamic size ---------===//

#include "Tiling.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::npu;

Value mlir::npu::emptyTile(OpBuilder &b, Location loc,
                           ArrayRef<OpFoldResult> sizes, Type elementType) {
  return tensor::EmptyOp::create(b, loc, sizes, elementType);
}

Value mlir::npu::filledTile(OpBuilder &b, Location loc,
                            ArrayRef<OpFoldResult> sizes, Type elementType,
                            double value) {
  Value init = emptyTile(b, loc, sizes, elementType);
  Value cst = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(cast<FloatType>(elementType), value));
  return linalg::FillOp::create(b, loc, cst, init).getResult(0);
}

Value mlir::npu::sliceOf(OpBuilder &b, Location loc, Value source,
                         ArrayRef<OpFoldResult> offsets,
                         ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> strides(sizes.size(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, source, offsets, sizes,
                                        strides);
}

Value mlir::npu::tileSize(OpBuilder &b, Location loc, Value iv, int64_t tile,
                          int64_t total) {
  Value rest = arith::SubIOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, total), iv);
  return arith::MinSIOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, tile), rest);
}

AffineMap mlir::npu::loopsMap(MLIRContext *ctx, unsigned numLoops,
                              ArrayRef<unsigned> dims) {
  SmallVector<AffineExpr> exprs;
  for (unsigned d : dims)
    exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(numLoops, 0, exprs, ctx);
}

ValueRange mlir::npu::buildGeneric(
    OpBuilder &b, Location loc, ValueRange ins, ValueRange inits,
    ArrayRef<AffineMap> maps, ArrayRef<utils::IteratorType> iters,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)> body) {
  return linalg::GenericOp::create(
             b, loc, TypeRange(inits), ins, inits, maps, iters,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl, body(nb, nl, args));
             })
      ->getResults();
}

Value mlir::npu::f32Const(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
}

Value mlir::npu::buildSiluF32(OpBuilder &b, Location loc, Value x) {
  Value one = f32Const(b, loc, 1.0);
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  Value den = arith::AddFOp::create(b, loc, one, e);
  Value s = arith::DivFOp::create(b, loc, one, den);
  return arith::MulFOp::create(b, loc, x, s);
}
