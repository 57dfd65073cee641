//===- NpuMatmulOps.cpp - npu.matmul --------------------------------------===//

#include "npu/Dialect/Npu/IR/NpuOps.h"

using namespace mlir;
using namespace mlir::npu;

Type MatmulOp::getAccumulatorType() {
  if (std::optional<Type> t = getAccType())
    return *t;
  return Float32Type::get(getContext());
}

MatmulOp::Dims MatmulOp::getDims() {
  auto lhs = getLhs().getType();
  auto rhs = getRhs().getType();
  int64_t r = lhs.getRank();
  Dims d;
  d.batch = 1;
  for (int64_t i = 0; i < r - 2; ++i)
    d.batch *= lhs.getDimSize(i);
  d.m = lhs.getDimSize(getTransposeLhs() ? r - 1 : r - 2);
  d.k = lhs.getDimSize(getTransposeLhs() ? r - 2 : r - 1);
  int64_t rr = rhs.getRank();
  d.n = rhs.getDimSize(getTransposeRhs() ? rr - 2 : rr - 1);
  return d;
}

LogicalResult MatmulOp::verify() {
  auto lhs = getLhs().getType();
  auto rhs = getRhs().getType();
  auto res = getResult().getType();
  int64_t r = lhs.getRank();
  if (r < 2)
    return emitOpError("lhs must have rank >= 2, got ") << r;
  if (rhs.getRank() != 2 && rhs.getRank() != r)
    return emitOpError("rhs must have rank 2 or the rank of lhs (")
           << r << "), got " << rhs.getRank();
  if (res.getRank() != r)
    return emitOpError("result must have the rank of lhs (")
           << r << "), got " << res.getRank();
  for (int64_t i = 0; i < r - 2; ++i) {
    if (rhs.getRank() == r && rhs.getDimSize(i) != lhs.getDimSize(i))
      return emitOpError("batch dimension ")
             << i << " differs: lhs " << lhs.getDimSize(i) << " vs rhs "
             << rhs.getDimSize(i);
    if (res.getDimSize(i) != lhs.getDimSize(i))
      return emitOpError("result batch dimension ")
             << i << " is " << res.getDimSize(i) << ", expected "
             << lhs.getDimSize(i);
  }
  int64_t rr = rhs.getRank();
  int64_t lhsK = lhs.getDimSize(getTransposeLhs() ? r - 2 : r - 1);
  int64_t rhsK = rhs.getDimSize(getTransposeRhs() ? rr - 1 : rr - 2);
  if (lhsK != rhsK)
    return emitOpError("contraction sizes differ: lhs K = ")
           << lhsK << ", rhs K = " << rhsK;
  Dims d = getDims();
  if (res.getDimSize(r - 2) != d.m || res.getDimSize(r - 1) != d.n)
    return emitOpError("result matrix must be ")
           << d.m << "x" << d.n << ", got " << res.getDimSize(r - 2) << "x"
           << res.getDimSize(r - 1);
  Type acc = getAccumulatorType();
  if (!isa<Float32Type, Float16Type, BFloat16Type>(acc))
    return emitOpError("accumulator type must be f32, f16 or bf16, got ")
           << acc;
  if (acc.getIntOrFloatBitWidth() <
      res.getElementType().getIntOrFloatBitWidth())
    return emitOpError("accumulator type ")
           << acc << " is narrower than the result element type "
           << res.getElementType();
  return success();
}

Work MatmulOp::computeWork() {
  Work w = getOperandResultTraffic(*this);
  // The product of batch, M, N and K is overflow-checked, unlike getDims().
  auto lhs = getLhs().getType();
  int64_t r = lhs.getRank();
  Count kSize =
      Count::fromSigned(lhs.getDimSize(getTransposeLhs() ? r - 2 : r - 1));
  Count outElems = getNumElements(getResult().getType());
  w.matrixFlops = Count(2) * outElems * kSize;
  return w;
}
