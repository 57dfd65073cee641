//===- NpuQuantOps.cpp - scaled number formats of the npu dialect ---------===//
//
// The verifier and the stored bytes of npu.dequantize (docs/formats.md).
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/Npu/IR/NpuOps.h"

using namespace mlir;
using namespace mlir::npu;

/// Whether `use` is the weight operand of a matrix op: the rhs of a matmul,
/// or a routed or shared expert weight of moe_experts.
static bool isWeightUse(OpOperand &use) {
  Operation *owner = use.getOwner();
  if (auto mm = dyn_cast<MatmulOp>(owner))
    return use.get() == mm.getRhs() && use.get() != mm.getLhs();
  if (auto moe = dyn_cast<MoEExpertsOp>(owner))
    return llvm::is_contained(ValueRange{moe.getWGate(), moe.getWUp(),
                                         moe.getWDown(), moe.getSharedGate(),
                                         moe.getSharedUp(),
                                         moe.getSharedDown()},
                              use.get()) &&
           use.get() != moe.getX();
  return false;
}

LogicalResult DequantizeOp::verify() {
  auto values = getValues().getType();
  auto scales = getScales().getType();
  auto result = getResult().getType();
  ArrayRef<int64_t> block = getBlock();
  int64_t rank = values.getRank();
  if (result.getShape() != values.getShape())
    return emitOpError("result shape must be the values' shape");
  if (scales.getRank() != rank || static_cast<int64_t>(block.size()) != rank)
    return emitOpError("scales and block must have the values' rank (")
           << rank << "), got rank " << scales.getRank() << " and "
           << block.size() << " block sizes";
  for (int64_t d = 0; d < rank; ++d) {
    if (block[d] <= 0)
      return emitOpError("block size ")
             << d << " is " << block[d] << ", must be positive";
    int64_t want = llvm::divideCeil(values.getDimSize(d), block[d]);
    if (scales.getDimSize(d) != want)
      return emitOpError("scales dimension ")
             << d << " is " << scales.getDimSize(d) << ", expected ceil("
             << values.getDimSize(d) << " / " << block[d] << ") = " << want;
  }
  // An operand form: a use other than a matrix op's weight would need the
  // dequantized tensor stored, which the op's work (none) does not count.
  for (OpOperand &use : getResult().getUses())
    if (!isWeightUse(use) && !isa<KernelOp>(use.getOwner()))
      return emitOpError("result must be used only as a matrix op's weight "
                         "(the rhs of npu.matmul, an expert weight of "
                         "npu.moe_experts); used by ")
             << use.getOwner()->getName() << " operand "
             << use.getOperandNumber();
  return success();
}

Count DequantizeOp::getStoredBytes() {
  Count bytes =
      getNumBytes(getValues().getType()) + getNumBytes(getScales().getType());
  if (Value global = getGlobal())
    bytes += getNumBytes(global.getType());
  return bytes;
}

// An operand form: its consumers' kernels convert the tiles they load, and
// count the stored bytes (getNumBytes of the result).
Work DequantizeOp::computeWork() { return Work(); }
