//===- TpuMemorySpaces.h - npu-tpu-assign-memory-spaces internals -*- C++
//-*-===//
//
// What the pass's steps share: VMEM buffers of bounded shape, and step 3
// (TpuStageOperands.cpp), HBM operands of compute ops staged into them.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_DIALECT_NPU_TRANSFORMS_TPUMEMORYSPACES_H
#define NPU_LIB_DIALECT_NPU_TRANSFORMS_TPUMEMORYSPACES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <optional>

namespace mlir::npu::tpu_memory {

/// The static shape of a VMEM buffer holding `shape` whose dynamic sizes are
/// `sizes` (in order); nullopt if one has no bound.
std::optional<SmallVector<int64_t>> boundShape(ArrayRef<int64_t> shape,
                                               ValueRange sizes);

/// A static VMEM buffer of `bounded` shape and, if `type` has dynamic
/// sizes, a view of it with the actual sizes `dynSizes`.
Value createVmemBuffer(OpBuilder &b, Location loc, MemRefType type,
                       ArrayRef<int64_t> bounded, ValueRange dynSizes,
                       IntegerAttr alignment);

/// Step 3: each HBM operand of a linalg op gets a VMEM buffer, copied in
/// before its first use and out after its last write (once around the
/// loops that share it, where they do).
LogicalResult stageHbmOperands(func::FuncOp func);

} // namespace mlir::npu::tpu_memory

#endif // NPU_LIB_DIALECT_NPU_TRANSFORMS_TPUMEMORYSPACES_H
