//===- NpuMemoryOps.cpp - DMA between HBM and VMEM ------------------------===//

#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::npu;

/// The npu memory space of `type`, or nullopt if it has none (or another).
static std::optional<MemorySpace> getNpuMemorySpace(MemRefType type) {
  if (auto space = dyn_cast_or_null<MemorySpaceAttr>(type.getMemorySpace()))
    return space.getValue();
  return std::nullopt;
}

LogicalResult DmaStartOp::canonicalize(DmaStartOp op,
                                       PatternRewriter &rewriter) {
  Value pred = op.getPredicate();
  if (!pred || !matchPattern(pred, m_One()))
    return failure();
  rewriter.modifyOpInPlace(op, [&] { op.getPredicateMutable().clear(); });
  return success();
}

LogicalResult DmaStartOp::verify() {
  auto source = cast<MemRefType>(getSource().getType());
  auto target = cast<MemRefType>(getTarget().getType());
  if (source.getElementType() != target.getElementType())
    return emitOpError("source and target element types differ: ")
           << source.getElementType() << " vs " << target.getElementType();
  if (source.getRank() != target.getRank())
    return emitOpError("source and target ranks differ: ")
           << source.getRank() << " vs " << target.getRank();
  for (auto [i, s, t] : llvm::enumerate(source.getShape(), target.getShape())) {
    if (!ShapedType::isDynamic(s) && !ShapedType::isDynamic(t) && s != t)
      return emitOpError("source and target sizes differ in dimension ")
             << i << ": " << s << " vs " << t;
  }
  std::optional<MemorySpace> from = getNpuMemorySpace(source);
  std::optional<MemorySpace> to = getNpuMemorySpace(target);
  if (!from || !to || *from == *to)
    return emitOpError("moves data between #npu.memory_space<hbm> and "
                       "#npu.memory_space<vmem>; got ")
           << source << " to " << target;
  return success();
}
