//===- NpuToLinalg.cpp - the npu-lower-to-linalg pass ---------------------===//

#include "Patterns.h"
#include "npu/Conversion/Passes.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPULOWERTOLINALG
#include "npu/Conversion/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;

void mlir::npu::populateNpuToLinalgPatterns(RewritePatternSet &patterns) {
  populateMatmulToLinalgPatterns(patterns);
  populateAttentionToLinalgPatterns(patterns);
  populateNormToLinalgPatterns(patterns);
  populateElementwiseToLinalgPatterns(patterns);
  populateDataToLinalgPatterns(patterns);
  populateMoEToLinalgPatterns(patterns);
  populateKVCacheToLinalgPatterns(patterns);
  populateQuantToLinalgPatterns(patterns);
}

namespace {
struct NpuLowerToLinalgPass
    : public npu::impl::NpuLowerToLinalgBase<NpuLowerToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // A kernel computes what its body computes (no tiling here: see
    // npu-tile-kernels).
    inlineNpuKernels(getOperation());
    ConversionTarget target(*ctx);
    target.addIllegalDialect<NpuDialect>();
    target.addLegalDialect<
        arith::ArithDialect, bufferization::BufferizationDialect,
        linalg::LinalgDialect, math::MathDialect, scf::SCFDialect,
        tensor::TensorDialect, func::FuncDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    populateNpuToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// Shared builders
//===----------------------------------------------------------------------===//

Value mlir::npu::castFloat(OpBuilder &b, Location loc, Value v, Type type) {
  Type from = v.getType();
  if (from == type)
    return v;
  if (isStoredFormat(from)) {
    v = decodeToF32(b, loc, v);
    from = v.getType();
    if (from == type)
      return v;
  }
  // Narrowing to fp8 (an fp8 KV cache written): encoded from f32's bits,
  // as LLVM has no 8-bit float type.
  if (canEncodeFromF32(type))
    return encodeFromF32(b, loc, v, type);
  unsigned fromBits = from.getIntOrFloatBitWidth(),
           toBits = type.getIntOrFloatBitWidth();
  if (fromBits < toBits)
    return arith::ExtFOp::create(b, loc, type, v);
  // Two formats of one width (bf16 and f16): neither is wider, so the value
  // goes through f32, which holds both exactly.
  if (fromBits == toBits)
    v = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
  return arith::TruncFOp::create(b, loc, type, v);
}

Value mlir::npu::castTensor(OpBuilder &b, Location loc, Value tensor,
                            Type elementType) {
  if (cast<RankedTensorType>(tensor.getType()).getElementType() == elementType)
    return tensor;
  return castTensorInto(
      b, loc, tensor,
      tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, tensor),
                              elementType));
}

Value mlir::npu::castTensorInto(OpBuilder &b, Location loc, Value tensor,
                                Value dest) {
  auto destType = cast<RankedTensorType>(dest.getType());
  Type elementType = destType.getElementType();
  if (cast<RankedTensorType>(tensor.getType()).getElementType() == elementType)
    return linalg::CopyOp::create(b, loc, tensor, dest).getResult(0);
  unsigned rank = destType.getRank();
  SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{destType}, ValueRange{tensor}, ValueRange{dest},
             maps, iters,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl,
                                       castFloat(nb, nl, args[0], elementType));
             })
      .getResult(0);
}

Value mlir::npu::createFilled(OpBuilder &b, Location loc,
                              ArrayRef<int64_t> shape, Type elementType,
                              double value) {
  Value init = tensor::EmptyOp::create(b, loc, shape, elementType);
  Value cst;
  if (auto ft = dyn_cast<FloatType>(elementType))
    cst = arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, value));
  else
    cst = arith::ConstantOp::create(
        b, loc, b.getIntegerAttr(elementType, static_cast<int64_t>(value)));
  return linalg::FillOp::create(b, loc, cst, init).getResult(0);
}
