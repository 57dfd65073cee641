//===- SramLiveness.h - live ranges of VMEM buffers -------------*- C++ -*-===//
//
// The liveness both the SRAM planner (npu-tpu-plan-sram) and its checker
// (npu-tpu-verify-sram) derive from bufferized IR (docs/memory-tpu.md): each
// VMEM `memref.alloc` of a function, its size and its live range as an
// interval of positions in a pre-order walk of the function.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_ANALYSIS_SRAMLIVENESS_H
#define NPU_ANALYSIS_SRAMLIVENESS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::npu {

/// One VMEM buffer of a function.
struct SramBuffer {
  memref::AllocOp alloc;
  int64_t bytes = 0;     ///< static elements x element bytes
  int64_t alignment = 1; ///< offsets must be multiples of it
  int64_t start = 0;     ///< position of the alloc
  int64_t end = 0;       ///< last position where it is live (inclusive)
  bool overlapsInTime(const SramBuffer &o) const {
    return start <= o.end && o.start <= end;
  }
};

/// VMEM buffers of a function and the positions of its calls.
struct SramLiveness {
  llvm::SmallVector<SramBuffer> buffers; ///< in order of `start`
  llvm::SmallVector<std::pair<Operation *, int64_t>> calls;
};

/// Whether `type` is in `#npu.memory_space<vmem>` / `<hbm>`.
bool isVmem(Type type);
bool isHbm(Type type);

/// The buffer a view is a view of: follows view-like ops (subview, casts,
/// reshapes) to the value they start from.
Value getRootBuffer(Value v);

/// Whether `op` may write through its memref operand `operand`: a linalg
/// op's output, a copy's or a DMA's target; never a view, a dim or a load;
/// any other op, yes (an unknown op is assumed to).
bool mayWriteThrough(Operation *op, OpOperand &operand);

/// Whether `op` may write the buffer `root` through one of its memref
/// operands (a view of it included; mayWriteThrough).
bool mayWriteBuffer(Operation *op, Value root);

/// Derives the live ranges of the VMEM allocs of `func`. A buffer is live
/// from its alloc to the last op of the alloc's block that uses it, a view
/// of it, a value it flows to through loop arguments, or the token of a
/// DMA on it (up to the token's wait); an op with regions counts whole.
/// Emits an error and fails on a VMEM alloc with a dynamic shape or an
/// element type without a byte size.
FailureOr<SramLiveness> computeSramLiveness(func::FuncOp func);

} // namespace mlir::npu

#endif // NPU_ANALYSIS_SRAMLIVENESS_H
