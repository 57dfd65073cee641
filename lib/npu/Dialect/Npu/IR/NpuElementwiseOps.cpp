//===- NpuElementwiseOps.cpp - elementwise ops of the npu dialect ---------===//
//
// Verifiers and work of add, mul, silu, gelu and swiglu. The FLOP counts
// follow the exact sequence of operations of the reference lowering
// (ElementwisePatterns.cpp); docs/work/elementwise.md derives each.
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "npu/Support/FormatReal.h"

#include <cmath>

using namespace mlir;
using namespace mlir::npu;

/// Traffic plus `vectorPerElem` vector and `transcendentalPerElem`
/// transcendental FLOPs per result element.
static Work getElementwiseWork(Operation *op, uint64_t vectorPerElem,
                               uint64_t transcendentalPerElem) {
  Work w = getOperandResultTraffic(op);
  Count n = getNumElements(op->getResult(0).getType());
  w.vectorFlops = Count(vectorPerElem) * n;
  w.transcendentalFlops = Count(transcendentalPerElem) * n;
  return w;
}

/// `rhs` must have the element type of `lhs` (or f32) and broadcast to
/// lhs's shape: at most its rank, each dimension (aligned from the last)
/// equal to lhs's or 1.
static LogicalResult verifyBroadcastOperands(Operation *op,
                                             RankedTensorType lhs,
                                             RankedTensorType rhs) {
  if (lhs.getElementType() != rhs.getElementType() &&
      !rhs.getElementType().isF32())
    return op->emitOpError("rhs element type ")
           << rhs.getElementType() << " differs from lhs element type "
           << lhs.getElementType() << " (and is not f32)";
  ArrayRef<int64_t> l = lhs.getShape(), r = rhs.getShape();
  bool broadcasts = r.size() <= l.size();
  for (size_t i = 0; broadcasts && i < r.size(); ++i) {
    int64_t want = l[l.size() - r.size() + i];
    broadcasts = r[i] == want || r[i] == 1;
  }
  if (!broadcasts)
    return op->emitOpError("rhs type ")
           << rhs << " does not broadcast to lhs " << lhs
           << " (its dimensions, aligned from the last, must equal lhs's "
              "or be 1)";
  return success();
}

//===----------------------------------------------------------------------===//
// AddOp, MulOp
//===----------------------------------------------------------------------===//

LogicalResult AddOp::verify() {
  return verifyBroadcastOperands(*this, getLhs().getType(), getRhs().getType());
}

// One add per result element.
Work AddOp::computeWork() { return getElementwiseWork(*this, 1, 0); }

LogicalResult MulOp::verify() {
  return verifyBroadcastOperands(*this, getLhs().getType(), getRhs().getType());
}

// One multiply per result element.
Work MulOp::computeWork() { return getElementwiseWork(*this, 1, 0); }

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

// x * (1 / (1 + exp(-x))): exp; add, divide, multiply (negation is free).
Work SiluOp::computeWork() { return getElementwiseWork(*this, 3, 1); }

// none: (0.5x) * (1 + erf(x * 1/sqrt2)): erf; 2 multiplies for the
//       arguments, add, final multiply.
// tanh: (0.5x) * (1 + tanh(((x*x) * c1 + c0) * x)): tanh; x*x, *c1, +c0,
//       *x, 0.5*x, add, final multiply.
Work GeluOp::computeWork() {
  return getElementwiseWork(
      *this, getApproximate() == GeluApproximation::Tanh ? 7 : 4, 1);
}

// act(gate) (silu: 1 exp, 3 vector; gelu and gelu_tanh as npu.gelu) times
// up (1 vector).
Work SwigluOp::computeWork() {
  int64_t act = getActivation() == GatedActivation::Silu   ? 3
                : getActivation() == GatedActivation::Gelu ? 4
                                                           : 7;
  return getElementwiseWork(*this, act + 1, 1);
}

// cap * tanh(x / cap): tanh; divide, multiply.
Work SoftcapOp::computeWork() { return getElementwiseWork(*this, 2, 1); }

LogicalResult SoftcapOp::verify() {
  double c = getCap().convertToDouble();
  if (!std::isfinite(c) || c <= 0.0)
    return emitOpError("cap must be finite and > 0, got ")
           << formatShortestReal(c);
  return success();
}

//===----------------------------------------------------------------------===//
// ConvertOp
//===----------------------------------------------------------------------===//

LogicalResult ConvertOp::verify() {
  if (getInput().getType().getShape() != getResult().getType().getShape())
    return emitOpError("result shape must equal the input shape");
  return success();
}

// One conversion per element.
Work ConvertOp::computeWork() {
  Work w = getOperandResultTraffic(*this);
  w.vectorFlops = getNumElements(getResult().getType());
  return w;
}
