//===- NpuNormOps.cpp - softmax, normalizations and rotary embedding ------===//

#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "npu/Support/FormatReal.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::npu;

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

/// The result type must be the input type (shape and element type).
static LogicalResult verifyResultIsInputType(Operation *op, Type input,
                                             Type result) {
  if (input != result)
    return op->emitOpError("result type ")
           << result << " must equal the input type " << input;
  return success();
}

/// `eps` must be finite, > 0, and still > 0 and finite once rounded to f32
/// (the ops compute in f32).
static LogicalResult verifyEps(Operation *op, double eps) {
  if (!std::isfinite(eps) || !(eps > 0.0))
    return op->emitOpError("eps must be finite and > 0, got ")
           << formatShortestReal(eps);
  float epsF32 = static_cast<float>(eps);
  if (!(epsF32 > 0.0f) || !std::isfinite(epsF32))
    return op->emitOpError("eps ")
           << formatShortestReal(eps)
           << " is not a finite positive f32 value (the op computes "
              "in f32)";
  return success();
}

/// `param` (gamma or beta) must be a 1-D tensor of the last dimension's size
/// with the input's element type.
static LogicalResult verifyScaleOrShift(Operation *op, StringRef name,
                                        RankedTensorType input,
                                        RankedTensorType param) {
  int64_t n = input.getDimSize(input.getRank() - 1);
  if (param.getRank() != 1 || param.getDimSize(0) != n)
    return op->emitOpError()
           << name << " must have shape [" << n
           << "] (the last dimension of the input), got " << param;
  if (param.getElementType() != input.getElementType())
    return op->emitOpError()
           << name << " element type " << param.getElementType()
           << " must equal the input element type " << input.getElementType();
  return success();
}

/// Checks shared by the normalizations over the last dimension.
static LogicalResult verifyLastDimNorm(Operation *op, RankedTensorType input,
                                       Type result, double eps) {
  if (input.getRank() < 1)
    return op->emitOpError("input must have rank >= 1, got 0");
  if (failed(verifyResultIsInputType(op, input, result)))
    return failure();
  return verifyEps(op, eps);
}

/// Number of rows of a normalization over the last dimension: elements / N.
static Count getNumRows(RankedTensorType input) {
  return getNumElements(input) /
         Count::fromSigned(input.getDimSize(input.getRank() - 1));
}

//===----------------------------------------------------------------------===//
// SoftmaxOp
//===----------------------------------------------------------------------===//

int64_t SoftmaxOp::getNormalizedDim() {
  int64_t dim = getDim();
  return dim < 0 ? dim + getInput().getType().getRank() : dim;
}

LogicalResult SoftmaxOp::verify() {
  auto input = getInput().getType();
  int64_t rank = input.getRank();
  if (rank < 1)
    return emitOpError("input must have rank >= 1, got 0");
  int64_t dim = getDim();
  if (dim < -rank || dim >= rank)
    return emitOpError("dim ")
           << dim << " is out of range for rank " << rank << " (expected "
           << -rank << " <= dim < " << rank << ")";
  return verifyResultIsInputType(*this, input, getResult().getType());
}

// Per element: max, subtract, add into the sum, divide (4 vector) and exp.
Work SoftmaxOp::computeWork() {
  Work w = getOperandResultTraffic(*this);
  Count elems = getNumElements(getInput().getType());
  w.vectorFlops = Count(4) * elems;
  w.transcendentalFlops = elems;
  return w;
}

//===----------------------------------------------------------------------===//
// RMSNormOp
//===----------------------------------------------------------------------===//

LogicalResult RMSNormOp::verify() {
  auto input = getInput().getType();
  if (failed(verifyLastDimNorm(*this, input, getResult().getType(),
                               getEps().convertToDouble())))
    return failure();
  if (!getGamma())
    return success();
  return verifyScaleOrShift(*this, "gamma", input, getGamma().getType());
}

// Per element: square, add, scale by rstd, multiply by gamma (4 vector; 3
// without gamma). Per row: divide by N, add eps (2 vector) and one rsqrt.
Work RMSNormOp::computeWork() {
  Work w = getOperandResultTraffic(*this);
  auto input = getInput().getType();
  Count elems = getNumElements(input);
  Count rows = getNumRows(input);
  w.vectorFlops = Count(getGamma() ? 4 : 3) * elems + Count(2) * rows;
  w.transcendentalFlops = rows;
  return w;
}

