//===- NpuWork.cpp - overflow-checked work counts -------------------------===//

#include "npu/Dialect/Npu/IR/NpuWork.h"
#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::npu;

namespace mlir::npu {
Count operator+(Count a, Count b) {
  if (a.overflow || b.overflow)
    return Count::overflowed();
  uint64_t r;
  if (__builtin_add_overflow(a.val, b.val, &r))
    return Count::overflowed();
  return Count(r);
}
Count operator-(Count a, Count b) {
  if (a.overflow || b.overflow || b.val > a.val)
    return Count::overflowed();
  return Count(a.val - b.val);
}
Count operator*(Count a, Count b) {
  if (a.overflow || b.overflow)
    return Count::overflowed();
  uint64_t r;
  if (__builtin_mul_overflow(a.val, b.val, &r))
    return Count::overflowed();
  return Count(r);
}
Count operator/(Count a, Count b) {
  if (a.overflow || b.overflow || b.val == 0)
    return Count::overflowed();
  return Count(a.val / b.val);
}
} // namespace mlir::npu

bool Work::isOverflow() const {
  return matrixFlops.isOverflow() || vectorFlops.isOverflow() ||
         transcendentalFlops.isOverflow() || bytesRead.isOverflow() ||
         bytesWritten.isOverflow() || paramBytes.isOverflow() ||
         totalFlops().isOverflow();
}

Work &Work::operator+=(const Work &o) {
  matrixFlops += o.matrixFlops;
  vectorFlops += o.vectorFlops;
  transcendentalFlops += o.transcendentalFlops;
  bytesRead += o.bytesRead;
  bytesWritten += o.bytesWritten;
  paramBytes += o.paramBytes;
  return *this;
}

uint64_t mlir::npu::getElementBytes(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  // An index is 64 bits (MLIR's default data layout, and what the lowerings
  // store); a complex number two of its parts. npu ops verify their element
  // types; other types reach here only from ops of other dialects (a
  // tensor of index in a test's driver), whose bytes are not modelled.
  if (type.isIndex())
    return 8;
  if (auto complex = dyn_cast<ComplexType>(type))
    return 2 * getElementBytes(complex.getElementType());
  if (!type.isIntOrFloat())
    return 0;
  return (type.getIntOrFloatBitWidth() + 7) / 8;
}

Count mlir::npu::getNumElements(Type type) {
  auto shaped = cast<ShapedType>(type);
  Count n(1);
  for (int64_t d : shaped.getShape())
    n *= Count::fromSigned(d);
  return n;
}

Count mlir::npu::getNumBytes(Type type) {
  // Narrow formats pack: two 4-bit values per byte (int4, fp4).
  Type element = cast<ShapedType>(type).getElementType();
  if (element.isIntOrFloat() && element.getIntOrFloatBitWidth() < 8) {
    Count bits = getNumElements(type) *
                     Count(uint64_t(element.getIntOrFloatBitWidth())) +
                 Count(7);
    return bits / Count(8);
  }
  return getNumElements(type) * Count(getElementBytes(type));
}

Count mlir::npu::getNumBytes(Value value) {
  // A dequantized weight is never stored: its bytes are the stored values'
  // and scales'.
  if (auto dq = value.getDefiningOp<DequantizeOp>())
    return dq.getStoredBytes();
  return getNumBytes(value.getType());
}

bool mlir::npu::isParameter(Value value) {
  // A view (reshape, slice) of a parameter is a parameter: its consumer reads
  // parameter bytes.
  while (Operation *def = value.getDefiningOp()) {
    if (isa<WeightOp>(def))
      return true;
    if (!isa<ReshapeOp, SliceOp, DequantizeOp>(def))
      return false;
    value = def->getOperand(0);
  }
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg)
    return false;
  auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
  if (!func || arg.getOwner() != &func.getFunctionBody().front())
    return false;
  return func.getArgAttr(arg.getArgNumber(), "npu.param") != nullptr;
}

Work mlir::npu::getOperandResultTraffic(Operation *op) {
  Work w;
  llvm::SmallPtrSet<Value, 4> seen;
  for (Value v : op->getOperands()) {
    if (!isa<ShapedType>(v.getType()) || !seen.insert(v).second)
      continue;
    w.bytesRead += getNumBytes(v);
    if (isParameter(v))
      w.paramBytes += getNumBytes(v);
  }
  for (Value v : op->getResults())
    if (isa<ShapedType>(v.getType()))
      w.bytesWritten += getNumBytes(v);
  return w;
}

FailureOr<Work> mlir::npu::getCheckedWork(Operation *op) {
  auto iface = dyn_cast<WorkOpInterface>(op);
  if (!iface)
    return Work();
  Work w = iface.computeWork();
  if (w.isOverflow())
    return op->emitError(
        "work of this op (FLOPs or bytes) does not fit in 64 bits");
  return w;
}

LogicalResult mlir::npu::OpTrait::verifyShapesInRange(Operation *op) {
  auto check = [&](Type type, StringRef what, unsigned idx) -> LogicalResult {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped || !shaped.hasRank())
      return success();
    for (auto [d, size] : llvm::enumerate(shaped.getShape())) {
      if (ShapedType::isDynamic(size))
        continue; // ODS constraints reject dynamic shapes with their own
                  // message
      if (size < 1 || size >= kMaxDimSize)
        return op->emitOpError()
               << what << " #" << idx << " has dimension " << d << " of size "
               << size << "; sizes must be in [1, 2^40)";
    }
    Count bytes = getNumBytes(shaped);
    if (!bytes.toInt64())
      return op->emitOpError()
             << what << " #" << idx << " of type " << type
             << " has a byte size that does not fit in 64 bits";
    return success();
  };
  for (auto [i, t] : llvm::enumerate(op->getOperandTypes()))
    if (failed(check(t, "operand", i)))
      return failure();
  for (auto [i, t] : llvm::enumerate(op->getResultTypes()))
    if (failed(check(t, "result", i)))
      return failure();
  return success();
}