//===----------------------------------------------------------------------===//
// LayerNormOp
//===----------------------------------------------------------------------===//

LogicalResult LayerNormOp::verify() {
  auto input = getInput().getType();
  if (failed(verifyLastDimNorm(*this, input, getResult().getType(),
                               getEps().convertToDouble())))
    return failure();
  if (failed(verifyScaleOrShift(*this, "gamma", input, getGamma().getType())))
    return failure();
  if (Value beta = getBeta())
    return verifyScaleOrShift(*this, "beta", input,
                              cast<RankedTensorType>(beta.getType()));
  return success();
}

// Per element: add into the sum, subtract the mean, square, add into the sum
// of squares, scale by rstd, multiply by gamma (6 vector; 7 with beta).
// Per row: two divides by N and one add of eps (3 vector), one rsqrt.
Work LayerNormOp::computeWork() {
  Work w = getOperandResultTraffic(*this);
  auto input = getInput().getType();
  Count elems = getNumElements(input);
  Count rows = getNumRows(input);
  Count perElem(getBeta() ? 7 : 6);
  w.vectorFlops = perElem * elems + Count(3) * rows;
  w.transcendentalFlops = rows;
  return w;
}

//===----------------------------------------------------------------------===//
// RopeOp
//===----------------------------------------------------------------------===//

int64_t RopeOp::getRotaryDimOrDefault() {
  if (std::optional<int64_t> r = getRotaryDim())
    return *r;
  auto input = getInput().getType();
  return input.getDimSize(input.getRank() - 1);
}

LogicalResult RopeOp::verify() {
  auto input = getInput().getType();
  int64_t rank = input.getRank();
  if (rank < 2)
    return emitOpError("input must have rank >= 2 ([..., seq, head_dim]), got ")
           << rank;
  if (failed(verifyResultIsInputType(*this, input, getResult().getType())))
    return failure();
  int64_t d = input.getDimSize(rank - 1);
  if (std::optional<int64_t> r = getRotaryDim()) {
    if (*r < 2 || *r > d)
      return emitOpError("rotary_dim must be in [2, ")
             << d << "] (the last dimension), got " << *r;
    if (*r % 2 != 0)
      return emitOpError("rotary_dim must be even, got ") << *r;
  } else if (d % 2 != 0) {
    return emitOpError("the last dimension (")
           << d
           << ") is rotated when rotary_dim is not given and must be "
              "even";
  }
  double theta = getTheta().convertToDouble();
  if (!std::isfinite(theta) || !(theta > 1.0))
    return emitOpError("theta must be finite and > 1, got ")
           << formatShortestReal(theta);
  float thetaF32 = static_cast<float>(theta);
  if (!std::isfinite(thetaF32) || !(thetaF32 > 1.0f))
    return emitOpError("theta ")
           << formatShortestReal(theta)
           << " is not a finite f32 value > 1 (the op computes in f32)";
  int64_t offset = getOffset();
  if (offset < 0)
    return emitOpError("offset must be >= 0, got ") << offset;
  int64_t seq = input.getDimSize(rank - 2);
  if (offset > std::numeric_limits<int64_t>::max() - seq)
    return emitOpError("offset ") << offset << " plus the sequence length "
                                  << seq << " does not fit in int64";
  return success();
}

// Per rotated element: 2 multiplies and 1 add. Angle table [S, R/2]: one
// multiply, one sin and one cos per entry, shared by all batches and heads.
Work RopeOp::computeWork() {
  Work w = getOperandResultTraffic(*this);
  auto input = getInput().getType();
  int64_t rank = input.getRank();
  Count rot = Count::fromSigned(getRotaryDimOrDefault());
  Count seq = Count::fromSigned(input.getDimSize(rank - 2));
  Count rows =
      getNumElements(input) / Count::fromSigned(input.getDimSize(rank - 1));
  Count tableEntries = seq * (rot / Count(2));
  w.vectorFlops = Count(3) * rows * rot + tableEntries;
  w.transcendentalFlops = Count(2) * tableEntries;
  return w;
}
